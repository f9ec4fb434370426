"""Running a job: pick the due slots, claim each through the gate, run, record.

``run_job`` is what ``manage.py runjob`` calls; tests call it directly. It returns one
``Outcome`` per slot it looked at; ``exit_code`` folds them into the command's status.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import traceback
from typing import Any, NamedTuple

from django.db import connections
from django.db.models import QuerySet

from horizontal import failpoints
from horizontal.conf import conf
from horizontal.db import Cursor, Dialect, dialect_for, milliseconds, run_statement
from horizontal.exceptions import FencedOut, InvalidSlot, LeaseLost, UnknownJob
from horizontal.jobs import gate, slots
from horizontal.jobs.registry import Job, registry
from horizontal.leases import Heartbeat, Validity, fenced_update
from horizontal.models import JobRun

logger = logging.getLogger("horizontal.jobs")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOST = 3
EXIT_INTERRUPTED = 4

# A tick older than this that nobody claimed is put on record as missed. Younger ones
# may still be in flight from a node whose clock reading came a moment earlier.
MISSED_AFTER = dt.timedelta(seconds=60)
MISSED_RECORD_LIMIT = 100


class Interrupted(BaseException):
    """Raised in the job's thread by the SIGTERM/SIGINT handler of ``runjob``."""


class Run:
    """The claimed run handed to the job body.

    ``token`` fences every write of this attempt; ``effect()`` and ``fence()`` refuse to
    write once a newer attempt holds the slot; ``check()`` raises ``LeaseLost`` once this
    process can no longer be sure it holds the claim.
    """

    def __init__(self, attempt: gate.Attempt, validity: Validity) -> None:
        self.job = attempt.job
        self.slot = attempt.slot
        self.id = attempt.claim.id
        self.token = attempt.claim.token
        self.attempt = attempt.claim.attempt
        self.owner = attempt.owner
        self.using = attempt.using
        self._validity = validity

    def __repr__(self) -> str:
        return f"<Run {self.job.name}@{self.slot} token={self.token} attempt={self.attempt}>"

    @property
    def slot_time(self) -> dt.datetime | None:
        """The slot's instant (UTC), or None for a free-form slot."""
        return slots.slot_instant(self.slot)

    @property
    def slot_date(self) -> dt.date | None:
        """The slot's calendar date in the job's time zone."""
        instant = self.slot_time
        return None if instant is None else instant.astimezone(slots.zone(self.job)).date()

    @property
    def valid(self) -> bool:
        return self._validity.valid

    def check(self) -> None:
        """A checkpoint: raise ``LeaseLost`` if the claim may have passed to another node."""
        self._validity.check(f"run {self.job.name}@{self.slot} (token {self.token})")

    def _held(self, cursor: Cursor, dialect: Dialect) -> bool:
        return dialect.run_is_held(cursor, self.id, self.token)

    def effect(self, key: str) -> bool:
        """Record the idempotency key ``key`` in the caller's open transaction.

        True: the key is new, go ahead with the effect in this same transaction. False:
        an earlier attempt already committed it, skip the effect. Raises ``FencedOut``
        when a newer attempt holds the slot; the transaction should then roll back.
        """
        connection = connections[self.using]
        if not connection.in_atomic_block:
            raise RuntimeError(
                "run.effect() must be called inside transaction.atomic() together with "
                "the write it guards, so both commit or neither does"
            )
        if len(key) > 255:
            raise ValueError("effect keys are at most 255 characters")
        self.check()
        dialect = dialect_for(connection)
        with connection.cursor() as cursor:
            if not self._held(cursor, dialect):
                raise FencedOut(
                    f"run {self.job.name}@{self.slot} token {self.token} was taken over; "
                    f"effect {key!r} not recorded"
                )
            return dialect.insert_effect(cursor, key, self.id, self.token)

    def fence(self, queryset: QuerySet[Any], **updates: Any) -> int:
        """``queryset.update(**updates)`` only while this attempt holds the slot.

        Returns the number of rows updated; raises ``FencedOut`` (changing nothing) when a
        newer attempt holds the slot.
        """
        self.check()
        return fenced_update(
            self.using,
            queryset,
            updates,
            held=self._held,
            guard=JobRun.objects.filter(pk=self.id, token=self.token),
            what=f"run {self.job.name}@{self.slot} token {self.token}",
        )


