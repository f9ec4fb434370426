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
from collections.abc import Callable
from contextlib import suppress

from django.db import Error, connections

from horizontal import failpoints, signals
from horizontal.conf import conf
from horizontal.db import Control, Cursor, Dialect, db_now, milliseconds
from horizontal.exceptions import InvalidJob, InvalidSlot, LeaseLost, UnknownJob
from horizontal.jobs import executors, gate, slots
from horizontal.jobs.interrupts import InterruptShield, raised_over_an_interrupt
from horizontal.jobs.registry import Job, registry
from horizontal.jobs.report import Outcome, OutcomeStatus, describe, describe_pause
from horizontal.jobs.run import Interrupted, Run, stop_requested
from horizontal.jobs.validation import describe_errors, job_errors
from horizontal.leases import Heartbeat, Validity
from horizontal.logs import log_fields
from horizontal.models import JobRun

__all__ = [
    "Interrupted",
    "dispatch",
    "due_slots",
    "execute",
    "get_job",
    "run_job",
    "run_job_object",
]

logger = logging.getLogger("horizontal.jobs")

# A tick older than this that nobody claimed is put on record as missed. Younger ones
# may still be in flight from a node whose clock reading came a moment earlier.
MISSED_AFTER = dt.timedelta(seconds=60)
# Missed ticks one pass records one by one (one statement). When a gap holds more, the
# oldest of these rows says that every earlier tick of the gap was missed too.
MISSED_RECORD_LIMIT = 100
# Ticks one catchup="all" pass claims at most; the next pass goes on from the last one.
CATCHUP_ALL_LIMIT = 10_000


class _InterruptedAfter(Interrupted):
    """A signal waited for a slot's result to be recorded: stop after this slot."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def get_job(name: str) -> Job:
    job = registry.get(name)
    if job is None:
        known = ", ".join(registry.names()) or "(none registered)"
        raise UnknownJob(f"unknown job {name!r}; known jobs: {known}")
    return job


class _Clock:
    """The database's now as read at the start of a pass, advanced by the monotonic clock."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now
        self._read_at = time.monotonic()

    def current(self) -> dt.datetime:
        return self.now + dt.timedelta(seconds=time.monotonic() - self._read_at)


def run_job(
    name: str,
    *,
    slot: str | None = None,
    retry: bool = False,
    catch_up: bool = True,
    trigger: str | None = None,
) -> list[Outcome]:
    """Run ``name`` for ``slot`` (or for the slots due now) through the gate.

    ``catch_up=False`` (a scheduler that is not the leader) claims only the one current
    slot: no re-runs of crashed or failed slots, and nothing when ``catchup="all"`` has a
    backlog to work through; the leader does those, oldest first.

    Every trigger comes through here, so a paused job (``horizontal.jobs.control``) is
    refused here: one ``PAUSED`` outcome (exit 0), nothing claimed. ``trigger`` names
    what asked (``JobRun.Trigger``); by default ``schedule`` for the due slots and
    ``manual`` (``retry`` with ``retry``) for a named one.

    A SIGTERM/SIGINT handler's ``Interrupted`` never escapes: it ends the list with an
    ``INTERRUPTED`` outcome, and the slots not yet claimed are left for the next run.
    """
    return run_job_object(get_job(name), slot=slot, retry=retry, catch_up=catch_up, trigger=trigger)


def run_job_object(
    job: Job,
    *,
    slot: str | None = None,
    retry: bool = False,
    catch_up: bool = True,
    trigger: str | None = None,
) -> list[Outcome]:
    """``run_job`` for a ``Job`` that need not be in the registry (a decorated Celery task)."""
    errors = job_errors(job)
    if errors:
        raise InvalidJob(describe_errors(errors))
    outcomes: list[Outcome] = []
    try:
        now, pause = gate.now_and_pause(job)
        if pause is not None:
            return [_paused(job, slot, pause)]
        _run_slots(job, slot, retry, trigger, _Clock(now), outcomes, catch_up=catch_up)
    except Interrupted:
        # Between slots or before the first claim: this process holds no claim.
        outcomes.append(
            Outcome(
                job.name, slot, OutcomeStatus.INTERRUPTED, f"{job.name}: interrupted; no claim held"
            )
        )
    return outcomes


def _paused(job: Job, slot: str | None, pause: Control) -> Outcome:
    return Outcome(job.name, slot, OutcomeStatus.PAUSED, describe_pause(job.name, pause))


