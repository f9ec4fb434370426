"""The session store behind ``SESSION_ENGINE = "horizontal.sessions"``: sessions in
Redis that every instance sees, and what the store does when Redis fails.

Built on the django-redis cache named by ``SESSION_CACHE_ALIAS`` and on Django's
``SessionBase`` contract, with four differences from Django's cache engine:

- A store error is not a missing session. It raises ``SessionStoreUnavailable``
  (``HORIZONTAL_SESSION_FAILURE = "closed"``: the middleware answers 503) or, when
  ``"open"``, the request goes on without the session, the cookie is kept and
  nothing is written. Django's cache engine logs the user out instead.
- One round trip per load (a script: ``GET``, plus ``SISMEMBER`` on the user index
  for a user's session) and one ``SET`` (with its TTL) per save: the "does it still
  exist" test is ``SET … XX``, not a GET before the SET.
- A per-user index in Redis, kept by the saves (``write_plan`` decides what a save
  sends), so ``end_user_sessions(user)`` (``revocation``) ends every session of a user
  on every instance. The index is also what makes a user's session valid: the load
  serves it only while the index holds it, so an index that Redis evicted takes its
  sessions with it instead of hiding them from a revocation.
- ``HORIZONTAL_SESSION_FALLBACK_ENGINE``: a session found only in the old engine is
  moved into Redis on first read, so switching engines logs no one out.

See docs/sessions.md.
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.base import (
    VALID_KEY_CHARS,
    CreateError,
    SessionBase,
    UpdateError,
)
from django.core.exceptions import ImproperlyConfigured
from django.utils.crypto import get_random_string

from horizontal import signals
from horizontal.conf import conf
from horizontal.logs import RateLimitedLog
from horizontal.sessions.failures import SessionStoreUnavailable, failure_policy
from horizontal.sessions.names import ENGINE, ENGINE_MODULES, FAILURE_POLICIES
from horizontal.sessions.redis import (
    CorruptSession,
    SessionCodec,
    SessionRedis,
    pack,
    session_redis,
    unpack,
)
from horizontal.sessions.redis_async import AsyncSessionRedis
from horizontal.sessions.redis_common import RedisError
from horizontal.sessions.write_plan import (
    DELETE,
    SET,
    LoadedIndex,
    WritePlan,
    user_index,
    write_plan,
)

__all__ = [
    "ENGINE",
    "FAILURE_POLICIES",
    "SessionStore",
    "SessionStoreUnavailable",
    "failure_policy",
]


logger = logging.getLogger("horizontal.sessions")
# Where Django's own backends report tampered or corrupt session data.
security_logger = logging.getLogger("django.security.SuspiciousSession")

# redis-py raises its own errors, but a socket timeout can also surface as the
# builtin TimeoutError (an OSError).
STORE_ERRORS = (RedisError, OSError)

# How often, at most, one process logs that the store is failing.
FAILURE_LOG_INTERVAL = 10.0
# Session keys are 32 random characters from 36; a collision is a broken RNG, and a
# bounded loop turns that into an error instead of a spin.
CREATE_ATTEMPTS = 10


class StoreFailureLog(RateLimitedLog):
    """The store failures of one process, logged at most once per interval."""

    def failure(self, action: str, error: BaseException) -> None:
        signals.send(
            signals.session_store_unavailable,
            SessionStore,
            operation=action,
            error=error,
            policy=conf.SESSION_FAILURE,
        )
        self.log(
            "Session store unavailable (%s, policy %r): %s: %s",
            action,
            failure_policy(),
            type(error).__name__,
            error,
        )


failure_log = StoreFailureLog(logger, logging.ERROR, FAILURE_LOG_INTERVAL)


def store_redis() -> SessionRedis:
    """The session cache's Redis side (``SESSION_CACHE_ALIAS``)."""
    return session_redis(settings.SESSION_CACHE_ALIAS)


