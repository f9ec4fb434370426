"""Project subclasses of single-instance backends: the checks must see through them."""

from __future__ import annotations

import logging.handlers

from django.contrib.sessions.backends.file import SessionStore as FileSessionStore
from django.core.cache.backends.locmem import LocMemCache
from django.core.files.storage import Storage
from django.core.mail.backends.filebased import EmailBackend


class MeteredLocMemCache(LocMemCache):
    pass


class SessionStore(FileSessionStore):
    """Makes this module a session engine: SESSION_ENGINE = "tests.checks.backends"."""


class ArchivingEmailBackend(EmailBackend):
    pass


class CompressingRotatingFileHandler(logging.handlers.RotatingFileHandler):
    pass


class HorizontalStaysOffRouter:
    """A router that keeps horizontal's tables off every database."""

    def allow_migrate(self, db: str, app_label: str, **hints: object) -> bool | None:
        return False if app_label == "horizontal" else None


class SharedStorage(Storage):
    """Stands in for a store every instance reads (S3, GCS), with no network behind it."""
