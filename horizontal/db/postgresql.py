"""PostgreSQL: ``clock_timestamp()`` for time, advisory xact locks for critical sections.

Fences take ``FOR KEY SHARE``: the token is part of a unique key (``UNIQUE (id, token)``,
``UNIQUE (name, token)``), so a takeover, which changes the token, is a key update and
waits for the fence, while a renewal, which changes only the expiry, does not. A fence
also bounds how long its transaction may sit idle (``idle_in_transaction_session_timeout``,
``SET LOCAL``): a holder paused inside it loses its session, and its lock, after the TTL.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError

from horizontal.db.base import Dialect
from horizontal.db.shared import (
    ABANDONED,
    ATTEMPT_COLUMNS,
    ATTEMPT_VALUES,
    INTERRUPTED,
    RUNNING,
    Claim,
    ClaimRequest,
    Cursor,
    lock_key,
    overlap_lock_name,
    scalar,
)

if TYPE_CHECKING:
    import psycopg
    from django.db.backends.base.base import BaseDatabaseWrapper

# deadlock_detected, serialization_failure
_RETRYABLE_SQLSTATES = {"40P01", "40001"}
# lock_not_available: lock_timeout (or NOWAIT) expired
_LOCK_TIMEOUT_SQLSTATE = "55P03"
_UNIQUE_VIOLATION = "23505"
_QUERY_CANCELED = "57014"
# A fence's transaction may sit idle for the grant's TTL, or less if the session says so.
_IDLE_BOUND = (
    "set_config('idle_in_transaction_session_timeout', CASE WHEN"
    " idle.setting::bigint BETWEEN 1 AND %s::bigint THEN idle.setting ELSE %s::text END, true)"
)
_IDLE_SETTING = "pg_settings idle WHERE idle.name = 'idle_in_transaction_session_timeout'"


class PostgreSQLDialect(Dialect):
    vendor = "postgresql"
    # clock_timestamp(), not now(): now() is the start of the transaction, which inside a
    # long transaction (ATOMIC_REQUESTS, a test case) is already in the past.
    NOW = "clock_timestamp()"
    # Conflicts with key updates (a takeover's new token), not with a renewal's.
    SHARE_LOCK = "FOR KEY SHARE"
    # Data-modifying CTEs: the run row and its attempt row in one statement.
    GATE_IN_ONE_STATEMENT = True

    def later(self) -> str:
        return "(clock_timestamp() + %s * interval '1 millisecond')"

    @contextmanager
    def cursor(self, connection: BaseDatabaseWrapper) -> Iterator[Cursor]:
        """Django's cursor when something is watching queries, else a reused driver cursor.

        Creating a Django cursor per statement costs about as much as the statement itself
        on loopback (a psycopg cursor per call, adapters copied, wrappers). The lease and
        gate statements are tiny and hot (a heartbeat, every node every minute), so they
        reuse one server-side-binding cursor per connection, with Django's error
        translation. Debug logging, ``CaptureQueriesContext`` and ``execute_wrapper``
        instrumentation still see every statement because they get Django's cursor.
        Statements are prepared only when Django's own would be (see ``_driver_cursor``).
        """
        if connection.queries_logged or connection.execute_wrappers:
            with connection.cursor() as cursor:
                yield cursor
            return
        connection.ensure_connection()
        raw = connection.connection
        cached = getattr(connection, "_horizontal_cursor", None)
        if cached is None or cached[0] is not raw or cached[1].closed:
            cached = (raw, _driver_cursor(connection, raw))
            connection._horizontal_cursor = cached  # type: ignore[attr-defined]
        with connection.wrap_database_errors:
            yield cached[1]

    def is_retryable(self, exc: DatabaseError) -> bool:
        return getattr(exc.__cause__, "sqlstate", None) in _RETRYABLE_SQLSTATES

    def is_lock_timeout(self, exc: BaseException) -> bool:
        # A driver error (our reused cursor) or Django's wrapper around one.
        error = exc if getattr(exc, "sqlstate", None) else exc.__cause__
        code = getattr(error, "sqlstate", None)
        if code == _LOCK_TIMEOUT_SQLSTATE:
            return True
        # The lock is granted in the instant lock_timeout fires: the server clears the
        # timeout's flag but not the cancel, and reports query_canceled "due to user
        # request" while locking the row (F18, about 1 acquire in 1,500). The statement
        # did nothing, as after a lock timeout.
        return code == _QUERY_CANCELED and "while locking tuple" in str(error)

    def lost_first_insert(self, exc: BaseException) -> bool:
        # Two acquires of a lease that has no row yet: both pass the arbiter check on
        # ``name`` before either index entry exists, and the second's insert then hits
        # the (name, token) unique index, which ON CONFLICT (name) does not arbitrate:
        # unique_violation there, not a conflict (RELIABILITY.md F18, 1 in ~1500).
        error = exc if getattr(exc, "sqlstate", None) else exc.__cause__
        if getattr(error, "sqlstate", None) != _UNIQUE_VIOLATION:
            return False
        diag = getattr(error, "diag", None)
        return getattr(diag, "constraint_name", None) == "horizontal_lease_name_token"

    def lock_wait_bound(self, wait: float) -> str:
        # Evaluated before the statement locks a row; is_local: it ends with the
        # statement's transaction (its own in autocommit), so nothing stays on the session
        # or on a PgBouncer server connection. 0 would mean "wait for ever": 1 ms at least.
        return f"set_config('lock_timeout', '{max(1, int(wait * 1000)):d}', true) IS NOT NULL"

    # -- job gate: the run and its attempt in one statement ---------------------------------

    def claim_slot(self, cursor: Cursor, request: ClaimRequest) -> Claim | None:
        """The upsert, the close of a taken-over attempt and the new attempt: one statement.

        Every part of a statement sees one snapshot: ``abandoned`` finds only the attempts
        that were running before this claim, never the one ``added`` inserts.
        """
        if request.skip_if_overlapping:
            self.xact_lock(cursor, overlap_lock_name(request.job), nowait=False)
        upsert, params = self._claim_upsert(request)
        upsert = upsert.replace(
            "RETURNING id, token, attempt",
            "RETURNING id, job, slot, token, attempt, owner, triggered_by, claimed_at",
        )
        self.execute_bounded(
            cursor,
            f"""
            WITH claimed AS ({upsert}),
            abandoned AS (
                UPDATE horizontal_jobattempt SET outcome = '{ABANDONED}',
                    finished_at = claimed.claimed_at,
                    error = 'claim expired; taken over by ' || claimed.owner
                        || ' with token ' || claimed.token::text
                FROM claimed
                WHERE horizontal_jobattempt.job_run_id = claimed.id
                  AND horizontal_jobattempt.outcome = '{RUNNING}'
                  AND horizontal_jobattempt.token < claimed.token
            ),
            added AS (
                INSERT INTO horizontal_jobattempt ({ATTEMPT_COLUMNS})
                SELECT {ATTEMPT_VALUES} FROM claimed
            )
            SELECT id, token, attempt FROM claimed
            """,
            params,
        )
        row = cursor.fetchone()
        return None if row is None else Claim(int(row[0]), int(row[1]), int(row[2]))

    def finish_run(self, cursor: Cursor, run_id: int, token: int, status: str, error: str) -> bool:
        cursor.execute(
            f"""
            WITH finished AS (
                UPDATE horizontal_jobrun
                SET status = %s, error = %s, finished_at = {self.NOW}, expires_at = {self.NOW}
                WHERE id = %s AND token = %s AND status = '{RUNNING}'
                RETURNING id, token, status, error, finished_at
            ),
            recorded AS (
                UPDATE horizontal_jobattempt SET outcome = finished.status,
                    error = finished.error, finished_at = finished.finished_at
                FROM finished
                WHERE horizontal_jobattempt.job_run_id = finished.id
                  AND horizontal_jobattempt.token = finished.token
            )
            SELECT count(*) FROM finished
            """,
            [status, error, run_id, token],
        )
        return bool(scalar(cursor) == 1)

    def expire_run(self, cursor: Cursor, run_id: int, token: int) -> bool:
        cursor.execute(
            f"""
            WITH handed AS (
                UPDATE horizontal_jobrun SET expires_at = {self.NOW}
                WHERE id = %s AND token = %s AND status = '{RUNNING}'
                  AND expires_at > {self.NOW}
                RETURNING id, token, expires_at
            ),
            recorded AS (
                UPDATE horizontal_jobattempt SET outcome = '{INTERRUPTED}',
                    error = 'handed back (SIGTERM/SIGINT)', finished_at = handed.expires_at
                FROM handed
                WHERE horizontal_jobattempt.job_run_id = handed.id
                  AND horizontal_jobattempt.token = handed.token
            )
            SELECT count(*) FROM handed
            """,
            [run_id, token],
        )
        return bool(scalar(cursor) == 1)

    def lease_is_held(self, cursor: Cursor, name: str, token: int, bound_ms: int) -> bool:
        cursor.execute(
            f"""
            SELECT {_IDLE_BOUND} FROM horizontal_lease lease, {_IDLE_SETTING}
            AND lease.name = %s AND lease.token = %s AND lease.expires_at > {self.NOW}
            FOR KEY SHARE OF lease
            """,
            [bound_ms, str(bound_ms), name, token],
        )
        return cursor.fetchone() is not None

    def run_is_held(self, cursor: Cursor, run_id: int, token: int, bound_ms: int) -> bool:
        cursor.execute(
            f"""
            SELECT {_IDLE_BOUND} FROM horizontal_jobrun run, {_IDLE_SETTING}
            AND run.id = %s AND run.token = %s AND run.status = '{RUNNING}'
            AND run.expires_at > {self.NOW}
            FOR KEY SHARE OF run
            """,
            [bound_ms, str(bound_ms), run_id, token],
        )
        return cursor.fetchone() is not None

    def connection_limit(self, cursor: Cursor) -> int | None:
        # Superusers keep a reserve that ordinary roles cannot use.
        cursor.execute(
            "SELECT current_setting('max_connections')::int"
            " - current_setting('superuser_reserved_connections')::int",
            [],
        )
        return int(scalar(cursor))

    def xact_lock(self, cursor: Cursor, name: str, nowait: bool) -> bool:
        fn = "pg_try_advisory_xact_lock" if nowait else "pg_advisory_xact_lock"
        cursor.execute(f"SELECT {fn}(%s)", [lock_key(name)])
        value = scalar(cursor)
        return True if value is None or value == "" else bool(value)

    def held_lock_count(self, cursor: Cursor) -> int:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [],
        )
        return int(scalar(cursor))

    def inexact_text_columns(
        self, cursor: Cursor, columns: Sequence[tuple[str, str]]
    ) -> list[tuple[str, str, str]]:
        # A database's default collation is deterministic (equal only if the bytes are);
        # a column can be given a nondeterministic one (CREATE COLLATION ... deterministic
        # = false) by hand.
        found = []
        for table, column in columns:
            cursor.execute(
                "SELECT coll.collname FROM pg_attribute a"
                " JOIN pg_collation coll ON coll.oid = a.attcollation"
                " WHERE a.attrelid = to_regclass(%s) AND a.attname = %s"
                " AND NOT coll.collisdeterministic",
                [table, column],
            )
            row = cursor.fetchone()
            if row is not None:
                found.append((table, column, str(row[0])))
        return found


def _driver_cursor(connection: BaseDatabaseWrapper, raw: Any) -> psycopg.Cursor[Any]:
    """A psycopg cursor binding on the server that prepares exactly when Django's would.

    Django's cursors bind on the client, which never prepares, unless OPTIONS
    ``server_side_binding`` is True; only then does ``prepare_threshold`` apply. A cursor
    that prepared on its own would leave named statements on the server connection,
    which behind PgBouncer in transaction mode (before 1.21) the next client meets:
    ``prepared statement "_pg3_0" already exists`` in a heartbeat.
    """
    import psycopg

    if getattr(connection.features, "uses_server_side_binding", False):
        return psycopg.Cursor(raw)
    return _unprepared_cursor_class()(raw)


@functools.cache
def _unprepared_cursor_class() -> type[psycopg.Cursor[Any]]:
    import psycopg

    class UnpreparedCursor(psycopg.Cursor[Any]):
        def execute(
            self, query: Any, params: Any = None, *, prepare: bool | None = None, **kwargs: Any
        ) -> UnpreparedCursor:
            return super().execute(query, params, prepare=False, **kwargs)

    return UnpreparedCursor
