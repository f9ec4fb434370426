"""Running a job: pick the due slots (policy), claim each through the gate, run, record.

``run_job`` is what ``manage.py runjob`` and the scheduler call; tests call it directly.
It returns one ``Outcome`` per slot it looked at (``jobs/report.py`` says what they mean
and folds them into an exit code).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import traceback

from horizontal import failpoints
from horizontal.conf import conf
from horizontal.db import Cursor, Dialect, db_now, milliseconds, run_statement
from horizontal.exceptions import InvalidJob, InvalidSlot, LeaseLost, UnknownJob
from horizontal.jobs import gate, slots
from horizontal.jobs.registry import Job, registry
from horizontal.jobs.report import Outcome, OutcomeStatus, describe
from horizontal.jobs.run import Run
from horizontal.jobs.validation import describe_errors, job_errors
from horizontal.leases import Heartbeat, Validity
from horizontal.models import JobRun

__all__ = ["Interrupted", "due_slots", "execute", "get_job", "run_job"]

logger = logging.getLogger("horizontal.jobs")

# A tick older than this that nobody claimed is put on record as missed. Younger ones
# may still be in flight from a node whose clock reading came a moment earlier.
MISSED_AFTER = dt.timedelta(seconds=60)
# Missed ticks one pass records one by one (one statement). When a gap holds more, the
# oldest of these rows says that every earlier tick of the gap was missed too.
MISSED_RECORD_LIMIT = 100
# Ticks one catchup="all" pass claims at most; the next pass goes on from the last one.
CATCHUP_ALL_LIMIT = 10_000


class Interrupted(BaseException):
    """Raised in the job's thread by the SIGTERM/SIGINT handler of ``runjob``."""


def get_job(name: str) -> Job:
    job = registry.get(name)
    if job is None:
        known = ", ".join(registry.names()) or "(none registered)"
        raise UnknownJob(f"unknown job {name!r}; known jobs: {known}")
    return job


def run_job(name: str, *, slot: str | None = None, retry: bool = False) -> list[Outcome]:
    """Run ``name`` for ``slot`` (or for the slots due now) through the gate."""
    job = get_job(name)
    errors = job_errors(job)
    if errors:
        raise InvalidJob(describe_errors(errors))
    now = db_now(conf.DATABASE)
    if slot is not None:
        canonical = slots.parse_slot(job, slot, now)
        trigger = JobRun.Trigger.RETRY if retry else JobRun.Trigger.MANUAL
        return [execute(job, canonical, trigger=trigger, retry=retry, explicit=True)]
    if job.schedule is None:
        raise InvalidSlot(f"job {name!r} has no schedule: name the slot with --slot")
    due, outcomes = due_slots(job, now)
    rerun = gate.slots_to_rerun(job, now)
    due = [(JobRun.Trigger.RETRY, s) for s in rerun] + [d for d in due if d[1] not in rerun]
    for due_trigger, due_slot in due:
        outcomes.append(execute(job, due_slot, trigger=due_trigger, retry=retry, explicit=False))
    return outcomes


def due_slots(job: Job, now: dt.datetime) -> tuple[list[tuple[str, str]], list[Outcome]]:
    """Which slots to claim now under the job's catch-up policy, and what was missed."""
    tick = slots.latest_tick(job, now)
    if tick is None:
        return [], [Outcome(job.name, None, OutcomeStatus.IDLE, f"{job.name}: no tick yet")]
    last_text = gate.last_recorded_slot(job)
    last = slots.slot_instant(last_text) if last_text else None
    horizon = now - job.window
    outcomes: list[Outcome] = []
    if job.catchup == "all" and last is not None:
        if last < horizon:
            _record_missed(
                job, last, horizon, f"older than the catch-up window {job.window} when looked at"
            )
        start = max(last, horizon)
        ticks = list(slots.ticks_between(job, start, tick, limit=CATCHUP_ALL_LIMIT + 1))
        if len(ticks) > CATCHUP_ALL_LIMIT:
            # More than one pass claims: the oldest now; the next pass goes on from the
            # last of them (the newest slot on record), so none is skipped.
            ticks = ticks[:CATCHUP_ALL_LIMIT]
        elif tick not in ticks:
            ticks.append(tick)
        due: list[tuple[str, str]] = [
            (JobRun.Trigger.CATCHUP if t != tick else JobRun.Trigger.SCHEDULE, slots.format_slot(t))
            for t in ticks
        ]
        return due, outcomes
    limit = job.grace if job.catchup == "skip" else job.window
    if last is not None:  # a job's first run does not backfill history
        # Ticks before this one that nobody claimed, and old enough not to be in flight.
        before = min(tick - dt.timedelta(seconds=1), now - MISSED_AFTER)
        _record_missed(job, last, before, "no node claimed it")
    if now - tick > limit:
        slot = slots.format_slot(tick)
        gate.record_slot(job, slot, JobRun.Status.MISSED, f"not claimed within {limit}")
        policy = "grace" if job.catchup == "skip" else "catch-up window"
        outcomes.append(
            Outcome(
                job.name,
                slot,
                OutcomeStatus.MISSED,
                f"{job.name}@{slot}: missed; {now - tick} late, past the {policy} {limit}",
            )
        )
        return [], outcomes
    return [(JobRun.Trigger.SCHEDULE, slots.format_slot(tick))], outcomes