def _run_slots(
    job: Job,
    slot: str | None,
    retry: bool,
    trigger: str | None,
    clock: _Clock,
    outcomes: list[Outcome],
    *,
    catch_up: bool = True,
) -> None:
    now = clock.now
    if slot is not None:
        canonical = slots.parse_slot(job, slot, now)
        named = trigger or (JobRun.Trigger.RETRY if retry else JobRun.Trigger.MANUAL)
        try:
            first = dispatch(job, canonical, trigger=named, retry=retry, explicit=True, clock=clock)
        except _InterruptedAfter as stop:
            first = stop.outcome
        outcomes.extend([first] if first else [])
        return
    if job.schedule is None:
        raise InvalidSlot(f"job {job.name!r} has no schedule: name the slot with --slot")
    due, missed = due_slots(job, now)
    outcomes.extend(missed)
    if not catch_up:
        if len(due) > 1:
            return  # a backlog: the leader works through it, oldest first
        due = [(trigger or t, s) for t, s in due]
    else:
        rerun = gate.slots_to_rerun(job, now)
        due = [(JobRun.Trigger.RETRY, s) for s in rerun] + [
            (trigger or t, s) for t, s in due if s not in rerun
        ]
    for index, (due_trigger, due_slot) in enumerate(due):
        if stop_requested():
            raise Interrupted("the scheduler is stopping")  # no claim held: between slots
        try:
            outcome = dispatch(
                job, due_slot, trigger=due_trigger, retry=retry, explicit=False, clock=clock
            )
        except _InterruptedAfter as stop:
            outcomes.append(stop.outcome)
            left = len(due) - index - 1
            if left:
                text = f"{job.name}: interrupted; {left} due slot(s) left for the next run"
                outcomes.append(Outcome(job.name, None, OutcomeStatus.INTERRUPTED, text))
            return
        if outcome is None:  # handed off a moment ago: not again yet
            continue
        outcomes.append(outcome)
        if outcome.status == OutcomeStatus.INTERRUPTED:
            return


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
        _missed(job, [slot], JobRun.Status.MISSED, f"not claimed within {limit}")
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
    _missed(job, [slot for slot, _ in rows], JobRun.Status.MISSED, note)


def _missed(job: Job, missed: list[str], status: str, reason: str) -> None:
    """Tell ``run_missed``'s receivers (slots that already had a row are included)."""
    signals.send(
        signals.run_missed, job, job=job.name, slots=missed, status=str(status), reason=reason
    )


def dispatch(
    job: Job,
    slot: str,
    *,
    trigger: str,
    retry: bool,
    explicit: bool,
    clock: _Clock | None = None,
) -> Outcome | None:
    """Run a due slot here (``execute``), or hand it to the job's executor (``executors``).

    A hand-off returns None when it queued the slot a moment ago and it is not due again.
    """
    if job.executor == "inline":
        return execute(job, slot, trigger=trigger, retry=retry, explicit=explicit, clock=clock)
    return executors.hand_off(job, slot, trigger=trigger, retry=retry, explicit=explicit)


def execute(
    job: Job,
    slot: str,
    *,
    trigger: str,
    retry: bool,
    explicit: bool,
    clock: _Clock | None = None,
) -> Outcome:
    sent_at = time.monotonic()
    # Held from before the claim until _run_claimed's try, which hands the claim back.
    shield = InterruptShield().hold()
    try:
        attempt = gate.claim_slot(job, slot, trigger=trigger, retry=retry, explicit=explicit)
    except BaseException:
        shield.release()
        raise
    if attempt is None:
        if shield.release():
            head = f"{job.name}@{slot}"
            return Outcome(
                job.name, slot, OutcomeStatus.INTERRUPTED, f"{head}: interrupted; not claimed"
            )
        return _not_claimed(job, slot, retry)
    instant = slots.slot_instant(slot)
    claimed_at = (clock or _Clock(db_now(conf.DATABASE))).current()
    lateness = None if instant is None else (claimed_at - instant).total_seconds()
    # Every log line of the run (ours and the body's) carries its job, slot and token.
    with log_fields(job=job.name, slot=slot, token=attempt.claim.token):
        return _run_claimed(attempt, sent_at, shield, trigger, lateness)


def _not_claimed(job: Job, slot: str, retry: bool) -> Outcome:
    row = gate.slot_row(job, slot)
    if row is None:
        other = gate.running_other(job, slot)
        note = f"{other.slot} still running on {other.owner}" if other else "overlap"
        gate.record_slot(job, slot, JobRun.Status.SKIPPED_OVERLAP, note)
        _missed(job, [slot], JobRun.Status.SKIPPED_OVERLAP, note)
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


