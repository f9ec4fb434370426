"""The store's commands on ``redis.asyncio``: one client per event loop.

``AsyncClients`` keeps one ``AsyncSessionRedis`` per running loop for a sync client's
pool (``SessionRedis.asession``), built with that pool's settings (``async_pool_kwargs``),
or none when the pool has no faithful asyncio counterpart: the store then runs the sync
path in a worker thread.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

from horizontal.sessions.redis_common import (
    DELETE_INDEXED,
    END_USER_SESSIONS,
    LOAD,
    LOAD_SHA,
    MOVE_FROM_FALLBACK,
    SAVE_INDEXED,
    NoScriptError,
    ResponseError,
)

__all__ = ["AsyncClients", "AsyncSessionRedis", "async_pool_kwargs"]


class AsyncClients:
    """One ``AsyncSessionRedis`` per event loop, with the settings of one redis-py pool.

    A redis.asyncio connection belongs to the loop it was opened on and must not be used
    from another (``async_to_sync`` runs each call on a new loop; ASGI servers run one
    loop per worker, sometimes per thread).
    """

    def __init__(self, pool: Any) -> None:
        self._kwargs = async_pool_kwargs(pool)
        self._by_loop: dict[asyncio.AbstractEventLoop, AsyncSessionRedis] = {}
        self._lock = threading.Lock()

    def for_running_loop(self) -> AsyncSessionRedis | None:
        """The running loop's client; None when the pool has no asyncio counterpart."""
        loop = asyncio.get_running_loop()
        side = self._by_loop.get(loop)
        if side is not None:
            return side
        if self._kwargs is None:
            return None
        with self._lock:
            # Loops that ended take their clients with them: their sockets are closed
            # with the loop's transports, and nothing may await them any more.
            for old in [old for old in self._by_loop if old.is_closed()]:
                del self._by_loop[old]
            side = self._by_loop.get(loop)
            if side is None:
                side = AsyncSessionRedis(self._kwargs)
                self._by_loop[loop] = side
            return side


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