class Outcome(NamedTuple):
    job: str
    slot: str | None
    status: str  # succeeded, failed, lost, interrupted, taken, missed, skipped_overlap, idle
    message: str
    token: int | None = None

    @property
    def exit_code(self) -> int:
        return {
            "failed": EXIT_FAILED,
            "lost": EXIT_LOST,
            "interrupted": EXIT_INTERRUPTED,
        }.get(self.status, EXIT_OK)


def exit_code(outcomes: list[Outcome]) -> int:
    codes = {o.exit_code for o in outcomes}
    for code in (EXIT_INTERRUPTED, EXIT_LOST, EXIT_FAILED):
        if code in codes:
            return code
    return EXIT_OK


def get_job(name: str) -> Job:
    job = registry.get(name)
    if job is None:
        known = ", ".join(registry.names()) or "(none registered)"
        raise UnknownJob(f"unknown job {name!r}; known jobs: {known}")
    return job


def db_now() -> dt.datetime:
    return run_statement(conf.DATABASE, lambda cursor, dialect: dialect.db_now(cursor))


def run_job(name: str, *, slot: str | None = None, retry: bool = False) -> list[Outcome]:
    """Run ``name`` for ``slot`` (or for the slots due now) through the gate."""
    from horizontal.checks.jobs import job_errors

    job = get_job(name)
    errors = job_errors(job)
    if errors:
        raise InvalidSlot("; ".join(e.msg for e in errors))
    now = db_now()
    if slot is not None:
        canonical = slots.parse_slot(job, slot, now)
        trigger = JobRun.Trigger.RETRY if retry else JobRun.Trigger.MANUAL
        return [execute(job, canonical, trigger=trigger, retry=retry, explicit=True)]
    if job.schedule is None:
        raise InvalidSlot(f"job {name!r} has no schedule: name the slot with --slot")
    due, outcomes = due_slots(job, now)
    rerun = gate.slots_to_rerun(job, now)
    due = [(JobRun.Trigger.RETRY, s) for s in rerun] + [d for d in due if d[1] not in rerun]
    for trigger, due_slot in due:
        outcomes.append(execute(job, due_slot, trigger=trigger, retry=retry, explicit=False))
    return outcomes


def due_slots(job: Job, now: dt.datetime) -> tuple[list[tuple[str, str]], list[Outcome]]:
    """Which slots to claim now under the job's catch-up policy, and what was missed."""
    tick = slots.latest_tick(job, now)
    if tick is None:
        return [], [Outcome(job.name, None, "idle", f"{job.name}: no tick yet")]
    last_text = gate.last_recorded_slot(job)
    last = slots.slot_instant(last_text) if last_text else None
    horizon = now - job.window
    outcomes: list[Outcome] = []
    if job.catchup == "all" and last is not None:
        start = max(last, horizon)
        due = [
            (JobRun.Trigger.CATCHUP if t != tick else JobRun.Trigger.SCHEDULE, t)
            for t in slots.ticks_between(job, start, tick)
        ]
        if tick not in {t for _, t in due}:
            due.append((JobRun.Trigger.SCHEDULE, tick))
        return [(trigger, slots.format_slot(t)) for trigger, t in due], outcomes
    limit = job.grace if job.catchup == "skip" else job.window
    _record_missed(job, last, tick, now)
    if now - tick > limit:
        slot = slots.format_slot(tick)
        gate.record_slot(job, slot, JobRun.Status.MISSED, f"not claimed within {limit}")
        policy = "grace" if job.catchup == "skip" else "catch-up window"
        outcomes.append(
            Outcome(
                job.name,
                slot,
                "missed",
                f"{job.name}@{slot}: missed; {now - tick} late, past the {policy} {limit}",
            )
        )
        return [], outcomes
    return [(JobRun.Trigger.SCHEDULE, slots.format_slot(tick))], outcomes


def _record_missed(job: Job, last: dt.datetime | None, tick: dt.datetime, now: dt.datetime) -> None:
    """Put ticks between the last recorded slot and ``tick`` on record as missed."""
    if last is None:
        return  # a job's first run does not backfill history
    cutoff = now - MISSED_AFTER
    missed = [t for t in slots.ticks_between(job, last, tick) if t < tick and t < cutoff]
    for t in missed[-MISSED_RECORD_LIMIT:]:
        gate.record_slot(job, slots.format_slot(t), JobRun.Status.MISSED, "no node claimed it")


