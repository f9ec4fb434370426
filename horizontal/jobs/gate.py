"""The job gate: one ``JobRun`` row per (job, slot), claimed in one statement.

For an ``overlap="skip"`` job the claim first takes the job's lock, in the same
transaction: claims of one job's slots take turns, so two of them cannot both find
"no other slot running" (docs/jobs.md, overlap).

The row is both the gate (a unique key) and the run's lease (token, expiry renewed by a
heartbeat). Every function here runs in its own short transaction on
``HORIZONTAL_DATABASE`` and refuses to run inside the caller's.
"""

from __future__ import annotations

import datetime as dt
import operator
from collections.abc import Sequence
from functools import reduce
from typing import NamedTuple

from django.db import OperationalError, connections
from django.db.models import Q

from horizontal import failpoints
from horizontal.conf import conf
from horizontal.db import (
    Claim,
    ClaimRequest,
    Control,
    Cursor,
    Dialect,
    RowLocked,
    db_now,
    dialect_for,
    milliseconds,
    run_statement,
)
from horizontal.instance import instance_id
from horizontal.jobs.registry import Job
from horizontal.jobs.slots import check_slot_text, format_slot
from horizontal.models import JobRun

# What each reason for claiming may take over, besides a crashed (expired) running claim.
RETRY_STATUSES = (JobRun.Status.FAILED, JobRun.Status.ABANDONED)
UNRUN_STATUSES = (JobRun.Status.MISSED, JobRun.Status.SKIPPED_OVERLAP)
# Slots one pass re-runs at most (oldest first); the next pass takes the rest.
RERUN_LIMIT = 100


class Attempt(NamedTuple):
    """A successful claim: this process now runs (job, slot) under ``token``."""

    job: Job
    slot: str
    claim: Claim
    owner: str
    ttl: float
    using: str


def ttl_of(job: Job) -> float:
    return conf.LEASE_TTL if job.ttl is None else float(job.ttl)


def claim_slot(
    job: Job, slot: str, *, trigger: str, retry: bool = False, explicit: bool = False
) -> Attempt | None:
    """Claim ``slot`` for ``job``; None if another run has it, finished it, or overlaps.

    ``explicit`` (an operator named the slot) may run a slot recorded as missed or
    skipped; ``retry`` may also re-run a failed or abandoned one. A slot no database
    stores as given raises ``InvalidSlot`` before any statement runs.
    """
    check_slot_text(slot)
    using = conf.DATABASE
    owner = instance_id()
    ttl = ttl_of(job)
    statuses: tuple[str, ...] = ()
    if explicit or retry:
        statuses += UNRUN_STATUSES
    if retry:
        statuses += RETRY_STATUSES
    request = ClaimRequest(
        job=job.name,
        slot=slot,
        owner=owner,
        trigger=trigger,
        ttl_ms=milliseconds(ttl),
        reclaim_crashed=job.reclaim_crashed or retry,
        takeover_statuses=statuses,
        skip_if_overlapping=job.overlap == "skip",
        max_attempts=job.max_attempts,
    )
    tries = 0

    def statement(cursor: Cursor, dialect: Dialect) -> Claim | None:
        nonlocal tries
        tries += 1
        return dialect.claim_slot(cursor, request)

    def committed() -> None:
        # After the COMMIT (of the lock and the claim, for overlap="skip"): where a
        # dropped connection loses the reply of a claim that stands.
        failpoints.hit("after_claim_commit", disconnect=lambda: _drop_connection(using))

    try:
        # A row locked past the bound is held: by a run inside a fenced transaction (or a
        # paused one, whose transaction the server ends after the TTL) or another claimant.
        claim = run_statement(
            using, statement, atomic=_needs_transaction(using, request), after_commit=committed
        )
    except RowLocked:
        return None
    if claim is None and tries > 1:
        # A retry after a lost reply: the first try may have committed our claim, which
        # the retry then reads as held. Held by this very process, unexpired: it is ours.
        claim = _own_claim(job, slot, owner, using)
    if claim is None:
        return None
    return Attempt(job, slot, claim, owner, ttl, using)


def _needs_transaction(using: str, request: ClaimRequest | None = None) -> bool:
    """The claim (or finish, or hand-back) is several statements here: one transaction."""
    if request is not None and request.needs_transaction:
        return True
    return not dialect_for(connections[using]).GATE_IN_ONE_STATEMENT


