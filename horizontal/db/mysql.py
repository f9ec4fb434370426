"""MySQL 8 / MariaDB 10.6+: no ``WHERE`` on upserts, no ``RETURNING`` on updates.

Django's MySQL backend sets ``CLIENT_FOUND_ROWS``, so an upsert's row count cannot tell
"inserted" from "left alone". Every conditional write here is therefore a plain
``UPDATE … WHERE <condition>`` (row count 1 iff the condition held) or a plain
``INSERT`` (a duplicate key means someone else has the row). New tokens come back in the
OK packet through ``token = LAST_INSERT_ID(token + 1)``: no extra round trip.

Fences lock only the ``(id, token)`` / ``(name, token)`` index entry, through the covering
unique index, never the row itself: a takeover changes the token, so it must modify that
entry and waits for the fence; a renewal changes only the expiry and, finding its row by
the primary key, never touches the entry (InnoDB has no key-share lock of its own, and
a plain share lock on the row would block the holder's own heartbeat). On MariaDB a fence
first sets ``idle_transaction_timeout`` to the TTL, then locks, so a holder paused anywhere
inside its fenced transaction loses its connection, and its lock, when its claim runs out
(``mysql_session.py`` sets that, and MySQL's session-wide lock wait, and puts both back).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Protocol, cast

from django.db import DatabaseError, IntegrityError

from horizontal.db.base import Dialect
from horizontal.db.mysql_session import bound_idle_transaction, session_lock_wait
from horizontal.db.shared import (
    ACQUIRE_LOCK_WAIT,
    ROW_LOCK_WAIT,
    RUNNING,
    Claim,
    ClaimRequest,
    Cursor,
    overlap_lock_name,
    scalar,
)

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

# ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT
_RETRYABLE_ERRNOS = {1213, 1205}
# ER_LOCK_NOWAIT (MySQL 3572, MariaDB 1205 with NOWAIT reports lock wait timeout)
_NOWAIT_ERRNOS = {3572, 1205}
# ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout expired
_LOCK_TIMEOUT_ERRNO = 1205
# Statements that find a row by its primary key and must not lock the (id, token) entry a
# fence holds: without the hint InnoDB may pick the unique (id, token) index.
_JOBRUN_BY_ID = "horizontal_jobrun FORCE INDEX (PRIMARY)"
_LEASE_BY_NAME = "horizontal_lease FORCE INDEX (PRIMARY)"
# Binary NO PAD collations: MariaDB's utf8mb4_nopad_bin (and other charsets' nopad_bin),
# MySQL 8's utf8mb4_0900_bin. Every other collation folds something or pads.
_BYTE_EXACT_SUFFIXES = ("_nopad_bin", "_0900_bin")
# Lock rows share the lease table: lease names may not start with this (leases.py).
XACT_LOCK_PREFIX = "xact:"


def _errno(exc: DatabaseError) -> int | None:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else None


class _MySQLCursor(Cursor, Protocol):
    """Django's cursor on MySQL: ``lastrowid`` carries ``LAST_INSERT_ID()`` back."""

    lastrowid: int
    db: BaseDatabaseWrapper

    def fetchall(self) -> Sequence[Sequence[Any]]: ...


def _last_insert_id(cursor: Cursor) -> int:
    """The id the OK packet of the last INSERT, or of ``LAST_INSERT_ID(expr)``, carried."""
    return int(cast(_MySQLCursor, cursor).lastrowid)


