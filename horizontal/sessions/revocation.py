"""Log out everywhere: ``end_user_sessions``/``aend_user_sessions`` (the password-change
receiver that calls them is in ``password_change``).

One script on the user's index in Redis (the index the store's saves keep), so every
session of the user ends on every instance at once. The store (and redis-py) load at
the first call: a view module may import these in a project whose sessions are not in
Redis yet. See docs/sessions.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async

from horizontal.conf import conf

if TYPE_CHECKING:
    from horizontal.sessions.redis import SessionRedis

__all__ = ["aend_user_sessions", "end_user_sessions"]


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
    from horizontal.sessions.store import STORE_ERRORS, SessionStoreUnavailable, store_redis

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
    from horizontal.sessions.store import STORE_ERRORS, SessionStoreUnavailable, store_redis

    store = store_redis()
    side = store.asession()
    if side is None:
        return await sync_to_async(end_user_sessions, thread_sensitive=False)(user)
    keys, args = _end_user_sessions_call(store, user)
    try:
        return int(await side.end_user_sessions(keys=keys, args=args))
    except STORE_ERRORS as error:
        raise SessionStoreUnavailable(f"cannot end the user's sessions: {error}") from error