def execute(job: Job, slot: str, *, trigger: str, retry: bool, explicit: bool) -> Outcome:
    sent_at = time.monotonic()
    attempt = gate.claim_slot(job, slot, trigger=trigger, retry=retry, explicit=explicit)
    if attempt is None:
        return _not_claimed(job, slot, retry)
    return _run_claimed(attempt, sent_at)


def _not_claimed(job: Job, slot: str, retry: bool) -> Outcome:
    row = gate.slot_row(job, slot)
    if row is None:
        other = gate.running_other(job, slot)
        note = f"{other.slot} still running on {other.owner}" if other else "overlap"
        gate.record_slot(job, slot, JobRun.Status.SKIPPED_OVERLAP, note)
        return Outcome(
            job.name,
            slot,
            "skipped_overlap",
            f"{job.name}@{slot}: skipped, {note} (overlap='skip')",
        )
    return Outcome(job.name, slot, "taken", describe(row, retry), row.token)


def describe(row: JobRun, retry: bool = False) -> str:
    head = f"{row.job}@{row.slot}"
    when = _fmt(row.finished_at or row.claimed_at)
    ident = f"token {row.token}, attempt {row.attempt}"
    if row.status == JobRun.Status.RUNNING:
        return (
            f"{head}: already running on {row.owner} since {_fmt(row.claimed_at)} "
            f"({ident}; claim valid until {_fmt(row.expires_at)})"
        )
    if row.status == JobRun.Status.SUCCEEDED:
        took = (row.finished_at - row.claimed_at).total_seconds() if row.finished_at else 0
        return f"{head}: already succeeded on {row.owner} at {when} ({ident}, took {took:.1f} s)"
    if row.status in (JobRun.Status.FAILED, JobRun.Status.ABANDONED):
        first = (row.error.strip().splitlines() or [""])[-1]
        hint = "" if retry else "; run again with --retry to re-run it"
        return f"{head}: {row.status} on {row.owner} at {when} ({ident}): {first}{hint}"
    return (
        f"{head}: recorded as {row.status} at {when} ({row.error}); name it with --slot to run it"
    )


def _fmt(value: dt.datetime | None) -> str:
    if value is None:
        return "-"
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"


def _run_claimed(attempt: gate.Attempt, sent_at: float) -> Outcome:
    job, slot, claim = attempt.job, attempt.slot, attempt.claim
    head = f"{job.name}@{slot}"
    validity = Validity(attempt.ttl * 2 / 3, sent_at)

    ttl_ms = milliseconds(attempt.ttl)

    def renew(cursor: Cursor, dialect: Dialect) -> bool:
        return dialect.renew_run(cursor, claim.id, claim.token, ttl_ms)

    run = Run(attempt, validity)
    logger.info("%s: claimed (token %s, attempt %s)", head, claim.token, claim.attempt)
    heartbeat = Heartbeat(attempt.using, validity, attempt.ttl / 3, renew, head).start()
    error = ""
    status = JobRun.Status.SUCCEEDED
    try:
        failpoints.hit("after_claim")
        job.func(run)
        failpoints.hit("before_finish")
    except LeaseLost as exc:
        heartbeat.stop()
        return Outcome(job.name, slot, "lost", f"{head}: claim lost, stopped: {exc}", claim.token)
    except Interrupted:
        heartbeat.stop()
        handed_back = run_statement(
            attempt.using, lambda c, d: d.expire_run(c, claim.id, claim.token)
        )
        note = "handed back; another node may claim it now" if handed_back else "already lost"
        return Outcome(
            job.name, slot, "interrupted", f"{head}: interrupted, claim {note}", claim.token
        )
    except Exception:
        status = JobRun.Status.FAILED
        error = traceback.format_exc()
        logger.exception("%s: failed", head)
    finally:
        heartbeat.stop()
    finished = run_statement(
        attempt.using, lambda c, d: d.finish_run(c, claim.id, claim.token, status, error)
    )
    if not finished:
        return Outcome(
            job.name,
            slot,
            "lost",
            f"{head}: a newer attempt took the slot over; this result was not "
            f"recorded (token {claim.token})",
            claim.token,
        )
    if status == JobRun.Status.FAILED:
        last_line = error.strip().splitlines()[-1]
        return Outcome(
            job.name,
            slot,
            "failed",
            f"{head}: failed (token {claim.token}): {last_line}",
            claim.token,
        )
    return Outcome(
        job.name,
        slot,
        "succeeded",
        f"{head}: succeeded on {attempt.owner} (token {claim.token}, attempt {claim.attempt})",
        claim.token,
    )