def _record_missed(job: Job, after: dt.datetime, until: dt.datetime, note: str) -> None:
    """Put the ticks in ``(after, until]`` on record as missed, in one bounded statement.

    The newest ``MISSED_RECORD_LIMIT`` get a row each. If the gap holds more, the oldest
    row's note says that every earlier tick since ``after`` was missed too: a gap in the
    record is never silent, and a week-long outage of a per-second job costs no more.
    """
    ticks = list(slots.ticks_back(job, after, until, MISSED_RECORD_LIMIT + 1))
    if not ticks:
        return
    rows = [(slots.format_slot(t), note) for t in ticks[:MISSED_RECORD_LIMIT]]
    if len(ticks) > MISSED_RECORD_LIMIT:
        oldest, _ = rows[-1]
        rows[-1] = (
            oldest,
            f"{note}; so was every tick after {slots.format_slot(after)} before this one "
            "(not recorded one by one)",
        )
    gate.record_slots(job, rows, JobRun.Status.MISSED)


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
            OutcomeStatus.SKIPPED_OVERLAP,
            f"{job.name}@{slot}: skipped, {note} (overlap='skip')",
        )
    if row.status == JobRun.Status.RUNNING and job.overlap == "skip":
        # A crashed run left to re-claim, but another slot of the job runs now: the
        # overlap rule held the re-claim back, not a live holder of this slot.
        other = gate.running_other(job, slot)
        if other is not None and row.expires_at <= db_now(conf.DATABASE) < other.expires_at:
            return Outcome(
                job.name,
                slot,
                OutcomeStatus.SKIPPED_OVERLAP,
                f"{job.name}@{slot}: re-claim deferred, {other.slot} still running on "
                f"{other.owner} (overlap='skip'); a later pass re-claims it",
                row.token,
            )
    return Outcome(job.name, slot, OutcomeStatus.TAKEN, describe(row, retry), row.token)


def _run_claimed(attempt: gate.Attempt, sent_at: float) -> Outcome:
    job, slot, claim = attempt.job, attempt.slot, attempt.claim
    head = f"{job.name}@{slot}"

    def outcome(status: OutcomeStatus, text: str) -> Outcome:
        return Outcome(job.name, slot, status, f"{head}: {text}", claim.token)

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
        return outcome(OutcomeStatus.LOST, f"claim lost, stopped: {exc}")
    except Interrupted:
        heartbeat.stop()
        handed_back = run_statement(
            attempt.using, lambda c, d: d.expire_run(c, claim.id, claim.token)
        )
        note = "handed back; another node may claim it now" if handed_back else "already lost"
        return outcome(OutcomeStatus.INTERRUPTED, f"interrupted, claim {note}")
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
        return outcome(
            OutcomeStatus.LOST,
            "a newer attempt took the slot over; this result was not recorded "
            f"(token {claim.token})",
        )
    if status == JobRun.Status.FAILED:
        last_line = error.strip().splitlines()[-1]
        return outcome(OutcomeStatus.FAILED, f"failed (token {claim.token}): {last_line}")
    return outcome(
        OutcomeStatus.SUCCEEDED,
        f"succeeded on {attempt.owner} (token {claim.token}, attempt {claim.attempt})",
    )
