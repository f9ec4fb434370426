"""``horizontal.E010``–``E019``: job registrations that cannot run as written.

``job_errors(job)`` is the one judge of a registration. ``horizontal.checks.jobs`` reports
its errors on every ``check`` (and so at ``runserver``/``migrate`` start-up: a schedule
that does not parse is a broken deploy, not a style issue), and ``runjob`` refuses a job
with any of them (``InvalidJob``). The messages are Django check messages, one factory
per id.
"""

from __future__ import annotations

import zoneinfo

from croniter import croniter
from django.core import checks

from horizontal.jobs.registry import CATCHUP_POLICIES, OVERLAP_POLICIES, Job, registry

__all__ = ["E010", "E011", "E012", "E013", "E014", "E015", "E016", "E017", "job_errors"]


def E010(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has an invalid cron schedule {job.schedule!r}.",
        hint="Use 5 fields (minute hour day month weekday) or 6 with seconds last.",
        obj=job.origin,
        id="horizontal.E010",
    )


def E011(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has an unknown time zone {job.timezone!r}.",
        hint="Use an IANA zone name such as 'UTC' or 'Europe/Berlin'.",
        obj=job.origin,
        id="horizontal.E011",
    )


def E012(name: str, origins: list[str]) -> checks.Error:
    return checks.Error(
        f"Job name {name!r} is registered more than once: {', '.join(origins)}.",
        hint=(
            "Each job needs one name and one registration. The same function under two "
            "module paths means the module is imported twice (e.g. 'app.jobs' and "
            "'project.app.jobs'): import it one way only."
        ),
        obj=name,
        id="horizontal.E012",
    )


def E013(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has catchup={job.catchup!r}.",
        hint=f"Use one of {', '.join(CATCHUP_POLICIES)}.",
        obj=job.origin,
        id="horizontal.E013",
    )


def E014(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has overlap={job.overlap!r}.",
        hint=f"Use one of {', '.join(OVERLAP_POLICIES)}.",
        obj=job.origin,
        id="horizontal.E014",
    )


def E015(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has ttl={job.ttl!r}; a claim needs a positive lifetime.",
        hint="Leave ttl unset (HORIZONTAL_LEASE_TTL) or give a number of seconds > 0.",
        obj=job.origin,
        id="horizontal.E015",
    )


def E016(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has a name longer than 200 characters or with whitespace.",
        hint="Job names are identifiers used on the command line: keep them short.",
        obj=job.origin,
        id="horizontal.E016",
    )


def E017(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has max_attempts={job.max_attempts!r}.",
        hint="Give a whole number >= 1 (1: a failed slot is re-run only with --retry).",
        obj=job.origin,
        id="horizontal.E017",
    )


def job_errors(job: Job) -> list[checks.Error]:
    """Everything wrong with one job's registration."""
    errors = []
    if not job.name or len(job.name) > 200 or any(c.isspace() for c in job.name):
        errors.append(E016(job))
    if job.schedule is not None and not croniter.is_valid(job.schedule):
        errors.append(E010(job))
    try:
        zoneinfo.ZoneInfo(job.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        errors.append(E011(job))
    if job.catchup not in CATCHUP_POLICIES:
        errors.append(E013(job))
    if job.overlap not in OVERLAP_POLICIES:
        errors.append(E014(job))
    if job.ttl is not None and not (isinstance(job.ttl, int | float) and job.ttl > 0):
        errors.append(E015(job))
    if not (isinstance(job.max_attempts, int) and job.max_attempts >= 1):
        errors.append(E017(job))
    if job.name in registry.duplicates:
        errors.append(E012(job.name, registry.duplicates[job.name]))
    return errors