class MySQLDialect(Dialect):
    vendor = "mysql"
    # UTC_TIMESTAMP, not NOW(): NOW() is in the session time zone, Django stores UTC.
    # (6): microseconds; DATETIME(0) would round to whole seconds.
    NOW = "UTC_TIMESTAMP(6)"
    SHARE_LOCK = "LOCK IN SHARE MODE"

    def later(self) -> str:
        return "(UTC_TIMESTAMP(6) + INTERVAL (%s * 1000) MICROSECOND)"

    def is_retryable(self, exc: DatabaseError) -> bool:
        return _errno(exc) in _RETRYABLE_ERRNOS

    def is_lock_timeout(self, exc: BaseException) -> bool:
        return _errno(cast(DatabaseError, exc)) == _LOCK_TIMEOUT_ERRNO

    def execute_bounded(
        self, cursor: Cursor, sql: str, params: Sequence[Any], wait: float = ROW_LOCK_WAIT
    ) -> None:
        seconds = math.ceil(wait)  # whole seconds only
        if cast(Any, cast(_MySQLCursor, cursor).db).mysql_is_mariadb:
            # For this one statement: nothing stays on the session. MariaDB takes 0 (no
            # wait at all).
            super().execute_bounded(
                cursor,
                f"SET STATEMENT innodb_lock_wait_timeout = {seconds:d} FOR {sql}",
                params,
                wait,
            )
            return
        wait = max(1, seconds)  # MySQL's smallest
        # MySQL has no per-statement form for it: set it on the session and put it back.
        with session_lock_wait(cursor, wait):
            super().execute_bounded(cursor, sql, params, wait)

    # -- fences and renewals (see the module docstring) --------------------------------

    def lease_is_held(self, cursor: Cursor, name: str, token: int, bound_ms: int) -> bool:
        # The idle bound first: a holder frozen right after taking the lock (SIGSTOP, a
        # stopped VM) must not keep it past its claim. PostgreSQL sets both in one statement.
        bound_idle_transaction(cursor, cast(_MySQLCursor, cursor).db, bound_ms)
        cursor.execute(
            "SELECT name FROM horizontal_lease FORCE INDEX (horizontal_lease_name_token)"
            " WHERE name = %s AND token = %s LOCK IN SHARE MODE",
            [name, token],
        )
        if cursor.fetchone() is None:
            return False
        # The token cannot change now; the expiry is read without a lock.
        cursor.execute(
            f"SELECT 1 FROM horizontal_lease WHERE name = %s AND token = %s"
            f" AND expires_at > {self.NOW}",
            [name, token],
        )
        return cursor.fetchone() is not None

    def run_is_held(self, cursor: Cursor, run_id: int, token: int, bound_ms: int) -> bool:
        bound_idle_transaction(cursor, cast(_MySQLCursor, cursor).db, bound_ms)  # as above
        cursor.execute(
            "SELECT id FROM horizontal_jobrun FORCE INDEX (horizontal_jobrun_id_token)"
            " WHERE id = %s AND token = %s LOCK IN SHARE MODE",
            [run_id, token],
        )
        if cursor.fetchone() is None:
            return False
        cursor.execute(
            f"SELECT 1 FROM horizontal_jobrun WHERE id = %s AND token = %s"
            f" AND status = '{RUNNING}' AND expires_at > {self.NOW}",
            [run_id, token],
        )
        return cursor.fetchone() is not None

    def renew_run(self, cursor: Cursor, run_id: int, token: int, ttl_ms: int) -> bool:
        cursor.execute(
            f"""
            UPDATE {_JOBRUN_BY_ID} SET heartbeat_at = {self.NOW}, expires_at = {self.later()}
            WHERE id = %s AND token = %s AND status = '{RUNNING}' AND expires_at > {self.NOW}
            """,
            [ttl_ms, run_id, token],
        )
        return bool(cursor.rowcount == 1)

    # finish_run and expire_run (the base's) find the run by its primary key.
    _JOBRUN_BY_ID = _JOBRUN_BY_ID

    def renew_lease(self, cursor: Cursor, name: str, owner: str, token: int, ttl_ms: int) -> bool:
        cursor.execute(
            f"""
            UPDATE {_LEASE_BY_NAME} SET expires_at = {self.later()}
            WHERE name = %s AND owner = %s AND token = %s AND expires_at > {self.NOW}
            """,
            [ttl_ms, name, owner, token],
        )
        return bool(cursor.rowcount == 1)

    def release_lease(self, cursor: Cursor, name: str, owner: str, token: int) -> bool:
        cursor.execute(
            f"""
            UPDATE {_LEASE_BY_NAME} SET expires_at = {self.NOW}
            WHERE name = %s AND owner = %s AND token = %s AND expires_at > {self.NOW}
            """,
            [name, owner, token],
        )
        return bool(cursor.rowcount == 1)

    def acquire_lease(self, cursor: Cursor, name: str, owner: str, ttl_ms: int) -> int | None:
        # Bounded: a locked row (a holder inside a fenced transaction, another acquire in
        # flight) answers "held" at once on MariaDB (ACQUIRE_LOCK_WAIT), within 1 s on MySQL.
        self.execute_bounded(
            cursor,
            f"""
            UPDATE horizontal_lease SET owner = %s, token = LAST_INSERT_ID(token + 1),
                expires_at = {self.later()}, acquired_at = {self.NOW}
            WHERE name = %s AND expires_at <= {self.NOW}
            """,
            [owner, ttl_ms, name],
            wait=ACQUIRE_LOCK_WAIT,
        )
        if cursor.rowcount == 1:
            return _last_insert_id(cursor)
        # Held by someone: say so with a plain read. An INSERT here would take a shared
        # lock on the duplicate key, which queues behind (and deadlocks with) the
        # holders' UPDATEs under contention.
        cursor.execute("SELECT 1 FROM horizontal_lease WHERE name = %s", [name])
        if cursor.fetchone() is not None:
            return None
        try:
            cursor.execute(
                f"""
                INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)
                VALUES (%s, %s, 1, {self.later()}, {self.NOW})
                """,
                [name, owner, ttl_ms],
            )
        except IntegrityError:
            return None  # the row exists and is held
        return 1

    def claim_slot(self, cursor: Cursor, request: ClaimRequest) -> Claim | None:
        job, slot = request.job, request.slot
        if request.skip_if_overlapping:
            # The job's lock row first (in the caller's transaction), so that claims of
            # one job take turns: the read below and the INSERT are separate statements.
            # One upsert creates the row or locks it (exclusive, until COMMIT): no
            # locking read of a row that may not exist yet, whose gap lock would block
            # its creation under REPEATABLE READ. The read after it is a plain one: under
            # READ COMMITTED it sees every claim committed before ours, and under
            # REPEATABLE READ it is the transaction's first consistent read, which is
            # when InnoDB takes the snapshot.
            cursor.execute(
                "INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)"
                f" VALUES (%s, '', 0, {self.NOW}, {self.NOW})"
                " ON DUPLICATE KEY UPDATE owner = owner",
                [f"{XACT_LOCK_PREFIX}{overlap_lock_name(job)}"],
            )
            cursor.execute(
                f"SELECT 1 FROM horizontal_jobrun AS other WHERE other.job = %s AND"
                f" other.slot <> %s AND other.status = '{RUNNING}'"
                f" AND other.expires_at > {self.NOW} LIMIT 1",
                [job, slot],
            )
            if cursor.fetchone() is not None:
                return None
        try:
            cursor.execute(
                f"""
                INSERT INTO horizontal_jobrun (job, slot, status, owner, token, attempt,
                    triggered_by, claimed_at, heartbeat_at, expires_at, finished_at, error)
                VALUES (%s, %s, '{RUNNING}', %s, 1, 1, %s, {self.NOW}, {self.NOW},
                    {self.later()}, NULL, '')
                """,
                [job, slot, request.owner, request.trigger, request.ttl_ms],
            )
        except IntegrityError:
            pass
        else:
            claim = Claim(_last_insert_id(cursor), 1, 1)
            self.record_attempt(cursor, request, claim)
            return claim
        # Bounded: a run inside a fenced transaction answers "held" within ROW_LOCK_WAIT.
        self.execute_bounded(
            cursor,
            f"""
            UPDATE horizontal_jobrun SET status = '{RUNNING}', owner = %s,
                token = LAST_INSERT_ID(token + 1), attempt = attempt + 1, triggered_by = %s,
                claimed_at = {self.NOW}, heartbeat_at = {self.NOW}, expires_at = {self.later()},
                finished_at = NULL, error = ''
            WHERE job = %s AND slot = %s
              AND ({self._takeover_condition(request)})
            """,
            [request.owner, request.trigger, request.ttl_ms, job, slot],
        )
        if cursor.rowcount != 1:
            return None
        token = _last_insert_id(cursor)
        cursor.execute(
            "SELECT id, attempt FROM horizontal_jobrun WHERE job = %s AND slot = %s", [job, slot]
        )
        row = cursor.fetchone()
        assert row is not None, "the row just updated is gone"
        run_id, attempt = row
        claim = Claim(int(run_id), token, int(attempt))
        self.record_attempt(cursor, request, claim)
        return claim

    def record_slots(
        self,
        cursor: Cursor,
        *,
        job: str,
        slots: Sequence[tuple[str, str]],
        status: str,
        owner: str,
    ) -> None:
        # No ON CONFLICT DO NOTHING: leave out the slots that have a row, insert the rest
        # in one statement. (ON DUPLICATE KEY UPDATE would take an exclusive lock on a
        # running row, and wait behind its effect transaction's shared one.)
        if not slots:
            return
        wanted = dict(slots)
        cursor.execute(
            "SELECT slot FROM horizontal_jobrun WHERE job = %s AND slot IN"
            f" ({', '.join(['%s'] * len(wanted))})",
            [job, *wanted],
        )
        for (existing,) in cast(_MySQLCursor, cursor).fetchall():
            wanted.pop(existing, None)
        row = (
            f"(%s, %s, %s, %s, 0, 0, 'schedule', {self.NOW}, {self.NOW}, {self.NOW},"
            f" {self.NOW}, %s)"
        )

        def insert(batch: list[tuple[str, str]]) -> None:
            params: list[Any] = []
            for slot, note in batch:
                params += [job, slot, status, owner, note]
            cursor.execute(
                "INSERT INTO horizontal_jobrun (job, slot, status, owner, token, attempt,"
                " triggered_by, claimed_at, heartbeat_at, expires_at, finished_at, error)"
                f" VALUES {', '.join([row] * len(batch))}",
                params,
            )

        try:
            insert(list(wanted.items()))
        except IntegrityError:
            # A slot got a row meanwhile, which says more than ours would: one by one.
            for item in wanted.items():
                with suppress(IntegrityError):
                    insert([item])

    def insert_effect(self, cursor: Cursor, key: str, run_id: int, token: int) -> bool:
        # No ON CONFLICT DO NOTHING, and INSERT IGNORE would turn unrelated errors into
        # warnings: a savepoint lets a duplicate fail without aborting the caller's work.
        cursor.execute("SAVEPOINT horizontal_effect", [])
        try:
            cursor.execute(
                f"INSERT INTO horizontal_effect (`key`, job_run_id, token, created_at)"
                f" VALUES (%s, %s, %s, {self.NOW})",
                [key, run_id, token],
            )
        except IntegrityError:
            cursor.execute("ROLLBACK TO SAVEPOINT horizontal_effect", [])
            return False
        cursor.execute("RELEASE SAVEPOINT horizontal_effect", [])
        return True

    def _takeover_condition(self, request: ClaimRequest) -> str:
        # MySQL's UPDATE here has no table alias to qualify with; the columns are unambiguous.
        condition = super()._takeover_condition(request)
        return condition.replace("horizontal_jobrun.", "")

    def connection_limit(self, cursor: Cursor) -> int | None:
        cursor.execute("SELECT @@max_connections", [])
        return int(scalar(cursor))

    def xact_lock(self, cursor: Cursor, name: str, nowait: bool) -> bool:
        # GET_LOCK is session-scoped and survives COMMIT: on a persistent connection a missed
        # release leaks it. A row lock on a lease-table row ends with the transaction.
        key = f"{XACT_LOCK_PREFIX}{name}"
        locked = self._lock_row(cursor, key, nowait)
        if locked is not None:
            return locked
        connection = cast(_MySQLCursor, cursor).db
        if _gap_locking(connection):
            # REPEATABLE READ: the locking read of the missing row took a gap lock, which
            # the row's INSERT on another connection would wait on while we wait for it.
            if not _opened_by_xact_lock(connection):
                # Inside the caller's transaction: our own gap lock lets our own INSERT
                # through. (Two first uses of one name at the same instant may end one
                # of them with a deadlock, 1213; a name used once never does.)
                return self._create_lock_row_here(cursor, key, nowait)
            # Our transaction holds nothing but that gap lock: end it, and begin again
            # once the row exists (the next statement opens the next transaction).
            cursor.execute("ROLLBACK", [])
        self._create_lock_row(connection, key)
        locked = self._lock_row(cursor, key, nowait)
        if locked is None:
            raise DatabaseError(f"could not create or lock the lock row {key!r}")
        return locked

    def _create_lock_row_here(self, cursor: Cursor, key: str, nowait: bool) -> bool:
        """Create the lock's row in the caller's transaction, which then holds it."""
        cursor.execute("SAVEPOINT horizontal_lock_row", [])
        try:
            cursor.execute(
                "INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)"
                f" VALUES (%s, '', 0, {self.NOW}, {self.NOW})",
                [key],
            )
        except IntegrityError:
            # Created and committed by another session since our read: lock it.
            cursor.execute("ROLLBACK TO SAVEPOINT horizontal_lock_row", [])
            locked = self._lock_row(cursor, key, nowait)
            if locked is None:
                raise DatabaseError(f"could not create or lock the lock row {key!r}") from None
            return locked
        cursor.execute("RELEASE SAVEPOINT horizontal_lock_row", [])
        return True

    def _create_lock_row(self, connection: BaseDatabaseWrapper, key: str) -> None:
        """Create a lock's row once, committed at once, on a connection of its own.

        Not in the caller's transaction: if that rolled back, its insert would vanish,
        and the sessions queued behind it on the duplicate key would each hold a shared
        lock and want an exclusive one: a deadlock (1213) for all but one of them.
        """
        creator = connection.copy()  # same settings, a new connection, autocommit
        try:
            # A duplicate means another session created it first: that is the point.
            with creator.cursor() as cursor, suppress(IntegrityError):
                cursor.execute(
                    "INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)"
                    f" VALUES (%s, '', 0, {self.NOW}, {self.NOW})",
                    [key],
                )
        finally:
            creator.close()

    def _lock_row(self, cursor: Cursor, key: str, nowait: bool) -> bool | None:
        """True if locked, False if busy (nowait), None if the row does not exist."""
        suffix = " NOWAIT" if nowait else ""
        try:
            cursor.execute(
                f"SELECT name FROM horizontal_lease WHERE name = %s FOR UPDATE{suffix}", [key]
            )
        except DatabaseError as exc:
            if nowait and _errno(exc) in _NOWAIT_ERRNOS:
                return False
            raise
        return True if cursor.fetchone() is not None else None

    def held_lock_count(self, cursor: Cursor) -> int:
        # Row locks of ours are visible only through InnoDB's lock views; count open
        # transactions of other sessions on this database (not the whole server) that
        # hold or created rows instead. InnoDB refreshes this view only when it was not
        # read in the last 0.1 s, so a lock taken or released just now may not show yet.
        cursor.execute(
            "SELECT count(*) FROM information_schema.innodb_trx t"
            " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
            " WHERE t.trx_mysql_thread_id <> CONNECTION_ID() AND p.db = DATABASE()"
            " AND (t.trx_rows_locked > 0 OR t.trx_rows_modified > 0)",
            [],
        )
        return int(scalar(cursor))

    def exact_text_collation(self, connection: BaseDatabaseWrapper) -> str | None:
        # The server default (utf8mb4_general_ci, or MySQL 8's utf8mb4_0900_ai_ci) folds
        # case and accents, and PAD SPACE collations, utf8mb4_bin included, ignore
        # trailing spaces. Only a binary NO PAD collation compares byte for byte.
        mysql = cast(Any, connection)
        if mysql.mysql_is_mariadb:
            return "utf8mb4_nopad_bin"
        # MySQL before 8.0.17 has no binary NO PAD collation: utf8mb4_bin is the nearest,
        # and the database check (W036) says what it still ignores.
        return "utf8mb4_0900_bin" if mysql.mysql_version >= (8, 0, 17) else "utf8mb4_bin"

    def inexact_text_columns(
        self, cursor: Cursor, columns: Sequence[tuple[str, str]]
    ) -> list[tuple[str, str, str]]:
        if not columns:
            return []
        pairs = ", ".join(["(%s, %s)"] * len(columns))
        cursor.execute(
            "SELECT TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
            f" WHERE TABLE_SCHEMA = DATABASE() AND (TABLE_NAME, COLUMN_NAME) IN ({pairs})"
            " ORDER BY TABLE_NAME, COLUMN_NAME",
            [name for pair in columns for name in pair],
        )
        found = []
        while (row := cursor.fetchone()) is not None:
            table, column, collation = (str(value) if value is not None else None for value in row)
            if not _is_byte_exact(collation):
                found.append((str(table), str(column), str(collation)))
        return found


def _gap_locking(connection: BaseDatabaseWrapper) -> bool:
    """Whether a locking read of a missing row locks the gap (REPEATABLE READ and above).

    Django's MySQL backend sets READ COMMITTED unless ``OPTIONS["isolation_level"]``
    says otherwise; a falsy level keeps the server's default, which may be either.
    """
    level = getattr(connection, "isolation_level", None)
    return level not in ("read committed", "read uncommitted")


def _opened_by_xact_lock(connection: BaseDatabaseWrapper) -> bool:
    """The transaction is xact_lock's own (one atomic block, nothing done in it yet)."""
    blocks = cast(Any, connection).atomic_blocks
    return len(blocks) == 1 and not connection.savepoint_ids


def _is_byte_exact(collation: str | None) -> bool:
    """Binary NO PAD collations, and binary strings (no collation): byte for byte."""
    if collation is None or collation == "binary":
        return True
    return collation.endswith(_BYTE_EXACT_SUFFIXES)
