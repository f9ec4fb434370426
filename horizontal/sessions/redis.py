"""The Redis side of ``horizontal.sessions``: one client per cache alias, key names,
the stored format and the Lua scripts. Internal: the store is its only user.

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
from django.utils.module_loading import import_string

try:
    from redis.exceptions import RedisError
except ImportError:  # the [redis] extra is absent; SessionRedis() is never built then.

    class RedisError(Exception):  # type: ignore[no-redef]
        pass


# Used when the alias sets no timeouts of its own: without them redis-py waits for
# ever on a wedged server, and so does every request that touches its session.
DEFAULT_SOCKET_CONNECT_TIMEOUT = 0.5
DEFAULT_SOCKET_TIMEOUT = 0.5

DJANGO_REDIS_CACHE = "django_redis.cache.RedisCache"

# Key namespaces, passed through the alias's KEY_FUNCTION like any cache key. A
# session key comes from a cookie; keeping sessions under their own namespace means
# no cookie can name an index or a marker.
SESSION_NAMESPACE = "horizontal.sessions:"
USER_INDEX_NAMESPACE = "horizontal.sessions.user:"
REVOKED_NAMESPACE = "horizontal.sessions.revoked:"

# Stored value: b"h1:<index-until>:<payload>". ``index-until`` is the Unix time up to
# which the user index is known to outlive this session (0: not indexed); it lets a
# save skip the index while it is fresh, so an ordinary save is a single SET.
FORMAT_TAG = b"h1"


class CorruptSession(ValueError):
    """The stored bytes are not a session this store wrote."""


class Stored(NamedTuple):
    index_until: int
    payload: bytes


def pack(index_until: int, payload: bytes) -> bytes:
    return b"%s:%d:%s" % (FORMAT_TAG, index_until, payload)


def unpack(raw: bytes | str) -> Stored:
    if isinstance(raw, str):  # a pool configured with decode_responses=True
        raw = raw.encode("latin-1")
    parts = raw.split(b":", 2)
    if len(parts) != 3 or parts[0] != FORMAT_TAG:
        raise CorruptSession("unknown format")
    try:
        index_until = int(parts[1])
    except ValueError:
        raise CorruptSession("bad index time") from None
    return Stored(index_until, parts[2])


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


# SET the session (NX to create, XX to update) and, only if that wrote, keep the
# user's index: add the session, drop members whose session is gone when a new one
# arrives (so the set stays as small as the user's live sessions), make the index
# outlive the session, and leave the index of a previous user.
# KEYS: session, user index, [previous user's index]
# ARGV: value, ttl, NX|XX, index ttl
SAVE_INDEXED = """
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], ARGV[3]) then return 0 end
if redis.call('SADD', KEYS[2], KEYS[1]) == 1 then
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if redis.call('EXISTS', member) == 0 then redis.call('SREM', KEYS[2], member) end
  end
end
if redis.call('TTL', KEYS[2]) < tonumber(ARGV[4]) then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
if KEYS[3] then redis.call('SREM', KEYS[3], KEYS[1]) end
return 1
"""

# Delete every session in a user's index and the index itself, atomically: a save
# racing with it either lands before (and is deleted) or after (and finds no key, so
# its SET XX writes nothing). Optionally leave a marker that refuses migration of
# the user's sessions from the fallback engine.
# KEYS: user index, [revoked marker]    ARGV: [marker ttl]
END_USER_SESSIONS = """
local ended = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  ended = ended + redis.call('DEL', member)
end
redis.call('DEL', KEYS[1])
if KEYS[2] then redis.call('SET', KEYS[2], '1', 'EX', ARGV[1]) end
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
        self.end_user_sessions = self.client.register_script(END_USER_SESSIONS)
        self.delete_indexed = self.client.register_script(DELETE_INDEXED)

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

    def key(self, namespace: str, name: str) -> str:
        return self._key_func(namespace + name, self._key_prefix, self._version)

    def session_key(self, session_key: str) -> str:
        return self.key(SESSION_NAMESPACE, session_key)

    def user_index_key(self, user_pk: str) -> str:
        return self.key(USER_INDEX_NAMESPACE, user_pk)

    def revoked_key(self, user_pk: str) -> str:
        return self.key(REVOKED_NAMESPACE, user_pk)


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