def finish(attempt: Attempt, status: str, error: str) -> bool:
    """Record the run's result and its attempt's outcome; False if a newer token has it."""
    claim = attempt.claim
    return run_statement(
        attempt.using,
        lambda c, d: d.finish_run(c, claim.id, claim.token, status, error),
        atomic=_needs_transaction(attempt.using),
    )


def hand_back(attempt: Attempt) -> bool:
    """Expire the claim now (SIGTERM/SIGINT); its attempt ends ``interrupted``."""
    claim = attempt.claim
    return run_statement(
        attempt.using,
        lambda c, d: d.expire_run(c, claim.id, claim.token),
        atomic=_needs_transaction(attempt.using),
    )


def now_and_pause(job: Job) -> tuple[dt.datetime, Control | None]:
    """The database's now, and the job's pause if it is paused (one round trip)."""
    return run_statement(conf.DATABASE, lambda c, d: d.now_and_control(c, job.name))


def _own_claim(job: Job, slot: str, owner: str, using: str) -> Claim | None:
    """The running, unexpired claim of (job, slot) this process holds, if any."""
    now = db_now(using)
    row = (
        JobRun.objects.using(using)
        .filter(
            job=job.name, slot=slot, owner=owner, status=JobRun.Status.RUNNING, expires_at__gt=now
        )
        .values_list("id", "token", "attempt")
        .first()
    )
    return None if row is None else Claim(*row)


def _drop_connection(using: str) -> None:
    """Failpoint: the claim committed, then the connection died before its reply came."""
    raw = connections[using].connection
    if raw is not None:
        raw.close()
    raise OperationalError("failpoint after_claim_commit: connection dropped after commit")


def record_slot(job: Job, slot: str, status: str, note: str = "") -> None:
    """Put a non-run (missed, skipped_overlap) on record, unless the slot has a row."""
    record_slots(job, [(slot, note)], status)


def record_slots(job: Job, slots: Sequence[tuple[str, str]], status: str) -> None:
    """Put non-runs on record, ``(slot, note)`` each, in one statement (a bounded batch)."""
    for slot, _ in slots:
        check_slot_text(slot)
    run_statement(
        conf.DATABASE,
        lambda cursor, dialect: dialect.record_slots(
            cursor, job=job.name, slots=slots, status=status, owner=instance_id()
        ),
    )


def slot_row(job: Job, slot: str) -> JobRun | None:
    row: JobRun | None = JobRun.objects.using(conf.DATABASE).filter(job=job.name, slot=slot).first()
    return row


def running_other(job: Job, slot: str) -> JobRun | None:
    """The newest other slot of ``job`` still running, if any (what an overlap waits on)."""
    row: JobRun | None = (
        JobRun.objects.using(conf.DATABASE)
        .filter(job=job.name, status=JobRun.Status.RUNNING)
        .exclude(slot=slot)
        .order_by("-claimed_at")
        .first()
    )
    return row


def slots_to_rerun(job: Job, now: dt.datetime) -> list[str]:
    """Slots to run again: crashed runs, and failed ones with attempts left (``max_attempts``).

    Within the job's window, oldest first.

    A crash leaves the row ``running`` with an expired claim; the next ``runjob`` (or the
    scheduler's next poll) re-claims it with a higher token, so nothing is lost to a
    kill -9 even under catch-up policies that only look at the latest tick.
    """
    conditions = []
    if job.reclaim_crashed:
        conditions.append(Q(status=JobRun.Status.RUNNING, expires_at__lt=now))
    if job.max_attempts > 1:
        conditions.append(Q(status=JobRun.Status.FAILED, attempt__lt=job.max_attempts))
    if not conditions:
        return []
    horizon = format_slot(now - job.window)
    return list(
        JobRun.objects.using(conf.DATABASE)
        .filter(
            reduce(operator.or_, conditions),
            job=job.name,
            slot__gte=horizon,
            slot__endswith="Z",
        )
        .order_by("slot")
        .values_list("slot", flat=True)[:RERUN_LIMIT]
    )


def last_recorded_slot(job: Job) -> str | None:
    """The newest cron slot on record for ``job`` (slot strings sort as instants)."""
    slot: str | None = (
        JobRun.objects.using(conf.DATABASE)
        .filter(job=job.name, slot__endswith="Z")
        .order_by("-slot")
        .values_list("slot", flat=True)
        .first()
    )
    return slot
