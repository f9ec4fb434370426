"""The receiver that ends a user's sessions when their password changes
(``HORIZONTAL_SESSION_END_ON_PASSWORD_CHANGE``), and its connection.

Connected in every process that saves users; the Redis side (``revocation``) loads only
when a password change actually has sessions to end.
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import AppRegistryNotReady
from django.db.models.signals import post_save

from horizontal.conf import conf
from horizontal.sessions.names import ENGINE_MODULES

__all__ = ["connect_signals"]


def _engine_is_ours() -> bool:
    return settings.SESSION_ENGINE in ENGINE_MODULES


def _end_sessions_on_password_change(
    sender: Any, instance: Any, created: bool, **kwargs: Any
) -> None:
    # AbstractBaseUser.set_password() leaves the raw password in ``_password`` until
    # save() has run, so post_save still sees that this save changes the password.
    if created or getattr(instance, "_password", None) is None:
        return
    if conf.SESSION_END_ON_PASSWORD_CHANGE and _engine_is_ours():
        from horizontal.sessions.revocation import end_user_sessions

        end_user_sessions(instance)


def connect_signals() -> None:
    """Connect the password-change receiver (idempotent; needs the app registry).

    Called by ``HorizontalConfig.ready()`` in every process, management commands
    included, and when this module is imported after the apps are ready.
    """
    # Without django.contrib.auth there is no user model to watch, and a lazy sender
    # that never resolves would be reported by Django's own checks.
    if apps.is_installed("django.contrib.auth"):
        post_save.connect(
            _end_sessions_on_password_change,
            sender=settings.AUTH_USER_MODEL,  # lazy "app_label.Model", resolved when ready
            dispatch_uid="horizontal.sessions.end_on_password_change",
        )


# The engine works without "horizontal" in INSTALLED_APPS (docs/sessions.md does not ask
# for it), and then no ready() connects the receiver: the engine's first import, by the
# session middleware once the apps are ready, does. Imported earlier, ready() does it.
# (Any module of horizontal.sessions runs the package's __init__, which imports this one.)
with contextlib.suppress(AppRegistryNotReady):
    connect_signals()
