"""Log out everywhere: ``end_user_sessions``/``aend_user_sessions``, and the receiver
that ends a user's sessions when their password changes.

One script on the user's index in Redis (the index the store's saves keep), so every
session of the user ends on every instance at once. See docs/sessions.md.
"""

from __future__ import annotations

import contextlib
from typing import Any

from asgiref.sync import sync_to_async
from django.apps import apps
from django.conf import settings
from django.core.exceptions import AppRegistryNotReady
from django.db.models.signals import post_save

from horizontal.conf import conf
from horizontal.sessions.redis import SessionRedis
from horizontal.sessions.store import (
    ENGINE_MODULES,
    STORE_ERRORS,
    SessionStoreUnavailable,
    store_redis,
)

__all__ = ["aend_user_sessions", "connect_signals", "end_user_sessions"]


def _user_pk(user: Any) -> str:
    pk = getattr(user, "pk", None)
    meta = getattr(user, "_meta", None)
    if pk is None or meta is None:
        raise ValueError(f"end_user_sessions() needs a saved user instance, not {user!r}.")
    # The same string login() stores under SESSION_KEY.
    return str(meta.pk.value_to_string(user))


def end_user_sessions(user: Any) -> int:
    """End every session of ``user`` on every instance; return how many were ended.

    Sessions saved through ``horizontal.sessions`` are indexed by user, so this is
    one atomic script in Redis. The count is of the sessions deleted: a session whose
    index Redis had evicted is not counted, and was already unusable. With
    ``HORIZONTAL_SESSION_FALLBACK_ENGINE`` set it also puts the user on the revoked
    list, so that their sessions still in the old engine are never moved into Redis.
    """
    store = store_redis()
    keys, args = _end_user_sessions_call(store, user)
    try:
        return int(store.end_user_sessions(keys=keys, args=args))
    except STORE_ERRORS as error:
        raise SessionStoreUnavailable(f"cannot end the user's sessions: {error}") from error


def _end_user_sessions_call(store: SessionRedis, user: Any) -> tuple[list[str], list[str]]:
    pk = _user_pk(user)
    keys = [store.user_index_key(pk)]
    args: list[str] = []
    if conf.SESSION_FALLBACK_ENGINE:
        keys.append(store.revoked_users_key())
        args.append(pk)
    return keys, args


async def aend_user_sessions(user: Any) -> int:
    """Async ``end_user_sessions``: the same script, on redis.asyncio."""
    store = store_redis()
    side = store.asession()
    if side is None:
        return await sync_to_async(end_user_sessions, thread_sensitive=False)(user)
    keys, args = _end_user_sessions_call(store, user)
    try:
        return int(await side.end_user_sessions(keys=keys, args=args))
    except STORE_ERRORS as error:
        raise SessionStoreUnavailable(f"cannot end the user's sessions: {error}") from error


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
