"""The Redis side of ``horizontal.sessions``: one client per cache alias, key names
and the stored format. Internal: the store is its only user. The Lua scripts are in
``redis_common.py``, the ``redis.asyncio`` side in ``redis_async.py``.

The session store talks to redis-py directly rather than through the cache API: the
cache API turns a store error into "no value" when ``IGNORE_EXCEPTIONS`` is on, cannot
say "write only if the key still exists", and costs a serializer and a key builder per
call. What it shares with the cache alias is the configuration: the primary server,
credentials, pool options, ``KEY_PREFIX``, ``VERSION`` and ``KEY_FUNCTION``.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.core.signing import JSONSerializer as DjangoJSONSerializer

from horizontal.sessions.names import DJANGO_REDIS_CACHE, is_django_redis_backend
from horizontal.sessions.redis_async import AsyncClients, AsyncSessionRedis
from horizontal.sessions.redis_common import (
    DELETE_INDEXED,
    END_USER_SESSIONS,
    LOAD,
    LOAD_SHA,
    MOVE_FROM_FALLBACK,
    SAVE_INDEXED,
    NoScriptError,
    RedisError,
    ResponseError,
)

# Used when the alias sets no timeouts of its own: without them redis-py waits for
# ever on a wedged server, and so does every request that touches its session.
DEFAULT_SOCKET_CONNECT_TIMEOUT = 0.5
DEFAULT_SOCKET_TIMEOUT = 0.5


# Key names, passed through the alias's KEY_FUNCTION like any cache key. A session
# key comes from a cookie; keeping sessions under their own namespace means no cookie
# can name an index or the revocation list.
SESSION_NAMESPACE = "horizontal.sessions:"
USER_INDEX_NAMESPACE = "horizontal.sessions.user:"
# The users whose sessions were ended while HORIZONTAL_SESSION_FALLBACK_ENGINE is set:
# their sessions still in the old engine are deleted instead of moved. One set with no
# TTL, so that no volatile-* eviction can take it (see docs/sessions.md).
REVOKED_USERS = "horizontal.sessions.revoked-users"

# Stored value: b"h2:<index-until>:<n>:<index key, n bytes><payload>".
# - ``index key``: the Redis key of the user index the session belongs to (empty for
#   an anonymous session). A session that names an index is valid only while it is a
#   member of that index: the load script checks, so a session whose index was
#   deleted (log out everywhere) or evicted is never served, whichever went first.
# - ``index-until``: the Unix time up to which the index is known to outlive this
#   session (0: not indexed); it lets a save skip the index while it is fresh, so an
#   ordinary save is a single SET.
FORMAT_TAG = b"h2"

# What the load script answers for a session that names an index it is not in (it
# has deleted the session): not "missing", so that no fallback engine is asked.
UNVOUCHED = 0


class CorruptSession(ValueError):
    """The stored bytes are not a session this store wrote."""


class Stored(NamedTuple):
    index_until: int
    index_key: bytes
    payload: bytes


def pack(index_until: int, index_key: bytes, payload: bytes) -> bytes:
    return b"%s:%d:%d:%s%s" % (FORMAT_TAG, index_until, len(index_key), index_key, payload)


def unpack(raw: bytes | str) -> Stored:
    if isinstance(raw, str):  # a pool configured with decode_responses=True
        raw = raw.encode("latin-1")
    parts = raw.split(b":", 3)
    if len(parts) != 4 or parts[0] != FORMAT_TAG:
        raise CorruptSession("unknown format")
    try:
        index_until, length = int(parts[1]), int(parts[2])
    except ValueError:
        raise CorruptSession("bad header") from None
    rest = parts[3]
    if not 0 <= length <= len(rest):
        raise CorruptSession("bad index key length")
    return Stored(index_until, rest[:length], rest[length:])


class SessionCodec:
    """SESSION_SERIALIZER, with a shortcut for Django's JSONSerializer.

    Django's JSONSerializer builds a new JSONEncoder per call; a session store runs
    one encode and one decode per request, so a reused encoder and decoder (same
    output bytes) are worth having.
    """

    _encoder = json.JSONEncoder(separators=(",", ":"))
    _decoder = json.JSONDecoder()

    def __init__(self, serializer_class: type) -> None:
        self._fast = serializer_class is DjangoJSONSerializer
        self._serializer = None if self._fast else serializer_class()

    def dumps(self, data: dict[str, Any]) -> bytes:
        if self._serializer is None:
            return self._encoder.encode(data).encode("latin-1")
        payload = self._serializer.dumps(data)
        return payload if isinstance(payload, bytes) else str(payload).encode()

    def loads(self, payload: bytes) -> Any:
        if self._serializer is None:
            return self._decoder.decode(payload.decode("latin-1"))
        return self._serializer.loads(payload)


class SessionRedis:
    """The Redis behind ``SESSION_CACHE_ALIAS`` as the session store uses it.

    Always the alias's primary (the first ``LOCATION``): a replica can lag behind a
    login that just happened on another instance.
    """

    def __init__(self, alias: str) -> None:
        cache = _django_redis_cache(alias)
        self.alias = alias
        self.client: Any = bounded_client(cache.client.get_client(write=True))
        self._key_func: Callable[[str, str, int], str] = cache.key_func
        self._key_prefix: str = cache.key_prefix
        self._version: int = cache.version
        self._pool = self.client.connection_pool
        self._local = threading.local()
        self.save_indexed = self.client.register_script(SAVE_INDEXED)
        self.move_from_fallback = self.client.register_script(MOVE_FROM_FALLBACK)
        self.end_user_sessions = self.client.register_script(END_USER_SESSIONS)
        self.delete_indexed = self.client.register_script(DELETE_INDEXED)
        self._async_clients = AsyncClients(self._pool)

    def load(self, key: str) -> bytes | str | int | None:
        """The stored session, None when there is none, or ``UNVOUCHED`` when it names
        a user index that no longer holds it (the script has deleted it).

        One round trip: ``EVALSHA`` on this thread's connection, or ``EVAL`` (which
        also caches the script) when the server does not know it yet (first use, or
        after a restart).
        """
        try:
            reply: bytes | str | int | None = self._command("EVALSHA", LOAD_SHA, 1, key)
        except NoScriptError:
            reply = self._command("EVAL", LOAD, 1, key)
        return reply

    def get(self, key: str) -> bytes | str | None:
        value: bytes | str | None = self._command("GET", key)
        return value

    def set(self, key: str, value: bytes, ttl: int, *, create: bool) -> bool:
        """SET with its TTL, NX to create or XX to update: whether it wrote."""
        return self._command("SET", key, value, "EX", ttl, "NX" if create else "XX") is not None

    def _command(self, *args: Any) -> Any:
        connection = self._connection()
        try:
            connection.send_command(*args)
            return connection.read_response()
        except ResponseError:
            raise  # an error reply, read whole: the connection is fine
        except BaseException:
            connection.disconnect()  # a reply may be half read: never reuse the socket
            raise

    def _connection(self) -> Any:
        """This thread's own connection for GET and SET, as Django keeps one database
        connection per thread.

        Not checked out of the pool per command: in redis-py 8 a checkout and release
        (locks, metrics, a poll) cost more CPU than the GET and SET themselves. It has
        the pool's settings (server, credentials, TLS, timeouts) but is not counted in
        the pool's ``max_connections``: one connection per thread that uses sessions.
        """
        local = self._local
        connection = getattr(local, "connection", None)
        if connection is None or local.pid != os.getpid():  # first use, or a forked child
            connection = self._pool.connection_class(**self._pool.connection_kwargs)
            local.connection, local.pid = connection, os.getpid()
        elif connection.is_connected and _has_unread_data(connection):
            # Readable before anything was asked: the server closed it (restart, idle
            # timeout). Start again on a new socket, as the pool does on checkout.
            connection.disconnect()
        return connection

    # -- the async side: redis.asyncio, one client per event loop ------------------

    def asession(self) -> AsyncSessionRedis | None:
        """The running event loop's ``redis.asyncio`` side of this store (one client per
        loop, ``AsyncClients``); None when the alias's pool has no asyncio counterpart
        (Sentinel, a custom pool): the store then runs the sync path in a worker thread.
        """
        return self._async_clients.for_running_loop()

    def key(self, namespace: str, name: str) -> str:
        return self._key_func(namespace + name, self._key_prefix, self._version)

    def session_key(self, session_key: str) -> str:
        return self.key(SESSION_NAMESPACE, session_key)

    def user_index_key(self, user_pk: str) -> str:
        return self.key(USER_INDEX_NAMESPACE, user_pk)

    def revoked_users_key(self) -> str:
        return self.key(REVOKED_USERS, "")


def _has_unread_data(connection: Any) -> bool:
    try:
        return bool(connection.can_read())
    except (OSError, RedisError):
        return True


def _django_redis_cache(alias: str) -> Any:
    from django.conf import settings

    config = settings.CACHES.get(alias)
    if config is None:
        raise ImproperlyConfigured(
            f"horizontal.sessions: SESSION_CACHE_ALIAS {alias!r} is not in CACHES."
        )
    if not is_django_redis_backend(str(config.get("BACKEND", ""))):
        raise ImproperlyConfigured(
            f"horizontal.sessions needs a django-redis cache ({DJANGO_REDIS_CACHE}) as "
            f"SESSION_CACHE_ALIAS {alias!r}; it is {config.get('BACKEND')!r}."
        )
    from django_redis.client.sharded import ShardClient

    cache: Any = caches[alias]  # django-redis's RedisCache: BaseCache has no .client
    if isinstance(cache.client, ShardClient):  # no single primary to read from
        raise ImproperlyConfigured(
            f"horizontal.sessions needs a django-redis client with one primary "
            f"(DefaultClient, HerdClient, SentinelClient); SESSION_CACHE_ALIAS {alias!r} "
            f"uses {type(cache.client).__name__}."
        )
    return cache


def bounded_client(client: Any) -> Any:
    """``client``, or a client on a pool of its own with timeouts when it has none.

    The copy keeps every connection setting of the alias (server, credentials, TLS,
    pool size) and adds only the missing timeouts, so the general cache on the same
    alias keeps its own behaviour. Pools other than redis-py's plain ``ConnectionPool``
    (Sentinel, blocking) are used as they are; ``horizontal.W021`` asks for explicit
    timeouts then.
    """
    from redis import ConnectionPool, Redis

    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    if kwargs.get("socket_timeout") and kwargs.get("socket_connect_timeout"):
        return client
    if type(pool) is not ConnectionPool:
        return client
    kwargs["socket_timeout"] = kwargs.get("socket_timeout") or DEFAULT_SOCKET_TIMEOUT
    kwargs["socket_connect_timeout"] = (
        kwargs.get("socket_connect_timeout") or DEFAULT_SOCKET_CONNECT_TIMEOUT
    )
    bounded_pool = ConnectionPool(
        connection_class=pool.connection_class,
        max_connections=pool.max_connections,
        **kwargs,
    )
    return Redis(connection_pool=bounded_pool)


_lock = threading.Lock()
_by_alias: dict[str, SessionRedis] = {}


def session_redis(alias: str) -> SessionRedis:
    """The process-wide ``SessionRedis`` for ``alias`` (built on first use)."""
    try:
        return _by_alias[alias]
    except KeyError:
        pass
    with _lock:
        if alias not in _by_alias:
            _by_alias[alias] = SessionRedis(alias)
        return _by_alias[alias]


def _forget_clients(*, setting: str, **kwargs: Any) -> None:
    # Tests point the alias at another server with override_settings.
    if setting in {"CACHES", "SESSION_CACHE_ALIAS"}:
        with _lock:
            _by_alias.clear()


setting_changed.connect(_forget_clients)
