"""``horizontal.E010``–``E019``: job registrations that cannot run as written.

``job_errors(job)`` is the one judge of a registration. ``horizontal.checks.jobs`` reports
its errors on every ``check`` (and so at ``runserver``/``migrate`` start-up: a schedule
that does not parse, or parses and never fires, is a broken deploy, not a style issue),
``runjob`` refuses a job with any of them (``InvalidJob``), and the scheduler and
``manage.py jobs`` show them instead of crashing on them. The messages are Django check
messages, one factory per id.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from croniter import CroniterBadDateError, CroniterError, croniter
from django.core import checks

from horizontal.jobs.registry import CATCHUP_POLICIES, OVERLAP_POLICIES, Job, registry
from horizontal.leases import MAX_TTL, name_problem

__all__ = [
    "E010",
    "E011",
    "E012",
    "E013",
    "E014",
    "E015",
    "E016",
    "E017",
    "E018",
    "RESERVED_JOB_PREFIX",
    "describe_errors",
    "job_errors",
    "schedule_problem",
]

# Gate names horizontal keeps for itself: release hooks are ``horizontal:release:<name>``.
# Compared case-blind, as the lease names are.
RESERVED_JOB_PREFIX = "horizontal:"

# The fields of a cron expression in croniter's order (seconds, when given, come last),
# with the values each takes.
CRON_FIELDS = (
    ("minute", "0-59"),
    ("hour", "0-23"),
    ("day of month", "1-31 or L"),
    ("month", "1-12 or jan-dec"),
    ("day of week", "0-7 or sun-sat"),
    ("second", "0-59"),
)


def E010(job: Job, reason: str) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has an invalid cron schedule {job.schedule!r}.",
        hint=(
            f"{reason[:1].upper()}{reason[1:]}. A schedule is 5 fields (minute hour day "
            "month weekday), or 6 with seconds last."
        ),
        obj=job.origin,
        id="horizontal.E010",
    )


def E018(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has a cron schedule {job.schedule!r} that never fires: no "
        "date matches every field.",
        hint=(
            "A day that no month in the schedule has (30 February, 31 April) matches "
            "nothing: fix the day-of-month or month field ('L' is the last day of a month)."
        ),
        obj=job.origin,
        id="horizontal.E018",
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
        f"Job {job.name!r} has ttl={job.ttl!r}; a claim needs a positive lifetime of at "
        f"most {MAX_TTL:g} s.",
        hint="Leave ttl unset (HORIZONTAL_LEASE_TTL) or give a number of seconds > 0.",
        obj=job.origin,
        id="horizontal.E015",
    )


def E016(job: Job) -> checks.Error:
    return checks.Error(
        f"Job {job.name!r} has a name that is empty, longer than 200 characters, has "
        "whitespace, control characters or text that is not UTF-8, or starts with "
        f"{RESERVED_JOB_PREFIX!r}.",
        hint=(
            "Job names are identifiers used on the command line: keep them short. Names "
            f"starting with {RESERVED_JOB_PREFIX!r} are horizontal's own gate names "
            "(release hooks)."
        ),
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


def schedule_problem(schedule: object) -> str | None:
    """Why croniter refuses ``schedule`` (naming the field to blame), or None if it parses."""
    if not isinstance(schedule, str):
        return f"a cron expression is a string, not {type(schedule).__name__}"
    try:
        croniter.expand(schedule)
    except CroniterError as exc:
        reason = _croniter_reason(exc, schedule)
    else:
        return None
    fields = schedule.split()
    if len(fields) in (5, 6):
        # Which field: each one alone among wildcards.
        for index, field in enumerate(fields):
            alone = " ".join(field if i == index else "*" for i in range(len(fields)))
            try:
                croniter.expand(alone)
            except CroniterError as exc:
                name, values = CRON_FIELDS[index]
                why = _croniter_reason(exc, alone)
                if why == "out of range":
                    return f"{name} {field} is out of range ({values})"
                return f"{name} {field!r}: {why} ({values})"
    return reason


def _croniter_reason(exc: ValueError, expression: str) -> str:
    # croniter says "[61 * * * *] is not acceptable, out of range": keep what follows.
    text = str(exc).removeprefix(f"[{expression}] ")
    text = text.removeprefix("is not acceptable, ").removeprefix("is not acceptable")
    return text.rstrip(".") or "not a valid value"


def never_fires(job: Job) -> bool:
    """True if the (parsing) schedule has no tick from now on: 30 February."""
    assert job.schedule is not None
    try:
        tz: dt.tzinfo = zoneinfo.ZoneInfo(job.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        tz = dt.UTC  # E011 reports the zone; the schedule is judged on its own
    try:
        croniter(job.schedule, dt.datetime.now(tz)).get_next(dt.datetime)
    except (CroniterBadDateError, OverflowError):
        return True
    return False


def job_errors(job: Job) -> list[checks.Error]:
    """Everything wrong with one job's registration."""
    errors = []
    # Names are stored and compared like lease names (1-200 characters, UTF-8, no
    # control characters) and typed on command lines (no whitespace).
    if (
        name_problem(job.name) is not None
        or any(c.isspace() for c in job.name)
        or job.name.casefold().startswith(RESERVED_JOB_PREFIX)
    ):
        errors.append(E016(job))
    if job.schedule is not None:
        problem = schedule_problem(job.schedule)
        if problem is not None:
            errors.append(E010(job, problem))
        elif never_fires(job):
            errors.append(E018(job))
    try:
        zoneinfo.ZoneInfo(job.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        errors.append(E011(job))
    if job.catchup not in CATCHUP_POLICIES:
        errors.append(E013(job))
    if job.overlap not in OVERLAP_POLICIES:
        errors.append(E014(job))
    if job.ttl is not None and not (isinstance(job.ttl, int | float) and 0 < job.ttl <= MAX_TTL):
        errors.append(E015(job))
    if not (isinstance(job.max_attempts, int) and job.max_attempts >= 1):
        errors.append(E017(job))
    if job.name in registry.duplicates:
        errors.append(E012(job.name, registry.duplicates[job.name]))
    return errors


def describe_errors(errors: list[checks.Error]) -> str:
    """One line for a job's errors, each with its id: what ``runjob`` and ``jobs`` print."""
    return "; ".join(f"{error.id}: {error.msg}" for error in errors)