class SessionStore(SessionBase):
    """Redis session store; see the module docstring."""

    # A property of SessionBase (validated on assignment); annotated for mypy only.
    _session_key: str | None

    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._redis = store_redis()
        self._codec = SessionCodec(self.serializer)
        # What the stored value said about the user index when it was loaded.
        self._indexed_user: str | None = None
        self._index_key = b""
        self._index_until = 0
        # Set when an operation failed; the middleware reads it.
        self.store_error: BaseException | None = None
        # The middleware's async path saved already: what save() reports instead.
        self._saved_async: list[BaseException | None] = []

    # -- keys -------------------------------------------------------------------

    def _get_new_session_key(self) -> str:
        # No EXISTS round trip: SET NX in save(must_create=True) is the uniqueness test.
        key: str = get_random_string(32, VALID_KEY_CHARS)
        return key

    async def _aget_new_session_key(self) -> str:
        return self._get_new_session_key()

    # -- load -------------------------------------------------------------------

    def load(self) -> dict[str, Any]:
        session_key = self.session_key
        if session_key is None:
            return {}
        try:
            raw = self._redis.load(self._redis.session_key(session_key))
        except STORE_ERRORS as error:
            return self._load_failed(error)
        if raw is None and conf.SESSION_FALLBACK_ENGINE:
            return self._load_from_fallback(session_key)
        return self._loaded(raw)

    async def aload(self) -> dict[str, Any]:
        side = self._redis.asession()
        if side is None:
            # No redis.asyncio counterpart for this pool: the sync path, in a thread.
            thread_sensitive = bool(conf.SESSION_FALLBACK_ENGINE)
            return await sync_to_async(self.load, thread_sensitive=thread_sensitive)()
        session_key = self.session_key
        if session_key is None:
            return {}
        try:
            raw = await side.load(self._redis.session_key(session_key))
        except STORE_ERRORS as error:
            return self._load_failed(error)
        if raw is None and conf.SESSION_FALLBACK_ENGINE:
            # The fallback engine may be the database, which needs the sync thread.
            return await sync_to_async(self._load_from_fallback, thread_sensitive=True)(session_key)
        return self._loaded(raw)

    def _loaded(self, raw: bytes | str | int | None) -> dict[str, Any]:
        """The session the load script answered, sync or async alike."""
        if isinstance(raw, int):
            # UNVOUCHED: its user index no longer holds it (ended everywhere, or the
            # index was evicted). Gone, and not to be looked for in the fallback engine.
            self._session_key = None
            return {}
        if raw is not None:
            return self._decode_stored(raw)
        self._session_key = None
        return {}

    def _load_failed(self, error: BaseException) -> dict[str, Any]:
        self.store_error = error
        if failure_policy() == "closed":
            raise SessionStoreUnavailable(f"cannot read the session: {error}") from error
        # Open: go on without the session, but keep its key so that the cookie
        # survives and nothing overwrites the stored session (save() refuses).
        failure_log.failure("load", error)
        return {}

    def _decode_stored(self, raw: bytes | str) -> dict[str, Any]:
        try:
            stored = unpack(raw)
            data = self._codec.loads(stored.payload)
            if not isinstance(data, dict):
                raise CorruptSession("not a mapping")
            user = data.get(SESSION_KEY)
            # The load script served it as a member of the index it names; a user's
            # session counts only if that is the user's own index, the one
            # end_user_sessions empties.
            if user is not None and stored.index_key != self._user_index_key(str(user)):
                raise CorruptSession("not in its user's index")
        except Exception:
            # Same outcome as Django's own backends: an empty session and a line on
            # the django.security logger, never a 500.
            security_logger.warning("Session data corrupted")
            return {}
        if stored.index_until and stored.index_key:
            self._indexed_user = user
            self._index_key = stored.index_key
            self._index_until = stored.index_until
        return data

    def _user_index_key(self, user: str) -> bytes:
        return self._redis.user_index_key(user).encode()

    # -- save -------------------------------------------------------------------

    def save(self, must_create: bool = False) -> None:
        if self._saved_async:
            # This save was made by asave() in the middleware's async path; Django's
            # process_response, which calls save(), gets its outcome.
            error = self._saved_async.pop()
            if error is not None:
                raise error
            return None
        if self.session_key is None:
            return self.create()
        if self.store_error is not None:
            # Open policy after a failed load: what we hold is not the stored session.
            raise SessionStoreUnavailable("not saved: the session could not be loaded")
        data = self._get_session(no_load=must_create)  # type: ignore[attr-defined]  # Django's, unstubbed
        if not self._write(data, self._ttl(data), must_create):
            raise CreateError if must_create else UpdateError

    async def asave(self, must_create: bool = False) -> None:
        side = self._redis.asession()
        if side is None:
            return await sync_to_async(self.save, thread_sensitive=False)(must_create)
        if self.session_key is None:
            return await self.acreate()
        if self.store_error is not None:
            raise SessionStoreUnavailable("not saved: the session could not be loaded")
        data = await self._aget_session(no_load=must_create)  # type: ignore[attr-defined]  # Django's, unstubbed
        if not await self._awrite(side, data, self._ttl(data), must_create):
            raise CreateError if must_create else UpdateError

    async def asave_for_response(self) -> None:
        """The middleware's async path: ``asave()`` now, and the next ``save()`` (Django's
        process_response) reports its outcome instead of writing again."""
        await self._aget_session()  # type: ignore[attr-defined]  # Django's, unstubbed
        try:
            await self.asave()
        except (UpdateError, SessionStoreUnavailable) as error:
            self._saved_async.append(error)
        else:
            self._saved_async.append(None)

    def _ttl(self, data: dict[str, Any]) -> int:
        # get_expiry_age() reads the clock even when there is no custom expiry;
        # most sessions have none, and this runs on every save. (The session is
        # loaded by now: no I/O, async callers included.)
        if not data.get("_session_expiry"):
            return int(self.get_session_cookie_age())
        return int(self.get_expiry_age())

    def _write(self, data: dict[str, Any], ttl: int, must_create: bool) -> bool:
        """One SET (or one script call): whether it wrote."""
        plan = self._write_plan(data, ttl, must_create)
        try:
            if plan.kind == DELETE:
                # Already expired (a past expiry date): what is left is to forget it.
                self._redis.client.delete(plan.key)
                return True
            if plan.kind == SET:
                return self._redis.set(plan.key, plan.value, ttl, create=plan.create)
            if not self._redis.save_indexed(keys=plan.keys, args=plan.args):
                return False
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot write the session: {error}") from error
        self._remember_index(*plan.remember)
        return True

    async def _awrite(
        self, side: AsyncSessionRedis, data: dict[str, Any], ttl: int, must_create: bool
    ) -> bool:
        """``_write`` on redis.asyncio: the same commands, the same outcome."""
        plan = self._write_plan(data, ttl, must_create)
        try:
            if plan.kind == DELETE:
                await side.delete(plan.key)
                return True
            if plan.kind == SET:
                return await side.set(plan.key, plan.value, ttl, create=plan.create)
            if not await side.save_indexed(keys=plan.keys, args=plan.args):
                return False
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot write the session: {error}") from error
        self._remember_index(*plan.remember)
        return True

    def _write_plan(self, data: dict[str, Any], ttl: int, must_create: bool) -> WritePlan:
        """What a save sends: a DEL, a SET, or the indexing script (no I/O here)."""
        assert self.session_key is not None
        loaded = LoadedIndex(self._indexed_user, self._index_key, self._index_until)
        return write_plan(
            self._redis, self._codec, self.session_key, data, ttl, must_create, loaded
        )

    def _remember_index(self, user: str, index_key: str, index_until: int) -> None:
        self._indexed_user, self._index_key = user, index_key.encode()
        self._index_until = index_until

    # -- create, exists, delete -------------------------------------------------

    def create(self) -> None:
        for _ in range(CREATE_ATTEMPTS):
            self._session_key = self._get_new_session_key()
            try:
                self.save(must_create=True)
            except CreateError:
                continue
            self.modified = True
            return
        raise RuntimeError("Unable to create a new session key: every key tried exists.")

    async def acreate(self) -> None:
        if self._redis.asession() is None:
            return await sync_to_async(self.create, thread_sensitive=False)()
        for _ in range(CREATE_ATTEMPTS):
            self._session_key = await self._aget_new_session_key()
            try:
                await self.asave(must_create=True)
            except CreateError:
                continue
            self.modified = True
            return
        raise RuntimeError("Unable to create a new session key: every key tried exists.")

    def exists(self, session_key: str) -> bool:
        if not session_key:
            return False
        try:
            return bool(self._redis.client.exists(self._redis.session_key(session_key)))
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot read the session: {error}") from error

    async def aexists(self, session_key: str) -> bool:
        side = self._redis.asession()
        if side is None:
            return await sync_to_async(self.exists, thread_sensitive=False)(session_key)
        if not session_key:
            return False
        try:
            return await side.exists(self._redis.session_key(session_key))
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot read the session: {error}") from error

    def delete(self, session_key: str | None = None) -> None:
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        key = self._redis.session_key(session_key)
        try:
            if session_key == self.session_key and self._indexed_user is not None:
                index = self._redis.user_index_key(self._indexed_user)
                self._redis.delete_indexed(keys=[key, index])
            else:
                self._redis.client.delete(key)
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot delete the session: {error}") from error

    async def adelete(self, session_key: str | None = None) -> None:
        side = self._redis.asession()
        if side is None:
            return await sync_to_async(self.delete, thread_sensitive=False)(session_key)
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        key = self._redis.session_key(session_key)
        try:
            if session_key == self.session_key and self._indexed_user is not None:
                index = self._redis.user_index_key(self._indexed_user)
                await side.delete_indexed(keys=[key, index])
            else:
                await side.delete(key)
        except STORE_ERRORS as error:
            self.store_error = error
            raise SessionStoreUnavailable(f"cannot delete the session: {error}") from error

    @classmethod
    def clear_expired(cls) -> None:
        """Nothing to do: every session key carries its TTL and Redis expires it."""

    @classmethod
    async def aclear_expired(cls) -> None:
        """Nothing to do: every session key carries its TTL and Redis expires it."""

    # -- migration from the fallback engine -------------------------------------

    def _load_from_fallback(self, session_key: str) -> dict[str, Any]:
        """Move a session that only the old engine has into Redis, then return it."""
        old = _fallback_engine().SessionStore(session_key)
        data: dict[str, Any] = old.load()
        if not data:
            self._session_key = None
            return {}
        user = data.get(SESSION_KEY)
        ttl = int(old.get_expiry_age())
        try:
            if user is None:
                # Anonymous: nothing to revoke. NX: if another instance moved it
                # first, its copy is the same data.
                self._write(data, ttl, must_create=True)
                revoked = False
            else:
                revoked = not self._move_indexed(session_key, str(user), data, ttl)
        except STORE_ERRORS as error:
            return self._load_failed(error)
        except SessionStoreUnavailable as error:
            return self._load_failed(error.__cause__ or error)
        # Move, not copy: a copy left behind would come back after end_user_sessions.
        old.delete(session_key)
        if revoked:
            self._session_key = None
            return {}
        logger.info("Session moved from %s into Redis", conf.SESSION_FALLBACK_ENGINE)
        return data

    def _move_indexed(self, session_key: str, user: str, data: dict[str, Any], ttl: int) -> bool:
        """Write a user's session from the old engine into Redis, indexed, unless the
        user's sessions were ended during the migration: whether it may be served.

        The revocation test and the write are one script, so an ``end_user_sessions``
        running at the same moment either lands first (and the move is refused) or
        finds the moved session in the index (and ends it).
        """
        if ttl <= 0:
            return False
        index = user_index(self._redis, user, ttl)
        value = pack(index.until, index.key.encode(), self._codec.dumps(data))
        keys = [self._redis.session_key(session_key), index.key, self._redis.revoked_users_key()]
        moved = int(self._redis.move_from_fallback(keys=keys, args=[value, ttl, index.ttl, user]))
        if moved < 0:
            return False
        if moved:
            self._remember_index(user, index.key, index.until)
        # 0: another instance moved it first; its copy is the same data.
        return True


def _fallback_engine() -> Any:
    path = conf.SESSION_FALLBACK_ENGINE
    if path in ENGINE_MODULES:
        raise ImproperlyConfigured(
            "HORIZONTAL_SESSION_FALLBACK_ENGINE is the engine it falls back from; "
            "name the old engine, e.g. 'django.contrib.sessions.backends.db'."
        )
    try:
        return import_module(str(path))
    except ImportError as error:
        raise ImproperlyConfigured(
            f"HORIZONTAL_SESSION_FALLBACK_ENGINE {path!r} cannot be imported: {error}"
        ) from error
