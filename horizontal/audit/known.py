"""The one catalogue of single-box values: backends, engines and apps that work on one box
and break on two, and the calls that make a value random per process.

Both tools read it: the deploy checks (``horizontal/checks/``, which match the live
settings by class, subclasses included) and the audit (``settings_modules.py``, which
finds the same strings in settings source). A new single-box backend is added here once
and both learn it; ``tests/audit/test_known.py`` runs every entry through both.

Standard library only: the audit stays importable without Django.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

__all__ = [
    "APSCHEDULER_APPS",
    "CATALOGUE",
    "CRONTAB_APPS",
    "DJANGO_CRON_CACHE_LOCKS",
    "DJANGO_CRON_FILE_LOCKS",
    "DUMMY_CACHES",
    "DUMMY_TASKS",
    "FILE_CACHES",
    "FILE_EMAIL_BACKENDS",
    "FILE_LOG_HANDLERS",
    "FILE_SESSION_ENGINES",
    "IMMEDIATE_TASKS",
    "IN_MEMORY_CHANNEL_LAYERS",
    "LOCAL_STORAGES",
    "LOCMEM_CACHES",
    "RANDOM_VALUE_CALLS",
    "SQLITE_ENGINES",
    "SingleBox",
    "paths",
]


class SingleBox(NamedTuple):
    """A value that works on one box and breaks on two."""

    setting: str  # the setting that names it, as the audit reports it
    path: str  # the value as settings write it: a class or module path, or an app
    why: str  # what breaks with N instances, in one line


LOCMEM_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.locmem.LocMemCache",
        "LocMemCache is per process: invalidation, rate limits and cache locks do not "
        "cross instances",
    ),
)
FILE_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.filebased.FileBasedCache",
        "FileBasedCache lives on one host's disk: each instance caches separately",
    ),
)
DUMMY_CACHES = (
    SingleBox(
        "CACHES",
        "django.core.cache.backends.dummy.DummyCache",
        "DummyCache stores nothing: cache.add() gates and locks silently never hold",
    ),
)
# Engines are module paths; each module's class is ``SessionStore``.
FILE_SESSION_ENGINES = (
    SingleBox(
        "SESSION_ENGINE",
        "django.contrib.sessions.backends.file",
        "file sessions live on one host: users are logged out when the balancer sends "
        "them elsewhere",
    ),
)
LOCAL_STORAGES = (
    SingleBox(
        "STORAGES['default']",
        "django.core.files.storage.FileSystemStorage",
        "uploads go to this host's disk: other instances cannot serve them",
    ),
    SingleBox(
        "STORAGES['default']",
        "django.core.files.storage.InMemoryStorage",
        "uploads stay in one process's memory: other instances cannot serve them",
    ),
)
SQLITE_ENGINES = (
    SingleBox(
        "DATABASES",
        "django.db.backends.sqlite3",
        "SQLite is a file on one host: each instance would have its own database",
    ),
    SingleBox(
        "DATABASES",
        "django.contrib.gis.db.backends.spatialite",
        "SpatiaLite is SQLite: each instance would have its own database",
    ),
)
IN_MEMORY_CHANNEL_LAYERS = (
    SingleBox(
        "CHANNEL_LAYERS",
        "channels.layers.InMemoryChannelLayer",
        "InMemoryChannelLayer cannot deliver messages between instances",
    ),
)
# django.tasks (Django 6.0+) and its backport, django-tasks, ship the same two backends.
IMMEDIATE_TASKS = tuple(
    SingleBox(
        "TASKS",
        f"{package}.backends.immediate.ImmediateBackend",
        "ImmediateBackend runs tasks inline in the request worker",
    )
    for package in ("django.tasks", "django_tasks")
)
DUMMY_TASKS = tuple(
    SingleBox("TASKS", f"{package}.backends.dummy.DummyBackend", "DummyBackend never runs tasks")
    for package in ("django.tasks", "django_tasks")
)
APSCHEDULER_APPS = (
    SingleBox(
        "INSTALLED_APPS",
        "django_apscheduler",
        "django_apscheduler runs a scheduler per process: jobs fire once per instance",
    ),
)
CRONTAB_APPS = (
    SingleBox(
        "INSTALLED_APPS",
        "django_crontab",
        "django_crontab installs its CRONJOBS into every host's crontab",
    ),
)
DJANGO_CRON_FILE_LOCKS = (
    SingleBox(
        "DJANGO_CRON_LOCK_BACKEND",
        "django_cron.backends.lock.file.FileLock",
        "django_cron's FileLock is a file on one host: every instance runs each cron job",
    ),
)
# The first one is django_cron's default lock.
DJANGO_CRON_CACHE_LOCKS = (
    SingleBox(
        "DJANGO_CRON_LOCK_BACKEND",
        "django_cron.backends.lock.cache.CacheLock",
        "django_cron's CacheLock reads, then sets: two instances can both take it",
    ),
)
# logging.handlers' Rotating/TimedRotating/WatchedFileHandler all subclass FileHandler;
# they are listed so the common spellings are recognised without an import.
FILE_LOG_HANDLERS = tuple(
    SingleBox("LOGGING", path, "logs go to a file on one host: each instance keeps a partial log")
    for path in (
        "logging.FileHandler",
        "logging.handlers.RotatingFileHandler",
        "logging.handlers.TimedRotatingFileHandler",
        "logging.handlers.WatchedFileHandler",
    )
)
FILE_EMAIL_BACKENDS = (
    SingleBox(
        "EMAIL_BACKEND",
        "django.core.mail.backends.filebased.EmailBackend",
        "the file email backend writes mail to one host's disk",
    ),
)

CATALOGUE: tuple[SingleBox, ...] = (
    *LOCMEM_CACHES,
    *FILE_CACHES,
    *DUMMY_CACHES,
    *FILE_SESSION_ENGINES,
    *LOCAL_STORAGES,
    *SQLITE_ENGINES,
    *IN_MEMORY_CHANNEL_LAYERS,
    *IMMEDIATE_TASKS,
    *DUMMY_TASKS,
    *APSCHEDULER_APPS,
    *CRONTAB_APPS,
    *DJANGO_CRON_FILE_LOCKS,
    *DJANGO_CRON_CACHE_LOCKS,
    *FILE_LOG_HANDLERS,
    *FILE_EMAIL_BACKENDS,
)

# Calls (by their last name: ``secrets.token_hex`` is ``token_hex``) that return a fresh
# random value each time the settings module is imported.
RANDOM_VALUE_CALLS = frozenset(
    {
        "get_random_secret_key",
        "get_random_string",
        "token_bytes",
        "token_hex",
        "token_urlsafe",
        "urandom",
        "randbytes",
        "getrandbits",
        "uuid1",
        "uuid4",
        "generate_key",
    }
)


def paths(entries: Iterable[SingleBox]) -> tuple[str, ...]:
    """The values of ``entries``, for a check that matches them by class or name."""
    return tuple(entry.path for entry in entries)
