"""What every dialect and every caller of ``horizontal.db`` share, and no statement.

The JobRun statuses and attempt columns the SQL names, how long a claim or an acquire
waits for a row lock, the ``Cursor`` protocol the statements use, the values they take
and return (``ClaimRequest``, ``Claim``, ``Control``), their errors, and the small
helpers (lock names and keys, ``scalar``, ``milliseconds``). The statements themselves
are in ``base.py`` (the portable ones) and one module per vendor.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from django.db import DatabaseError

# The JobRun statuses the statements name in their SQL (db/ does not import the
# models). Fixed strings only: they are spliced into SQL, never user input.
RUNNING = "running"
FAILED = "failed"
# JobAttempt outcomes the statements write themselves (the others are JobRun statuses).
ABANDONED = "abandoned"
INTERRUPTED = "interrupted"
# The columns of horizontal_jobattempt every claim fills, and what it fills them with,
# read from the run row (or the claim's RETURNING) so the two never disagree.
ATTEMPT_COLUMNS = (
    "job_run_id, job, slot, token, attempt, owner, triggered_by, claimed_at, started_at,"
    " finished_at, outcome, error"
)
ATTEMPT_VALUES = (
    f"id, job, slot, token, attempt, owner, triggered_by, claimed_at, claimed_at, NULL,"
    f" '{RUNNING}', ''"
)


def abandoned_note(owner: str, token: int) -> str:
    """What an attempt taken over after its claim expired says (its ``error``)."""
    return f"claim expired; taken over by {owner} with token {token}"


class Control(NamedTuple):
    """A job's pause, as ``now_and_control`` reads it: who paused it, when, and why."""

    paused_by: str
    paused_at: dt.datetime | None
    note: str


class UnsupportedDatabase(Exception):
    pass


class RowLocked(DatabaseError):
    """A claim or an acquire found its row locked for longer than ``ROW_LOCK_WAIT``.

    That means "held": a holder inside a fenced transaction (or one paused there, whose
    transaction the server ends after the TTL), or another claimant, has the row.
    ``run_statement`` does not retry it; the gate and ``acquire`` answer None.
    """


# How long a claim waits for a row lock before it reads the row as held.
# Whole seconds: MySQL's innodb_lock_wait_timeout has no finer unit.
ROW_LOCK_WAIT = 1.0
# How long a lease acquire waits for the lease's row lock: not at all (PostgreSQL's
# smallest lock_timeout, 1 ms; MariaDB's 0). A locked lease row means another statement
# is acquiring, renewing, releasing or fencing that lease right now: the try-acquire
# answers "held" at once instead of queueing behind it. Under contention (RELIABILITY.md
# F18) the queue is what made the tail: every contender waited for each one before it,
# and on a loaded machine a holder of the row lock that loses its CPU keeps them all
# waiting. MySQL (not MariaDB) cannot wait less than 1 s.
ACQUIRE_LOCK_WAIT = 0.0


class Cursor(Protocol):
    """What the statements use of a cursor.

    Django's ``CursorWrapper`` for most vendors, psycopg's own cursor on PostgreSQL (see
    ``PostgreSQLDialect.cursor``): both are DB-API cursors, so the dialects ask for no more.
    """

    @property
    def rowcount(self) -> int: ...

    def execute(self, sql: str, params: Sequence[Any], /) -> object: ...

    def fetchone(self) -> Sequence[Any] | None: ...


def scalar(cursor: Cursor) -> Any:
    """The first column of the one row a statement always returns (``SELECT count(*)``)."""
    row = cursor.fetchone()
    assert row is not None, "the statement returned no row"
    return row[0]


def milliseconds(seconds: float) -> int:
    """A duration as the whole milliseconds every statement takes (``later()``'s parameter)."""
    return int(seconds * 1000)


class Claim(NamedTuple):
    """What a successful gate claim returns."""

    id: int
    token: int
    attempt: int


class ClaimRequest(NamedTuple):
    """What the gate asks for when it claims (job, slot), as one value.

    Every vendor's ``claim_slot`` takes this one argument, so their signatures cannot
    drift apart. ``takeover_statuses``: the statuses this claim may take over besides a
    crashed run (``reclaim_crashed``) and a failed one with attempts left
    (``max_attempts``).
    """

    job: str
    slot: str
    owner: str
    trigger: str
    ttl_ms: int
    reclaim_crashed: bool
    takeover_statuses: tuple[str, ...]
    skip_if_overlapping: bool
    max_attempts: int = 1

    @property
    def needs_transaction(self) -> bool:
        """The claim takes the job's lock first, so it must run in one transaction.

        "No other slot of this job is running" is a read; two claims of different slots
        both pass it unless they take turns (``overlap_lock_name``).
        """
        return self.skip_if_overlapping


def overlap_lock_name(job: str) -> str:
    """The ``xact_lock`` every claim of an ``overlap="skip"`` job takes first: one per job.

    Long job names are hashed so the name fits a lock row on every vendor.
    """
    name = f"horizontal:overlap:{job}"
    if len(name) > 150:
        digest = hashlib.sha256(job.encode("utf-8", "surrogatepass")).hexdigest()
        name = f"horizontal:overlap:#{digest}"
    return name


def lock_key(name: str) -> int:
    """A signed 64-bit key for advisory locks, stable across processes and releases.

    sha256 rather than ``hashtext()`` (32 bits, internal) or crc32 (collides): the
    namespace prefix keeps us off keys other libraries pick.
    """
    digest = hashlib.sha256(f"horizontal:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)
