"""Statements shared by every vendor, parameterised by the vendor's clock expressions.

A subclass sets ``NOW`` (an SQL expression for the database's current instant, evaluated
per statement) and ``later(param)`` (``NOW`` plus a number of milliseconds), and
overrides the statements its vendor cannot express in the common dialect. The types,
constants and helpers the statements share with their callers are in ``shared.py``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError

from horizontal.db.shared import (
    ABANDONED,
    ACQUIRE_LOCK_WAIT,
    ATTEMPT_COLUMNS,
    ATTEMPT_VALUES,
    FAILED,
    INTERRUPTED,
    ROW_LOCK_WAIT,
    RUNNING,
    Claim,
    ClaimRequest,
    Control,
    Cursor,
    RowLocked,
    abandoned_note,
    overlap_lock_name,
    scalar,
)

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper


class Dialect:
    vendor = ""
    NOW = ""
    # The claim, the finish and the hand-back each write the run and its attempt in one
    # statement (PostgreSQL's data-modifying CTEs). Else they are several statements,
    # which the gate runs in one transaction.
    GATE_IN_ONE_STATEMENT = False
    # Appended to a SELECT that must keep the row's token from changing until the
    # transaction ends, without blocking updates of its expiry (the heartbeat's).
    SHARE_LOCK = ""

    def later(self) -> str:
        """SQL for ``NOW`` plus ``%s`` milliseconds (one integer parameter)."""
        raise NotImplementedError

    @contextmanager
    def cursor(self, connection: BaseDatabaseWrapper) -> Iterator[Cursor]:
        """A cursor for horizontal's own statements on ``connection`` (a Django wrapper)."""
        with connection.cursor() as cursor:
            yield cursor

    # -- clock ---------------------------------------------------------------------------

    def db_now(self, cursor: Cursor) -> dt.datetime:
        cursor.execute(f"SELECT {self.NOW}", [])
        return self.to_datetime(scalar(cursor))

    def now_and_control(self, cursor: Cursor, job: str) -> tuple[dt.datetime, Control | None]:
        """The database's now and, if ``job`` is paused, its pause: one round trip.

        What every pass of ``run_job`` reads first, so honouring a pause costs nothing.
        """
        cursor.execute(
            f"SELECT {self.NOW}, control.job, control.changed_by, control.changed_at,"
            " control.note FROM (SELECT 1 AS one) AS here"
            " LEFT JOIN horizontal_jobcontrol control ON control.job = %s AND control.paused",
            [job],
        )
        row = cursor.fetchone()
        assert row is not None, "the statement returned no row"
        now = self.to_datetime(row[0])
        if row[1] is None:
            return now, None
        at = None if row[3] is None else self.to_datetime(row[3])
        return now, Control(str(row[2] or ""), at, str(row[4] or ""))

    def to_datetime(self, value: str | dt.datetime) -> dt.datetime:
        if isinstance(value, str):
            value = dt.datetime.fromisoformat(value)
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)

    def is_retryable(self, exc: DatabaseError) -> bool:
        """Deadlocks, lock-wait timeouts and busy errors: the statement may simply be re-run."""
        return False

    def is_lock_timeout(self, exc: BaseException) -> bool:
        """The error says a row lock was not granted within ``ROW_LOCK_WAIT``."""
        return False

    def lock_wait_bound(self, wait: float) -> str:
        """A condition (always true) that, evaluated before the statement's row locks,
        bounds how long the rest of the statement waits for one (PostgreSQL's
        lock_timeout)."""
        return "1 = 1"

    def execute_bounded(
        self, cursor: Cursor, sql: str, params: Sequence[Any], wait: float = ROW_LOCK_WAIT
    ) -> None:
        """Run a claim's or an acquire's statement, waiting at most ``wait`` seconds for
        a row lock; past that raise ``RowLocked`` (read as "held", never retried).

        The statement puts ``lock_wait_bound(wait)`` in a condition evaluated before it
        locks; vendors without that set the bound around it.
        """
        try:
            cursor.execute(sql, params)
        except Exception as exc:
            if self.is_lock_timeout(exc):
                raise RowLocked(f"row locked for more than {wait:g} s") from exc
            raise

    # -- leases --------------------------------------------------------------------------

    def acquire_lease(self, cursor: Cursor, name: str, owner: str, ttl_ms: int) -> int | None:
        """Take the lease if it is free or expired; return the new token, else None."""
        # Bounded: a locked row (a holder inside a fenced transaction, another acquire in
        # flight) answers "held" at once (ACQUIRE_LOCK_WAIT).
        try:
            self._upsert_lease(cursor, name, owner, ttl_ms)
        except Exception as exc:
            if self.lost_first_insert(exc):
                # Another acquire created the lease's first row (token 1) in the same
                # instant and committed: it holds the lease.
                return None
            raise
        row = cursor.fetchone()
        return None if row is None else int(row[0])

    def lost_first_insert(self, exc: BaseException) -> bool:
        """The acquire's insert of a new lease's first row lost a race with another's."""
        return False

    def _upsert_lease(self, cursor: Cursor, name: str, owner: str, ttl_ms: int) -> None:
        self.execute_bounded(
            cursor,
            f"""
            INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)
            SELECT %s, %s, 1, {self.later()}, {self.NOW}
            WHERE {self.lock_wait_bound(ACQUIRE_LOCK_WAIT)}
            ON CONFLICT (name) DO UPDATE SET
                owner = excluded.owner,
                token = horizontal_lease.token + 1,
                expires_at = {self.later()},
                acquired_at = {self.NOW}
            WHERE horizontal_lease.expires_at <= {self.NOW}
            RETURNING token
            """,
            [name, owner, ttl_ms, ttl_ms],
            wait=ACQUIRE_LOCK_WAIT,
        )

    def renew_lease(self, cursor: Cursor, name: str, owner: str, token: int, ttl_ms: int) -> bool:
        cursor.execute(
            f"""
            UPDATE horizontal_lease SET expires_at = {self.later()}
            WHERE name = %s AND owner = %s AND token = %s AND expires_at > {self.NOW}
            """,
            [ttl_ms, name, owner, token],
        )
        return bool(cursor.rowcount == 1)

    def release_lease(self, cursor: Cursor, name: str, owner: str, token: int) -> bool:
        # Expire, never delete: the token sequence must survive the release.
        cursor.execute(
            f"""
            UPDATE horizontal_lease SET expires_at = {self.NOW}
            WHERE name = %s AND owner = %s AND token = %s AND expires_at > {self.NOW}
            """,
            [name, owner, token],
        )
        return bool(cursor.rowcount == 1)

    def lease_is_held(self, cursor: Cursor, name: str, token: int, bound_ms: int) -> bool:
        """Inside the caller's transaction: keep ``token`` current while the lease is held.

        The lock keeps a takeover (which changes the token) from committing until the
        caller's transaction ends, so writes in it commit only under this token; it does not
        block a renewal (which changes only the expiry). ``bound_ms``: how long the server
        lets the transaction sit idle before it ends it (a paused holder must not keep the
        lock from the next one), on vendors that can.
        """
        cursor.execute(
            f"""
            SELECT 1 FROM horizontal_lease
            WHERE name = %s AND token = %s AND expires_at > {self.NOW} {self.SHARE_LOCK}
            """,
            [name, token],
        )
        return cursor.fetchone() is not None

    # -- job gate ------------------------------------------------------------------------

    def _takeover_condition(self, request: ClaimRequest) -> str:
        """SQL: the claimed row may be taken over (as ``ClaimRequest`` says which)."""
        parts = []
        if request.reclaim_crashed:
            parts.append(
                f"(horizontal_jobrun.status = '{RUNNING}'"
                f" AND horizontal_jobrun.expires_at <= {self.NOW})"
            )
        if request.max_attempts > 1:
            parts.append(
                f"(horizontal_jobrun.status = '{FAILED}'"
                f" AND horizontal_jobrun.attempt < {int(request.max_attempts):d})"
            )
        if request.takeover_statuses:
            quoted = ", ".join(f"'{s}'" for s in request.takeover_statuses)
            parts.append(f"horizontal_jobrun.status IN ({quoted})")
        return " OR ".join(parts) or "1 = 0"

    def _overlap_condition(self) -> str:
        return (
            "NOT EXISTS (SELECT 1 FROM horizontal_jobrun AS other"
            f" WHERE other.job = %s AND other.slot <> %s AND other.status = '{RUNNING}'"
            f" AND other.expires_at > {self.NOW})"
        )

    def claim_slot(self, cursor: Cursor, request: ClaimRequest) -> Claim | None:
        """Claim (job, slot): insert, or take over a crashed/retryable row; with its attempt.

        The run row and its attempt row are written together: one statement on
        PostgreSQL, the upsert then the attempt (``record_attempt``) in one transaction
        elsewhere (``GATE_IN_ONE_STATEMENT``). Returns None when the slot is held,
        finished, or (with ``skip_if_overlapping``) another slot of the job is still
        running. That test is a read, so with it the claim first takes the job's lock,
        in the transaction the caller opened (``request.needs_transaction``): claims of
        one job take turns, and each reads after the one before it committed (a new
        statement, so under READ COMMITTED a new snapshot: taking the lock inside the
        claim statement would not do).
        """
        if request.skip_if_overlapping:
            self.xact_lock(cursor, overlap_lock_name(request.job), nowait=False)
        sql, params = self._claim_upsert(request)
        # Bounded: a run inside a fenced transaction answers "held" within ROW_LOCK_WAIT.
        self.execute_bounded(cursor, sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        claim = Claim(int(row[0]), int(row[1]), int(row[2]))
        self.record_attempt(cursor, request, claim)
        return claim

    def _claim_upsert(self, request: ClaimRequest) -> tuple[str, list[Any]]:
        """The claim's upsert of the run row, ``RETURNING`` the claimed row's columns."""
        where = self._overlap_condition() if request.skip_if_overlapping else "1 = 1"
        params: list[Any] = [
            request.job,
            request.slot,
            request.owner,
            request.trigger,
            request.ttl_ms,
        ]
        if request.skip_if_overlapping:
            params += [request.job, request.slot]
        params += [request.owner, request.trigger, request.ttl_ms]
        sql = f"""
            INSERT INTO horizontal_jobrun (job, slot, status, owner, token, attempt, triggered_by,
                claimed_at, heartbeat_at, expires_at, finished_at, error)
            SELECT %s, %s, '{RUNNING}', %s, 1, 1, %s, {self.NOW}, {self.NOW}, {self.later()},
                NULL, ''
            WHERE {self.lock_wait_bound(ROW_LOCK_WAIT)} AND {where}
            ON CONFLICT (job, slot) DO UPDATE SET
                status = '{RUNNING}', owner = %s, token = horizontal_jobrun.token + 1,
                attempt = horizontal_jobrun.attempt + 1, triggered_by = %s,
                claimed_at = {self.NOW}, heartbeat_at = {self.NOW}, expires_at = {self.later()},
                finished_at = NULL, error = ''
            WHERE {self._takeover_condition(request)}
            RETURNING id, token, attempt
            """
        return sql, params

    def record_attempt(self, cursor: Cursor, request: ClaimRequest, claim: Claim) -> None:
        """Put the claim's attempt on record, in the claim's transaction.

        A takeover (token > 1) first closes the attempt it took over, if that one was
        still running (its claim expired): ``abandoned``, as of this claim.
        """
        if claim.token > 1:
            cursor.execute(
                f"""
                UPDATE horizontal_jobattempt SET outcome = '{ABANDONED}',
                    finished_at = (SELECT claimed_at FROM horizontal_jobrun WHERE id = %s),
                    error = %s
                WHERE job_run_id = %s AND outcome = '{RUNNING}' AND token < %s
                """,
                [claim.id, abandoned_note(request.owner, claim.token), claim.id, claim.token],
            )
        cursor.execute(
            f"INSERT INTO horizontal_jobattempt ({ATTEMPT_COLUMNS})"
            f" SELECT {ATTEMPT_VALUES} FROM horizontal_jobrun WHERE id = %s",
            [claim.id],
        )

    def record_slots(
        self,
        cursor: Cursor,
        *,
        job: str,
        slots: Sequence[tuple[str, str]],
        status: str,
        owner: str,
    ) -> None:
        """Insert rows that are not runs (missed, skipped_overlap), ``(slot, note)`` each,
        in one statement; a slot that already has a row keeps it."""
        if not slots:
            return
        row = (
            f"(%s, %s, %s, %s, 0, 0, 'schedule', {self.NOW}, {self.NOW}, {self.NOW},"
            f" {self.NOW}, %s)"
        )
        params: list[Any] = []
        for slot, note in slots:
            params += [job, slot, status, owner, note]
        cursor.execute(
            f"""
            INSERT INTO horizontal_jobrun (job, slot, status, owner, token, attempt, triggered_by,
                claimed_at, heartbeat_at, expires_at, finished_at, error)
            VALUES {", ".join([row] * len(slots))}
            ON CONFLICT (job, slot) DO NOTHING
            """,
            params,
        )

    def renew_run(self, cursor: Cursor, run_id: int, token: int, ttl_ms: int) -> bool:
        cursor.execute(
            f"""
            UPDATE horizontal_jobrun SET heartbeat_at = {self.NOW}, expires_at = {self.later()}
            WHERE id = %s AND token = %s AND status = '{RUNNING}' AND expires_at > {self.NOW}
            """,
            [ttl_ms, run_id, token],
        )
        return bool(cursor.rowcount == 1)

    # The run row's table as the finish and the hand-back name it (MySQL adds a hint).
    _JOBRUN_BY_ID = "horizontal_jobrun"

    def finish_run(self, cursor: Cursor, run_id: int, token: int, status: str, error: str) -> bool:
        """Fenced completion: only the current token may close the run (and its attempt).

        The attempt's outcome is the run's status (``succeeded`` or ``failed``).
        """
        cursor.execute(
            f"""
            UPDATE {self._JOBRUN_BY_ID}
            SET status = %s, error = %s, finished_at = {self.NOW}, expires_at = {self.NOW}
            WHERE id = %s AND token = %s AND status = '{RUNNING}'
            """,
            [status, error, run_id, token],
        )
        if cursor.rowcount != 1:
            return False
        self._close_attempt(cursor, run_id, token, status, error, "finished_at")
        return True

    def expire_run(self, cursor: Cursor, run_id: int, token: int) -> bool:
        """Hand a claim back (SIGTERM): still ``running``, but re-claimable at once.

        Its attempt ends ``interrupted``.
        """
        cursor.execute(
            f"""
            UPDATE {self._JOBRUN_BY_ID} SET expires_at = {self.NOW}
            WHERE id = %s AND token = %s AND status = '{RUNNING}' AND expires_at > {self.NOW}
            """,
            [run_id, token],
        )
        if cursor.rowcount != 1:
            return False
        self._close_attempt(
            cursor, run_id, token, INTERRUPTED, "handed back (SIGTERM/SIGINT)", "expires_at"
        )
        return True

    def _close_attempt(
        self, cursor: Cursor, run_id: int, token: int, outcome: str, error: str, ended: str
    ) -> None:
        """End the attempt as the run row just did: its end is the run's ``ended`` column."""
        cursor.execute(
            f"""
            UPDATE horizontal_jobattempt SET outcome = %s, error = %s,
                finished_at = (SELECT {ended} FROM horizontal_jobrun WHERE id = %s)
            WHERE job_run_id = %s AND token = %s
            """,
            [outcome, error, run_id, run_id, token],
        )

    def insert_effect(self, cursor: Cursor, key: str, run_id: int, token: int) -> bool:
        """Insert an idempotency key in the caller's transaction; False if it exists."""
        cursor.execute(
            f"""
            INSERT INTO horizontal_effect ("key", job_run_id, token, created_at)
            VALUES (%s, %s, %s, {self.NOW})
            ON CONFLICT ("key") DO NOTHING
            """,
            [key, run_id, token],
        )
        return bool(cursor.rowcount == 1)

    def run_is_held(self, cursor: Cursor, run_id: int, token: int, bound_ms: int) -> bool:
        """Inside the caller's transaction: keep ``token`` current while the run holds the
        slot (as ``lease_is_held`` does for a lease: the heartbeat is not blocked)."""
        cursor.execute(
            f"""
            SELECT 1 FROM horizontal_jobrun
            WHERE id = %s AND token = %s AND status = '{RUNNING}' AND expires_at > {self.NOW}
            {self.SHARE_LOCK}
            """,
            [run_id, token],
        )
        return cursor.fetchone() is not None

    # -- server facts ----------------------------------------------------------------------

    def connection_limit(self, cursor: Cursor) -> int | None:
        """Connections the server accepts from ordinary roles; None if it has no limit."""
        return None

    # -- transaction-scoped locks ----------------------------------------------------------

    def xact_lock(self, cursor: Cursor, name: str, nowait: bool) -> bool:
        """Take a lock released by COMMIT/ROLLBACK. Must run inside a transaction."""
        raise NotImplementedError

    @contextmanager
    def no_lock_wait(self, connection: BaseDatabaseWrapper) -> Iterator[None]:
        """While inside, beginning a transaction does not wait for another's lock."""
        yield

    def is_busy(self, exc: DatabaseError) -> bool:
        """The error says another transaction holds the lock we did not wait for."""
        return False

    def held_lock_count(self, cursor: Cursor) -> int:
        """Locks of ours held by any session right now (for leak checks in tests)."""
        raise NotImplementedError

    # -- byte-exact text columns -----------------------------------------------------------

    def exact_text_collation(self, connection: BaseDatabaseWrapper) -> str | None:
        """The collation under which a text column compares byte for byte.

        Case, accents and trailing spaces all count. None: the vendor's default already
        compares that way (PostgreSQL's database collations are deterministic; SQLite's
        default is ``BINARY``).
        """
        return None

    def inexact_text_columns(
        self, cursor: Cursor, columns: Sequence[tuple[str, str]]
    ) -> list[tuple[str, str, str]]:
        """Of ``columns`` (table, column), those that exist and do not compare byte for
        byte, each with its collation. Tables not created yet are left out."""
        return []
