"""What ``manage.py jobs`` shows: the registry joined with the run history and attempts.

``job_summaries`` is the text listing; ``job_records`` the same as plain data (``--format
json``); ``check_jobs`` the monitor (``--check``): for every scheduled job, whether its
latest due slot ran. A job whose registration has an error (``horizontal.E0xx``) is
listed with it, ids first, in place of its next slot: the other jobs are listed as ever.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.jobs import slots
from horizontal.jobs.control import paused_jobs
from horizontal.jobs.registry import Job, registry
from horizontal.jobs.report import format_instant
from horizontal.jobs.validation import describe_errors, job_errors
from horizontal.models import JobAttempt, JobControl, JobRun

__all__ = [
    "CheckResult",
    "CheckStatus",
    "JobSummary",
    "check_jobs",
    "job_records",
    "job_summaries",
]


@dataclass(frozen=True)
class JobSummary:
    title: str
    details: list[str]
    runs: list[str]


def _recent_runs(names: list[str], recent: int) -> dict[str, list[JobRun]]:
    runs: dict[str, list[JobRun]] = {}
    for name in names:
        rows = JobRun.objects.using(conf.DATABASE).filter(job=name).order_by("-slot")[:recent]
        runs[name] = list(rows)
    return runs


def _attempts_of(runs: list[JobRun]) -> dict[int, list[JobAttempt]]:
    """The attempts of ``runs``, oldest first, by run id (one query)."""
    found: dict[int, list[JobAttempt]] = defaultdict(list)
    ids = [run.pk for run in runs]
    if ids:
        rows = JobAttempt.objects.using(conf.DATABASE).filter(job_run_id__in=ids)
        for row in rows.order_by("job_run_id", "token"):
            found[row.job_run_id].append(row)
    return found


def _pause_text(control: JobControl) -> str:
    who = f" by {control.changed_by}" if control.changed_by else ""
    note = f" ({control.note})" if control.note else ""
    return f"PAUSED{who} at {format_instant(control.changed_at)}{note}"


def _took(row: JobRun | JobAttempt, end: dt.datetime | None) -> str:
    if end is None:
        return ""
    return f" in {(end - row.claimed_at).total_seconds():.1f} s"


def job_summaries(recent: int = 5) -> list[JobSummary]:
    """Every registered job, by name, with its ``recent`` latest runs and their attempts."""
    now = db_now(conf.DATABASE)
    names = registry.names()
    paused = paused_jobs()
    history = _recent_runs(names, recent)
    attempts = _attempts_of([run for rows in history.values() for run in rows])
    summaries = []
    for name in names:
        job = registry.jobs[name]
        schedule = f"{job.schedule} ({job.timezone})" if job.schedule else "manual (--slot)"
        errors = job_errors(job)
        if errors:
            upcoming = f"error: {describe_errors(errors)} (runjob refuses it)"
        else:
            nxt = slots.next_tick(job, now)
            upcoming = f"next slot: {slots.format_slot(nxt) if nxt else '-'}"
        # Who runs it, when not the process that finds it due (docs/triggers.md).
        handed = "" if job.executor == "inline" else f", executor={job.executor}"
        details = [
            f"schedule: {schedule}; catchup={job.catchup}, overlap={job.overlap}{handed}",
            upcoming,
            f"defined in: {job.origin}",
        ]
        if name in paused:
            details.insert(0, _pause_text(paused[name]))
        runs = []
        for row in history[name]:
            took = ""
            if row.status in (JobRun.Status.SUCCEEDED, JobRun.Status.FAILED):
                took = _took(row, row.finished_at)
            expired = (
                " (claim expired: crashed?)"
                if row.status == JobRun.Status.RUNNING and row.expires_at <= now
                else ""
            )
            runs.append(
                f"{row.slot}  {row.status}{took}{expired}  on {row.owner or '-'}  "
                f"token {row.token}, attempt {row.attempt}, "
                f"finished {format_instant(row.finished_at)}"
            )
            for attempt in attempts.get(row.pk, []):
                runs.append(f"  {_attempt_line(attempt)}")
        summaries.append(JobSummary(f"{name}: {job.description or ''}".rstrip(": "), details, runs))
    return summaries


def _attempt_line(attempt: JobAttempt) -> str:
    ended = (
        f", ended {format_instant(attempt.finished_at)}{_took(attempt, attempt.finished_at)}"
        if attempt.finished_at
        else ""
    )
    why = ""
    if attempt.error and attempt.outcome != JobAttempt.Outcome.SUCCEEDED:
        why = f": {(attempt.error.strip().splitlines() or [''])[-1]}"
    return (
        f"attempt {attempt.attempt} (token {attempt.token}, {attempt.trigger}) on "
        f"{attempt.owner}: {attempt.outcome}; claimed {format_instant(attempt.claimed_at)}"
        f"{ended}{why}"
    )


# -- machines: --format json ----------------------------------------------------------


def _instant(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat()


def _attempt_record(attempt: JobAttempt) -> dict[str, Any]:
    return {
        "attempt": attempt.attempt,
        "token": attempt.token,
        "instance": attempt.owner,
        "trigger": attempt.trigger,
        "claimed_at": _instant(attempt.claimed_at),
        "started_at": _instant(attempt.started_at),
        "finished_at": _instant(attempt.finished_at),
        "outcome": attempt.outcome,
        "error": attempt.error,
    }


def job_records(recent: int = 5) -> list[dict[str, Any]]:
    """``job_summaries`` as data: every job with its runs and each run's attempts.

    Instants are ISO 8601 UTC strings (None when unset); durations are seconds.
    """
    now = db_now(conf.DATABASE)
    names = registry.names()
    paused = paused_jobs()
    history = _recent_runs(names, recent)
    attempts = _attempts_of([run for rows in history.values() for run in rows])
    checks = {result.job: result for result in check_jobs(now=now)}
    records = []
    for name in names:
        job = registry.jobs[name]
        errors = job_errors(job)
        nxt = None if errors else slots.next_tick(job, now)
        control = paused.get(name)
        check = checks.get(name)
        records.append(
            {
                "name": name,
                "description": job.description,
                "schedule": job.schedule,
                "timezone": job.timezone,
                "catchup": job.catchup,
                "overlap": job.overlap,
                "grace_seconds": job.grace.total_seconds(),
                "defined_in": job.origin,
                "errors": [f"{error.id}: {error.msg}" for error in errors],
                "next_slot": slots.format_slot(nxt) if nxt else None,
                "paused": None
                if control is None
                else {
                    "by": control.changed_by,
                    "at": _instant(control.changed_at),
                    "note": control.note,
                },
                "check": None if check is None else check.as_dict(),
                "runs": [
                    {
                        "slot": row.slot,
                        "status": row.status,
                        "instance": row.owner,
                        "token": row.token,
                        "attempt": row.attempt,
                        "trigger": row.trigger,
                        "claimed_at": _instant(row.claimed_at),
                        "heartbeat_at": _instant(row.heartbeat_at),
                        "expires_at": _instant(row.expires_at),
                        "finished_at": _instant(row.finished_at),
                        "claim_expired": row.status == JobRun.Status.RUNNING
                        and row.expires_at <= now,
                        "error": row.error,
                        "attempts": [_attempt_record(a) for a in attempts.get(row.pk, [])],
                    }
                    for row in history[name]
                ],
            }
        )
    return records


# -- monitoring: --check ----------------------------------------------------------------


class CheckStatus(StrEnum):
    OK = "ok"
    PENDING = "pending"  # the latest tick is within its grace and not claimed yet
    RUNNING = "running"
    PAUSED = "paused"
    UNSCHEDULED = "unscheduled"  # runs only with --slot: nothing is due
    # The failures: each makes `jobs --check` exit 1.
    MISSED = "missed"
    FAILED = "failed"
    LATE = "late"
    ERROR = "error"


FAILING = frozenset({CheckStatus.MISSED, CheckStatus.FAILED, CheckStatus.LATE, CheckStatus.ERROR})


@dataclass(frozen=True)
class CheckResult:
    job: str
    status: CheckStatus
    slot: str | None
    reason: str

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "failing": self.failing,
            "slot": self.slot,
            "reason": self.reason,
        }

    def __str__(self) -> str:
        head = "FAIL" if self.failing else "ok  "
        where = f"{self.job}@{self.slot}" if self.slot else self.job
        return f"{head} {where}: {self.status}: {self.reason}"


def check_jobs(now: dt.datetime | None = None) -> list[CheckResult]:
    """Whether every scheduled job's latest due slot ran: one result per job.

    The slot looked at is the latest tick; while it is younger than the job's ``grace``
    and has no row yet, the tick before it (whose grace has passed) is looked at
    instead, so a job that stopped running altogether fails within one period plus its
    grace. A slot fails when it is ``missed``/``skipped_overlap``, ``failed`` or
    ``abandoned``, still ``running`` on an expired claim, or has no row past its grace
    (``late``). A paused job and a job without a schedule pass, and say so.
    """
    now = db_now(conf.DATABASE) if now is None else now
    paused = paused_jobs()
    results = []
    for name in registry.names():
        job = registry.jobs[name]
        results.append(_check_one(job, now, paused.get(name)))
    return results


def _check_one(job: Job, now: dt.datetime, control: JobControl | None) -> CheckResult:
    def result(status: CheckStatus, slot: str | None, reason: str) -> CheckResult:
        return CheckResult(job.name, status, slot, reason)

    errors = job_errors(job)
    if errors:
        return result(CheckStatus.ERROR, None, describe_errors(errors))
    if control is not None:
        return result(CheckStatus.PAUSED, None, _pause_text(control))
    if job.schedule is None:
        return result(CheckStatus.UNSCHEDULED, None, "runs only with --slot")
    tick = slots.latest_tick(job, now)
    if tick is None:
        return result(CheckStatus.OK, None, "no tick yet")
    slot = slots.format_slot(tick)
    row = JobRun.objects.using(conf.DATABASE).filter(job=job.name, slot=slot).first()
    if row is None and now - tick <= job.grace:
        earlier = slots.latest_tick(job, now - job.grace)
        if earlier is None:
            return result(CheckStatus.PENDING, slot, f"not claimed yet, within grace {job.grace}")
        previous = slots.format_slot(earlier)
        previous_row = JobRun.objects.using(conf.DATABASE).filter(job=job.name, slot=previous)
        found = previous_row.first()
        if found is None:
            # The grace of this earlier tick has passed: it should have run.
            return result(
                CheckStatus.LATE,
                previous,
                f"no run {now - earlier} after the tick, past its grace {job.grace}",
            )
        return _judge(job, found, now, result)
    if row is None:
        late = f"no run {now - tick} after the tick, past its grace {job.grace}"
        return result(CheckStatus.LATE, slot, late)
    return _judge(job, row, now, result)


_Result = Callable[[CheckStatus, str | None, str], CheckResult]


def _judge(job: Job, row: JobRun, now: dt.datetime, result: _Result) -> CheckResult:
    status = row.status
    when = format_instant(row.finished_at or row.claimed_at)
    if status == JobRun.Status.SUCCEEDED:
        return result(CheckStatus.OK, row.slot, f"succeeded on {row.owner} at {when}")
    if status == JobRun.Status.RUNNING:
        if row.expires_at <= now:
            return result(
                CheckStatus.FAILED,
                row.slot,
                f"claim of {row.owner} expired at {format_instant(row.expires_at)} (crashed?) "
                "and not re-claimed",
            )
        return result(
            CheckStatus.RUNNING,
            row.slot,
            f"running on {row.owner} since {format_instant(row.claimed_at)}",
        )
    last_line = (row.error.strip().splitlines() or [""])[-1]
    if status in (JobRun.Status.MISSED, JobRun.Status.SKIPPED_OVERLAP):
        return result(CheckStatus.MISSED, row.slot, f"{status}: {last_line}")
    return result(CheckStatus.FAILED, row.slot, f"{status} on {row.owner} at {when}: {last_line}")
