"""What ``manage.py jobs`` shows: the registry joined with the run history.

A job whose registration has an error (``horizontal.E0xx``) is listed with it, ids
first, in place of its next slot: the other jobs are listed as ever.
"""

from __future__ import annotations

from dataclasses import dataclass

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.jobs import slots
from horizontal.jobs.registry import registry
from horizontal.jobs.report import format_instant
from horizontal.jobs.validation import describe_errors, job_errors
from horizontal.models import JobRun

__all__ = ["JobSummary", "job_summaries"]


@dataclass(frozen=True)
class JobSummary:
    title: str
    details: list[str]
    runs: list[str]


def job_summaries(recent: int = 5) -> list[JobSummary]:
    """Every registered job, by name, with its ``recent`` latest runs."""
    now = db_now(conf.DATABASE)
    summaries = []
    for name in registry.names():
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
        rows = JobRun.objects.using(conf.DATABASE).filter(job=name).order_by("-slot")[:recent]
        runs = []
        for row in rows:
            took = ""
            if row.finished_at and row.status in (JobRun.Status.SUCCEEDED, JobRun.Status.FAILED):
                took = f" in {(row.finished_at - row.claimed_at).total_seconds():.1f} s"
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
        summaries.append(JobSummary(f"{name}: {job.description or ''}".rstrip(": "), details, runs))
    return summaries
