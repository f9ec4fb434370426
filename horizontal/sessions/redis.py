"""The Redis side of ``horizontal.sessions``: one client per cache alias, key names,
the stored format and the Lua scripts. Internal: the store is its only user.

The session store talks to redis-py directly rather than through the cache API: the
cache API turns a store error into "no value" when ``IGNORE_EXCEPTIONS`` is on, cannot
say "write only if the key still exists", and costs a serializer and a key builder per
call. What it shares with the cache alias is the configuration: the primary server,
credentials, pool options, ``KEY_PREFIX``, ``VERSION`` and ``KEY_FUNCTION``.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import os
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.core.signing import JSONSerializer as DjangoJSONSerializer
from django.utils.module_loading import import_string

try:
    from redis.exceptions import NoScriptError, RedisError, ResponseError
except ImportError:  # the [redis] extra is absent; SessionRedis() is never built then.

    class RedisError(Exception):  # type: ignore[no-redef]
        pass

    class ResponseError(RedisError):  # type: ignore[no-redef]
        pass

    class NoScriptError(ResponseError):  # type: ignore[no-redef]
        pass


# Used when the alias sets no timeouts of its own: without them redis-py waits for
# ever on a wedged server, and so does every request that touches its session.
DEFAULT_SOCKET_CONNECT_TIMEOUT = 0.5
DEFAULT_SOCKET_TIMEOUT = 0.5

DJANGO_REDIS_CACHE = "django_redis.cache.RedisCache"

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


# The one command of an ordinary load: GET the session and, when it names a user
# index, serve it only if it is still a member (else delete it and answer UNVOUCHED).
# Membership, not the index's existence, is the test: an index that was evicted and
# then re-created by a new login does not vouch for the sessions of the old one.
# KEYS: session
LOAD = """
local value = redis.call('GET', KEYS[1])
if not value then return false end
local digits, start = string.match(value, '^h2:%d+:(%d+):()')
if not digits then return value end  -- not this format: the store says it is corrupt
local length = tonumber(digits)
if length == 0 or start + length - 1 > #value then return value end
local index = string.sub(value, start, start + length - 1)
if redis.call('SISMEMBER', index, KEYS[1]) == 1 then return value end
redis.call('DEL', KEYS[1])
return 0
"""

LOAD_SHA = hashlib.sha1(LOAD.encode(), usedforsecurity=False).hexdigest()

# Add a session to its user's index: drop members whose session is gone when a new
# one arrives (so the set stays as small as the user's live sessions), and make the
# index outlive the session.
INDEX_SESSION = """
local function index_session(session, index, index_ttl)
  if redis.call('SADD', index, session) == 1 then
    for _, member in ipairs(redis.call('SMEMBERS', index)) do
      if redis.call('EXISTS', member) == 0 then redis.call('SREM', index, member) end
    end
  end
  if redis.call('TTL', index) < tonumber(index_ttl) then
    redis.call('EXPIRE', index, index_ttl)
  end
end
"""

# SET the session (NX to create, XX to update) and, only if that wrote, index it and
# leave the index of a previous user. With ``member`` = 1 (an update of a session
# loaded as this user's) the session must still be in the index: one that is not
# was ended (or its index evicted) after it was loaded, and writing it back must not
# make it valid again in a fresh index.
# KEYS: session, user index, [previous user's index]
# ARGV: value, ttl, NX|XX, index ttl, member (1|0)
SAVE_INDEXED = (
    INDEX_SESSION
    + """
if ARGV[5] == '1' and redis.call('SISMEMBER', KEYS[2], KEYS[1]) == 0 then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], ARGV[3]) then return 0 end
index_session(KEYS[1], KEYS[2], ARGV[4])
if KEYS[3] then redis.call('SREM', KEYS[3], KEYS[1]) end
return 1
"""
)

# Move a user's session from the fallback engine into Redis, unless the user's
# sessions were ended during the migration: the test and the write are one step, so
# end_user_sessions lands either before it (refused: -1) or after it (the moved
# session is in the index and is ended). 0: another instance moved it first.
# KEYS: session, user index, revoked users    ARGV: value, ttl, index ttl, user pk
MOVE_FROM_FALLBACK = (
    INDEX_SESSION
    + """
if redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1 then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then return 0 end
index_session(KEYS[1], KEYS[2], ARGV[3])
return 1
"""
)

# Delete every session in a user's index and the index itself, atomically: a save
# racing with it either lands before (and is deleted) or after (and finds no key, so
# its SET XX writes nothing). During a migration, also put the user on the revoked
# list, so that their sessions still in the old engine are never moved.
# KEYS: user index, [revoked users]    ARGV: [user pk]
END_USER_SESSIONS = """
local ended = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  ended = ended + redis.call('DEL', member)
end
redis.call('DEL', KEYS[1])
if KEYS[2] then redis.call('SADD', KEYS[2], ARGV[1]) end
return ended
"""

# Delete a session and take it out of its user's index.
# KEYS: session, user index
DELETE_INDEXED = """
redis.call('SREM', KEYS[2], KEYS[1])
return redis.call('DEL', KEYS[1])
"""


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
        self._async_kwargs = async_pool_kwargs(self._pool)
        self._async_by_loop: dict[asyncio.AbstractEventLoop, AsyncSessionRedis] = {}
        self._async_lock = threading.Lock()

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
        """The running event loop's ``redis.asyncio`` side of this store; None when the
        alias's pool has no asyncio counterpart (Sentinel, a custom pool): the store then
        runs the sync path in a worker thread.

        One client per loop: a redis.asyncio connection belongs to the loop it was
        opened on and must not be used from another (``async_to_sync`` runs each call
        on a new loop; ASGI servers run one loop per worker, sometimes per thread).
        """
        loop = asyncio.get_running_loop()
        side = self._async_by_loop.get(loop)
        if side is not None:
            return side
        if self._async_kwargs is None:
            return None
        with self._async_lock:
            # Loops that ended take their clients with them: their sockets are closed
            # with the loop's transports, and nothing may await them any more.
            for old in [old for old in self._async_by_loop if old.is_closed()]:
                del self._async_by_loop[old]
            side = self._async_by_loop.get(loop)
            if side is None:
                side = AsyncSessionRedis(self._async_kwargs)
                self._async_by_loop[loop] = side
            return side

    def key(self, namespace: str, name: str) -> str:
        return self._key_func(namespace + name, self._key_prefix, self._version)

    def session_key(self, session_key: str) -> str:
        return self.key(SESSION_NAMESPACE, session_key)

    def user_index_key(self, user_pk: str) -> str:
        return self.key(USER_INDEX_NAMESPACE, user_pk)

    def revoked_users_key(self) -> str:
        return self.key(REVOKED_USERS, "")


class AsyncSessionRedis:
    """The store's commands on ``redis.asyncio``, for one event loop.

    The same server, credentials, timeouts and pool size as the sync client, the same
    scripts (run by SHA, loaded again when the server forgot them) and the same
    replies, so the store interprets both alike. Commands go through the client's pool:
    coroutines of one loop run concurrently, and a connection serves one at a time.
    """

    def __init__(self, pool_kwargs: dict[str, Any]) -> None:
        from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis

        kwargs = dict(pool_kwargs)
        blocking = kwargs.pop("blocking", False)
        pool_class = BlockingConnectionPool if blocking else ConnectionPool
        self.client: Any = Redis(connection_pool=pool_class(**kwargs))
        # Load and save run on this loop's idle connections (``_command``), except under
        # a blocking pool, whose point is to make callers wait for its limit.
        self._pooled = blocking
        self._idle: list[Any] = []
        self._max_idle = int(kwargs.get("max_connections") or 2**31)
        self.save_indexed = self.client.register_script(SAVE_INDEXED)
        self.move_from_fallback = self.client.register_script(MOVE_FROM_FALLBACK)
        self.end_user_sessions = self.client.register_script(END_USER_SESSIONS)
        self.delete_indexed = self.client.register_script(DELETE_INDEXED)

    async def load(self, key: str) -> bytes | str | int | None:
        """As ``SessionRedis.load``: one ``EVALSHA`` (``EVAL`` when the server lost it)."""
        try:
            reply: bytes | str | int | None = await self._command("EVALSHA", LOAD_SHA, 1, key)
        except NoScriptError:
            reply = await self._command("EVAL", LOAD, 1, key)
        return reply

    async def set(self, key: str, value: bytes, ttl: int, *, create: bool) -> bool:
        reply = await self._command("SET", key, value, "EX", ttl, "NX" if create else "XX")
        return reply is not None and reply is not False

    async def exists(self, key: str) -> bool:
        return bool(await self._command("EXISTS", key))

    async def delete(self, key: str) -> int:
        return int(await self._command("DEL", key))

    async def _command(self, *args: Any) -> Any:
        """One command on an idle connection of this loop, as the sync side's
        ``_command`` does on its thread's: in redis.asyncio 8 a pool checkout and release
        (a lock each, metrics) cost about as much CPU as the command itself. The checks
        are the pool's: connected, and nothing unread (a server that closed it, a reply
        left behind) — else a new socket. No retries, as on the sync side: a down server
        fails at once, by the store's failure policy.
        """
        if self._pooled:
            return await self.client.execute_command(*args)
        idle = self._idle
        connection = idle.pop() if idle else self.client.connection_pool.make_connection()
        try:
            await connection.connect()  # at once when it is connected
            if await connection.can_read():
                await connection.disconnect()
                await connection.connect()
            await connection.send_command(*args)
            reply = await connection.read_response()
        except ResponseError:
            await self._put_back(connection)  # an error reply, read whole: it is fine
            raise
        except BaseException:
            # A reply may be half read (a timeout, a cancelled request): never reuse it.
            await connection.disconnect(nowait=True)
            raise
        await self._put_back(connection)
        return reply

    async def _put_back(self, connection: Any) -> None:
        # Up to the pool's max_connections stay open; more were a burst.
        if len(self._idle) < self._max_idle:
            self._idle.append(connection)
        else:
            await connection.disconnect(nowait=True)


# Connection classes of redis-py and their redis.asyncio counterparts, by name: a
# subclass of either (TLS settings of its own, say) has no counterpart we can vouch for.
_ASYNC_CONNECTION_CLASSES = ("Connection", "SSLConnection", "UnixDomainSocketConnection")
# Sync-only objects a pool passes to its connections (parsers, retry and callback
# objects, maintenance-notification handlers): the asyncio classes build their own.
_SYNC_ONLY_KWARGS = frozenset(
    {
        "parser_class",
        "retry",
        "redis_connect_func",
        "command_packer",
        "event_dispatcher",
        "himport_registry",
        "maint_notifications_config",
        "maint_notifications_pool_handler",
        "maintenance_state",
        "maintenance_notification_hash",
        "orig_host_address",
        "orig_socket_timeout",
        "orig_socket_connect_timeout",
        "oss_cluster_maint_notifications_handler",
    }
)


def async_pool_kwargs(pool: Any) -> dict[str, Any] | None:
    """Arguments for a ``redis.asyncio`` pool with the settings of ``pool`` (redis-py's),
    or None when there is no faithful counterpart (Sentinel and other custom pools,
    custom connection classes)."""
    try:
        import redis
        import redis.asyncio.connection as aio_connection
        import redis.connection as sync_connection
    except ImportError:
        return None
    if type(pool) not in (redis.ConnectionPool, redis.BlockingConnectionPool):
        return None
    name = pool.connection_class.__name__
    if (
        name not in _ASYNC_CONNECTION_CLASSES
        or getattr(sync_connection, name, None) is not pool.connection_class
    ):
        return None
    connection_class = getattr(aio_connection, name)
    accepted = set()
    for cls in connection_class.__mro__:
        if "__init__" in vars(cls):
            accepted |= set(inspect.signature(vars(cls)["__init__"]).parameters)
    kwargs = {
        key: value
        for key, value in pool.connection_kwargs.items()
        if key in accepted and key not in _SYNC_ONLY_KWARGS
    }
    if any(key not in accepted for key in pool.connection_kwargs if key not in _SYNC_ONLY_KWARGS):
        return None  # a setting the asyncio connection cannot take: do not drop it silently
    kwargs["connection_class"] = connection_class
    kwargs["max_connections"] = pool.max_connections
    if isinstance(pool, redis.BlockingConnectionPool):
        kwargs["blocking"] = True
        kwargs["timeout"] = pool.timeout
    return kwargs


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


def is_django_redis_backend(backend: str) -> bool:
    """Whether a CACHES ``BACKEND`` path is django-redis's cache (or a subclass)."""
    try:
        cls = import_string(backend)
        base = import_string(DJANGO_REDIS_CACHE)
    except ImportError:
        return False
    return isinstance(cls, type) and issubclass(cls, base)


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
