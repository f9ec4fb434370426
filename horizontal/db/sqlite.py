"""SQLite (3.35+ for RETURNING): one writer at a time, millisecond ``'now'``.

SQLite has no row or advisory locks: the write lock is the whole database. A write
statement takes it at once, so guards here are no-op writes, which hold the write lock
until the transaction ends (a plain read would let another writer in first and then fail
our upgrade with SQLITE_BUSY without waiting for the busy timeout).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from django.db import DatabaseError

from horizontal.db.base import Dialect
from horizontal.db.shared import RUNNING, Cursor, scalar

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

# Django stores datetimes as 'YYYY-MM-DD HH:MM:SS.ffffff' text; this has the same shape
# (milliseconds), so comparisons with stored values are plain text comparisons.
_NOW = "strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now')"


class SQLiteDialect(Dialect):
    vendor = "sqlite"
    NOW = _NOW

    def later(self) -> str:
        return "strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now', '+' || (%s / 1000.0) || ' seconds')"

    def acquire_lease(self, cursor: Cursor, name: str, owner: str, ttl_ms: int) -> int | None:
        # SQLite's counterpart of ACQUIRE_LOCK_WAIT = 0: it has no row lock, only the
        # file's write lock, and a contender queued behind it (busy_timeout) is what made
        # the tail under contention (RELIABILITY.md F18). A lease held and unexpired is
        # answered by a read, which in WAL mode never waits for a writer; a free one is
        # written without waiting, and a writer already in answers "held": most likely it
        # is another contender taking this lease (a caller that must have it retries).
        cursor.execute(
            f"SELECT 1 FROM horizontal_lease WHERE name = %s AND expires_at > {self.NOW}",
            [name],
        )
        if cursor.fetchone() is not None:
            return None
        cursor.execute("PRAGMA busy_timeout", [])
        previous = int(scalar(cursor))
        cursor.execute("PRAGMA busy_timeout = 0", [])
        try:
            return super().acquire_lease(cursor, name, owner, ttl_ms)
        except DatabaseError as exc:
            if self.is_busy(exc):
                return None
            raise
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {previous:d}", [])

    def is_retryable(self, exc: DatabaseError) -> bool:
        return "database is locked" in str(exc) or "database table is locked" in str(exc)

    def lease_is_held(self, cursor: Cursor, name: str, token: int, bound_ms: int) -> bool:
        # The write lock is the whole database: the holder's own heartbeat waits for it too
        # (busy_timeout), and no server can end a paused holder's transaction.
        cursor.execute(
            f"""
            UPDATE horizontal_lease SET owner = owner
            WHERE name = %s AND token = %s AND expires_at > {self.NOW}
            """,
            [name, token],
        )
        return bool(cursor.rowcount == 1)

    def run_is_held(self, cursor: Cursor, run_id: int, token: int, bound_ms: int) -> bool:
        cursor.execute(
            f"""
            UPDATE horizontal_jobrun SET owner = owner
            WHERE id = %s AND token = %s AND status = '{RUNNING}' AND expires_at > {self.NOW}
            """,
            [run_id, token],
        )
        return bool(cursor.rowcount == 1)

    def is_busy(self, exc: DatabaseError) -> bool:
        return self.is_retryable(exc)

    @contextmanager
    def no_lock_wait(self, connection: BaseDatabaseWrapper) -> Iterator[None]:
        # With transaction_mode IMMEDIATE the BEGIN itself takes the write lock, so the
        # busy timeout has to be off before the transaction starts, not just around our
        # statement.
        connection.ensure_connection()
        raw = connection.connection
        previous = int(raw.execute("PRAGMA busy_timeout").fetchone()[0])
        raw.execute("PRAGMA busy_timeout = 0")
        try:
            yield
        finally:
            raw.execute(f"PRAGMA busy_timeout = {previous:d}")

    def xact_lock(self, cursor: Cursor, name: str, nowait: bool) -> bool:
        # Any write takes the database's single write lock until COMMIT/ROLLBACK. (With
        # nowait, the caller has turned the busy timeout off around this.)
        try:
            cursor.execute(
                f"""
                INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)
                VALUES (%s, '', 0, {self.NOW}, {self.NOW})
                ON CONFLICT (name) DO UPDATE SET owner = horizontal_lease.owner
                """,
                [f"xact:{name}"],
            )
        except DatabaseError as exc:
            if nowait and self.is_busy(exc):
                return False
            raise
        return True

    def held_lock_count(self, cursor: Cursor) -> int:
        # A lock can only live inside an open transaction of a live connection; SQLite
        # cannot see other connections' transactions, so this is always zero from here.
        return 0