def _run_claimed(
    attempt: gate.Attempt,
    sent_at: float,
    shield: InterruptShield,
    trigger: str = JobRun.Trigger.SCHEDULE,
    lateness: float | None = None,
) -> Outcome:
    """Run a claimed slot. ``shield`` is held: SIGTERM/SIGINT wait until the ``try``."""
    job, slot, claim = attempt.job, attempt.slot, attempt.claim
    head = f"{job.name}@{slot}"
    about = {
        "job": job.name,
        "slot": slot,
        "run_id": claim.id,
        "token": claim.token,
        "attempt": claim.attempt,
        "trigger": str(trigger),
    }
    error = ""

    def outcome(status: OutcomeStatus, text: str) -> Outcome:
        signals.send(
            signals.run_finished,
            job,
            **about,
            outcome=str(status),
            duration=time.monotonic() - sent_at,
            error=error,
            lateness=lateness,
        )
        return Outcome(job.name, slot, status, f"{head}: {text}", claim.token)

    validity = Validity(attempt.ttl * 2 / 3, sent_at)
    ttl_ms = milliseconds(attempt.ttl)

    def renew(cursor: Cursor, dialect: Dialect) -> bool:
        return dialect.renew_run(cursor, claim.id, claim.token, ttl_ms)

    try:
        run = Run(attempt, validity)
        logger.info("%s: claimed (token %s, attempt %s)", head, claim.token, claim.attempt)
        heartbeat = Heartbeat(attempt.using, validity, attempt.ttl / 3, renew, head).start()
        signals.send(signals.run_claimed, job, **about, lateness=lateness)
    except BaseException:
        shield.release()  # never leave the handlers deferred for good
        raise
    status = JobRun.Status.SUCCEEDED
    try:
        try:
            if shield.release():
                raise Interrupted("while claiming")
            failpoints.hit("after_claim")
            job.func(run)
            failpoints.hit("before_finish")
        finally:
            # From here until the result or the hand-back is recorded, a signal waits.
            shield.hold()
            heartbeat.stop()
            _drop_abandoned_transaction(attempt.using)
    except LeaseLost as exc:
        return _ended(outcome(OutcomeStatus.LOST, f"claim lost, stopped: {exc}"), shield.release())
    except Interrupted:
        return _hand_back(attempt, heartbeat, shield, outcome)
    except Exception as exc:
        if raised_over_an_interrupt(exc):
            # The signal came in the middle of a driver's I/O (the reply to a COMMIT), and
            # the cleanup on the connection it broke raised over it: still an interrupt.
            logger.warning("%s: interrupted; then %r", head, exc)
            return _hand_back(attempt, heartbeat, shield, outcome)
        status = JobRun.Status.FAILED
        error = traceback.format_exc()
        logger.exception("%s: failed", head)
    except BaseException:
        shield.release()  # SystemExit and the like: the claim expires within its TTL
        raise
    try:
        failpoints.hit("during_finish")
        finished = gate.finish(attempt, status, error)
    finally:
        interrupted = shield.release()
    if not finished:
        return _ended(
            outcome(
                OutcomeStatus.LOST,
                "a newer attempt took the slot over; this result was not recorded "
                f"(token {claim.token})",
            ),
            interrupted,
        )
    recorded = "; then interrupted" if interrupted else ""
    if status == JobRun.Status.FAILED:
        last_line = error.strip().splitlines()[-1]
        return _ended(
            outcome(OutcomeStatus.FAILED, f"failed (token {claim.token}): {last_line}{recorded}"),
            interrupted,
        )
    return _ended(
        outcome(
            OutcomeStatus.SUCCEEDED,
            f"succeeded on {attempt.owner} (token {claim.token}, attempt {claim.attempt})"
            f"{recorded}",
        ),
        interrupted,
    )


def _drop_abandoned_transaction(using: str) -> None:
    """Close the connection if the body left it outside autocommit with no atomic block.

    A signal that lands inside ``transaction.atomic().__enter__`` (autocommit already off,
    the block not yet entered) leaves the connection so: the hand-back and the finish
    would then be refused, or, before they were, run in a transaction nothing committed.
    Closing rolls back what the body left half-done; the next statement reconnects.
    """
    connection = connections[using]
    leftover = (
        connection.connection is not None
        and not connection.in_atomic_block
        and not connection.autocommit
        and connection.settings_dict.get("AUTOCOMMIT", True)
    )
    if leftover:
        logger.warning("the job left a transaction open on %r: rolled back", using)
        with suppress(Error):
            connection.close()


def _hand_back(
    attempt: gate.Attempt,
    heartbeat: Heartbeat,
    shield: InterruptShield,
    outcome: Callable[[OutcomeStatus, str], Outcome],
) -> Outcome:
    """An interrupted run gives its claim back, so that another node takes the slot now."""
    heartbeat.stop()
    shield.hold()  # held already, unless the signal came before the finally held it
    try:
        handed_back = gate.hand_back(attempt)
    finally:
        shield.release()  # a second signal changes nothing now
    note = "handed back; another node may claim it now" if handed_back else "already lost"
    return outcome(OutcomeStatus.INTERRUPTED, f"interrupted, claim {note}")


def _ended(result: Outcome, interrupted: bool) -> Outcome:
    """A recorded result; a signal that waited for it stops the slots after this one."""
    if interrupted:
        raise _InterruptedAfter(result)
    return result
