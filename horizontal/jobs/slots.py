"""From a cron schedule and the database's now to slots: deterministic UTC instants.

A slot is the scheduled instant, never "now": every node that asks for the latest slot
of ``0 0 * * *`` at 00:00:03 or at 00:07 gets the same ``2026-11-29T00:00:00Z``.

Daylight-saving rule (documented in docs/jobs.md): the schedule is read as wall-clock
time in the job's time zone. A wall time that does not exist (the spring-forward gap)
runs once, at the first instant after the gap. A wall time that happens twice (the
fall-back hour) runs once, at its first occurrence, unless the hour field is ``*`` or a
step (the job runs every hour or more often): then the repeated hour runs again, as the
elapsed time demands.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable, Iterator

from croniter import CroniterBadDateError, croniter

from horizontal.exceptions import InvalidSlot
from horizontal.jobs.registry import Job
from horizontal.leases import name_problem

SLOT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# The longest free-form slot (a release id): the column's width.
MAX_SLOT_LENGTH = 64
# Years a cron slot may name. Before 1970 nothing ran; the upper bound keeps every
# conversion (time zones, the window, the next second) inside what datetime can hold.
FIRST_SLOT_YEAR = 1970
LAST_SLOT_YEAR = 9998


def format_slot(instant: dt.datetime) -> str:
    """The canonical slot string: always four-digit years, so slots sort as instants.

    (Not ``strftime("%Y")``: glibc writes year 999 as ``999``, which sorts after 2026.)
    """
    utc = instant.astimezone(dt.UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"
    )


def slot_instant(slot: str) -> dt.datetime | None:
    """The UTC instant of a cron slot string, or None for a free-form slot (release id)."""
    try:
        return dt.datetime.strptime(slot, SLOT_FORMAT).replace(tzinfo=dt.UTC)
    except ValueError:
        return None


def zone(job: Job) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(job.timezone)


def _hour_repeats(job: Job) -> bool:
    assert job.schedule is not None
    fields = job.schedule.split()
    hour = fields[1] if len(fields) > 1 else "*"
    return hour == "*" or hour.startswith("*/")


def _is_repeat(local: dt.datetime, tz: zoneinfo.ZoneInfo) -> bool:
    """True for the second occurrence of an ambiguous wall time."""
    wall = local.replace(tzinfo=None)
    first = wall.replace(tzinfo=tz, fold=0)
    return first.utcoffset() != local.utcoffset() and first.astimezone(dt.UTC) < local.astimezone(
        dt.UTC
    )


def _keep(job: Job, local: dt.datetime, tz: zoneinfo.ZoneInfo) -> bool:
    return _hour_repeats(job) or not _is_repeat(local, tz)


def latest_tick(job: Job, now: dt.datetime) -> dt.datetime | None:
    """The latest tick of ``job`` at or before ``now`` (UTC); None without a schedule or tick."""
    if job.schedule is None:
        return None
    tz = zone(job)
    # Ticks fall on whole seconds: start just after now's second so a tick equal to now is
    # included (croniter's get_prev is strictly before its start).
    start = (now.replace(microsecond=0) + dt.timedelta(seconds=1)).astimezone(tz)
    it = croniter(job.schedule, start)
    return _first_kept(job, tz, lambda: it.get_prev(dt.datetime))


def next_tick(job: Job, now: dt.datetime) -> dt.datetime | None:
    """The first tick of ``job`` after ``now`` (UTC); None without a schedule or tick."""
    if job.schedule is None:
        return None
    tz = zone(job)
    it = croniter(job.schedule, now.astimezone(tz))
    return _first_kept(job, tz, lambda: it.get_next(dt.datetime))


def ticks_back(
    job: Job, after: dt.datetime, until: dt.datetime, limit: int
) -> Iterator[dt.datetime]:
    """Ticks in ``(after, until]``, newest first, at most ``limit`` of them.

    Bounded work however long the gap: what recording missed ticks walks.
    """
    if job.schedule is None:
        return
    tz = zone(job)
    # As in latest_tick: start just after until's second, so a tick at until is included.
    start = (until.replace(microsecond=0) + dt.timedelta(seconds=1)).astimezone(tz)
    it = croniter(job.schedule, start)
    count = 0
    while count < limit:
        try:
            local = it.get_prev(dt.datetime)
        except (CroniterBadDateError, OverflowError):
            return
        instant = local.astimezone(dt.UTC)
        if instant <= after:
            return
        if _keep(job, local, tz):
            count += 1
            yield instant


def _first_kept(
    job: Job, tz: zoneinfo.ZoneInfo, step: Callable[[], dt.datetime]
) -> dt.datetime | None:
    """The first tick ``step()`` yields that the daylight-saving rule keeps, in UTC.

    None when there is none (croniter finds no date: a schedule that never fires, which
    ``horizontal.E018`` refuses at start-up, or the edge of datetime's range).
    Only second occurrences of a repeated wall time are skipped: four tries always find one.
    """
    for _ in range(4):
        try:
            local = step()
        except (CroniterBadDateError, OverflowError):
            return None
        if _keep(job, local, tz):
            return local.astimezone(dt.UTC)
    raise AssertionError("a schedule cannot repeat an hour four times in a row")


def ticks_between(
    job: Job, after: dt.datetime, until: dt.datetime, limit: int = 10_000
) -> Iterator[dt.datetime]:
    """Ticks in ``(after, until]``, oldest first, at most ``limit`` of them."""
    if job.schedule is None:
        return
    tz = zone(job)
    it = croniter(job.schedule, after.astimezone(tz))
    count = 0
    while count < limit:
        try:
            local = it.get_next(dt.datetime)
        except (CroniterBadDateError, OverflowError):
            return
        instant = local.astimezone(dt.UTC)
        if instant > until:
            return
        if _keep(job, local, tz):
            count += 1
            yield instant


def parse_slot(job: Job, text: str, now: dt.datetime) -> str:
    """Normalise a ``--slot`` value to the canonical slot string, or raise InvalidSlot.

    For a scheduled job the value is an ISO 8601 instant; without an offset it is read in
    the job's time zone. It must be a tick of the schedule and not in the future (a
    future slot run now would make the real one a silent no-op).
    """
    if job.schedule is None:
        check_slot_text(text)
        return text
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidSlot(
            f"{text!r} is not an ISO 8601 instant such as 2026-11-29T00:00:00Z"
        ) from None
    # Before any arithmetic: year 1 or 9999 in another zone is outside datetime's range.
    if not FIRST_SLOT_YEAR <= parsed.year <= LAST_SLOT_YEAR:
        raise InvalidSlot(
            f"{text!r} is in the year {parsed.year}: a slot is an instant from "
            f"{FIRST_SLOT_YEAR} until now"
        )
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone(job))
    instant = parsed.astimezone(dt.UTC)
    if instant > now:
        raise InvalidSlot(
            f"slot {format_slot(instant)} is in the future (database time is "
            f"{format_slot(now)}); running it now would skip the real run"
        )
    if latest_tick(job, instant) != instant:
        raise InvalidSlot(
            f"{format_slot(instant)} is not a tick of {job.name}'s schedule "
            f"{job.schedule!r} ({job.timezone})"
        )
    return format_slot(instant)


def check_slot_text(slot: str) -> None:
    """Raise InvalidSlot for a slot no database stores as given (one rule for every vendor)."""
    problem = name_problem(slot, MAX_SLOT_LENGTH)
    if problem is not None:
        raise InvalidSlot(f"slot {slot!r} {problem}")
