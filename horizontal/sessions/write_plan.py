"""What a session save sends to Redis: a ``DEL``, a ``SET``, or the indexing script.

Decided here without I/O, from the session's data and what its load said about the
user index, so that ``SessionStore``'s sync and async saves run the same commands. Also
``user_index``: the index (key, TTL, expiry) a user's session is written into, which the
move from the fallback engine writes too.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from django.contrib.auth import SESSION_KEY

from horizontal.sessions.redis import SessionCodec, SessionRedis, pack

__all__ = [
    "DELETE",
    "SCRIPT",
    "SET",
    "LoadedIndex",
    "UserIndex",
    "WritePlan",
    "user_index",
    "write_plan",
]

DELETE, SET, SCRIPT = "delete", "set", "script"


class WritePlan(NamedTuple):
    """One save: ``kind`` says which fields the sync or async path sends."""

    kind: str
    key: str
    value: bytes = b""
    create: bool = False
    keys: list[str] = []
    args: list[Any] = []
    remember: tuple[str, str, int] = ("", "", 0)


class LoadedIndex(NamedTuple):
    """What the stored value said about the user index when the session was loaded."""

    user: str | None
    key: bytes
    until: int


class UserIndex(NamedTuple):
    """The user index a session is written into: its key, TTL, and when it expires."""

    key: str
    ttl: int
    until: int


def user_index(redis: SessionRedis, user: str, ttl: int) -> UserIndex:
    """The index a session of ``user`` living ``ttl`` seconds is written into now."""
    # Twice the session's TTL: a save refreshes the index only once the index could
    # expire within the session's lifetime, i.e. about once per TTL.
    index_ttl = 2 * ttl
    return UserIndex(redis.user_index_key(user), index_ttl, int(time.time()) + index_ttl)


def write_plan(
    redis: SessionRedis,
    codec: SessionCodec,
    session_key: str,
    data: dict[str, Any],
    ttl: int,
    must_create: bool,
    loaded: LoadedIndex,
) -> WritePlan:
    """What a save of ``data`` under ``session_key`` sends (no I/O here)."""
    key = redis.session_key(session_key)
    if ttl <= 0:
        return WritePlan(DELETE, key)
    payload = codec.dumps(data)
    user = data.get(SESSION_KEY)
    if user is None:
        return WritePlan(SET, key, pack(0, b"", payload), must_create)
    if _index_is_fresh(loaded, user, ttl, must_create):
        return WritePlan(SET, key, pack(loaded.until, loaded.key, payload), False)
    user = str(user)
    index = user_index(redis, user, ttl)
    keys = [key, index.key]
    if loaded.user is not None and loaded.user != user:
        keys.append(redis.user_index_key(loaded.user))
    # An update of a session loaded as this user's must still be in the index: if
    # it was ended (or the index evicted) since, writing it back is refused.
    member = "1" if not must_create and loaded.user == user else "0"
    value = pack(index.until, index.key.encode(), payload)
    args = [value, ttl, "NX" if must_create else "XX", index.ttl, member]
    return WritePlan(SCRIPT, key, keys=keys, args=args, remember=(user, index.key, index.until))


def _index_is_fresh(loaded: LoadedIndex, user: Any, ttl: int, must_create: bool) -> bool:
    # A new key (create, cycle_key) is not in any index yet.
    return not must_create and user == loaded.user and loaded.until >= time.time() + ttl
