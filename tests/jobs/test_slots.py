"""Cron → slot on the database clock, including the daylight-saving rule (F21)."""

from __future__ import annotations

import datetime as dt

import pytest

from horizontal.exceptions import InvalidSlot
from horizontal.jobs.registry import Job
from horizontal.jobs.slots import latest_tick, next_tick, parse_slot, ticks_between

UTC = dt.UTC


def make(schedule: str, timezone: str = "UTC") -> Job:
    return Job(name="j", func=lambda run: None, schedule=schedule, timezone=timezone)


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).astimezone(UTC)


def test_latest_tick_includes_a_tick_equal_to_now() -> None:
    daily = make("0 0 * * *")
    assert latest_tick(daily, at("2026-11-29T00:00:00+00:00")) == at("2026-11-29T00:00:00+00:00")
    assert latest_tick(daily, at("2026-11-28T23:59:59.999+00:00")) == at(
        "2026-11-28T00:00:00+00:00"
    )
    assert latest_tick(daily, at("2026-11-29T07:13:00+00:00")) == at("2026-11-29T00:00:00+00:00")


def test_seconds_field_gives_one_slot_per_second() -> None:
    every_second = make("* * * * * *")
    assert latest_tick(every_second, at("2026-11-29T10:00:05.700+00:00")) == at(
        "2026-11-29T10:00:05+00:00"
    )


def test_every_node_gets_the_same_slot_however_late_its_cron_fires() -> None:
    daily = make("0 0 * * *")
    nows = ["2026-11-29T00:00:00.01", "2026-11-29T00:00:03", "2026-11-29T00:07:00"]
    assert {latest_tick(daily, at(n + "+00:00")) for n in nows} == {at("2026-11-29T00:00+00:00")}


BERLIN = "Europe/Berlin"  # 2026-03-29 02:00→03:00 and 2026-10-25 03:00→02:00


def day_ticks(job: Job, start: str, end: str) -> list[str]:
    return [t.isoformat() for t in ticks_between(job, at(start), at(end))]


def test_spring_gap_time_runs_once_just_after_the_gap() -> None:
    nightly = make("30 2 * * *", BERLIN)
    ticks = day_ticks(nightly, "2026-03-28T12:00+00:00", "2026-03-30T12:00+00:00")
    # 02:30 does not exist on 03-29: it runs at 03:00 CEST (01:00 UTC), once.
    assert ticks == ["2026-03-29T01:00:00+00:00", "2026-03-30T00:30:00+00:00"]


def test_fall_back_repeated_time_runs_once_at_its_first_occurrence() -> None:
    nightly = make("30 2 * * *", BERLIN)
    ticks = day_ticks(nightly, "2026-10-24T12:00+00:00", "2026-10-26T12:00+00:00")
    assert ticks == ["2026-10-25T00:30:00+00:00", "2026-10-26T01:30:00+00:00"]
    # And the latest tick during the repeated hour is the first occurrence too.
    assert latest_tick(nightly, at("2026-10-25T01:45+00:00")) == at("2026-10-25T00:30+00:00")


def test_hourly_jobs_run_in_both_repeated_hours_as_elapsed_time_demands() -> None:
    hourly = make("0 * * * *", BERLIN)
    ticks = day_ticks(hourly, "2026-10-24T23:30+00:00", "2026-10-25T02:30+00:00")
    assert ticks == [
        "2026-10-25T00:00:00+00:00",
        "2026-10-25T01:00:00+00:00",
        "2026-10-25T02:00:00+00:00",
    ]


def test_one_run_per_defined_slot_across_a_whole_dst_year() -> None:
    nightly = make("30 2 * * *", BERLIN)
    ticks = list(ticks_between(nightly, at("2026-01-01T00:00+00:00"), at("2027-01-01T00:00+00:00")))
    local_days = [t.astimezone(__import__("zoneinfo").ZoneInfo(BERLIN)).date() for t in ticks]
    assert len(ticks) == 365 and len(set(local_days)) == 365


def test_next_tick() -> None:
    assert next_tick(make("0 0 * * *"), at("2026-11-29T10:00+00:00")) == at(
        "2026-11-30T00:00+00:00"
    )


def test_parse_slot_reads_naive_values_in_the_job_time_zone() -> None:
    nightly = make("30 2 * * *", BERLIN)
    now = at("2026-12-01T00:00+00:00")
    assert parse_slot(nightly, "2026-11-29T02:30", now) == "2026-11-29T01:30:00Z"
    assert parse_slot(nightly, "2026-11-29T01:30:00Z", now) == "2026-11-29T01:30:00Z"
    with pytest.raises(InvalidSlot, match="not a tick"):
        parse_slot(nightly, "2026-11-29T02:31", now)
    with pytest.raises(InvalidSlot, match="future"):
        parse_slot(nightly, "2026-12-02T02:30", now)


def test_free_form_slots_for_unscheduled_jobs() -> None:
    hook = Job(name="hook", func=lambda run: None)
    assert parse_slot(hook, "release-42", at("2026-12-01T00:00+00:00")) == "release-42"
    with pytest.raises(InvalidSlot):
        parse_slot(hook, "x" * 65, at("2026-12-01T00:00+00:00"))


def test_hardening_09_slots_have_four_digit_years_and_absurd_years_are_refused() -> None:
    from horizontal.jobs.slots import format_slot

    # strftime("%Y") wrote "999-06-01T…", which sorts after every real slot.
    assert format_slot(dt.datetime(999, 6, 1, tzinfo=UTC)) == "0999-06-01T00:00:00Z"
    assert format_slot(dt.datetime(2026, 6, 1, 5, 4, 3, tzinfo=UTC)) == "2026-06-01T05:04:03Z"
    daily = make("0 0 * * *")
    now = at("2026-11-29T12:00:00+00:00")
    for text in ("0999-06-01T00:00:00Z", "1969-12-31T00:00:00Z"):
        with pytest.raises(InvalidSlot, match=r"in the year \d+: a slot is an instant from 1970"):
            parse_slot(daily, text, now)
    assert parse_slot(daily, "1970-01-02T00:00:00Z", now) == "1970-01-02T00:00:00Z"


@pytest.mark.parametrize(
    "text",
    [
        "0001-01-01T00:00:00+05:00",  # before year 1 in UTC: OverflowError
        "0001-01-01T00:00:00",  # read in the job's zone, west of UTC
        "9999-12-31T23:59:59-05:00",  # after year 9999 in UTC
        "9999-12-31T23:59:59Z",  # the next second overflows
    ],
)
def test_hardening_10_slots_at_the_edges_of_datetime_are_usage_errors(text: str) -> None:
    daily = make("0 0 * * *", timezone="America/New_York")
    with pytest.raises(InvalidSlot):
        parse_slot(daily, text, at("2026-11-29T12:00:00+00:00"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("v1\x00", "control character"),
        ("v1\ttab", "control character"),
        ("v1-\udcff", "not UTF-8"),  # how Python decodes non-UTF-8 bytes of argv
        ("v" * 65, "at most 64"),
        ("", "empty"),
    ],
)
def test_hardening_10_free_form_slots_follow_one_rule_on_every_vendor(
    text: str, reason: str
) -> None:
    manual = Job(name="j", func=lambda run: None)
    with pytest.raises(InvalidSlot, match=reason):
        parse_slot(manual, text, at("2026-11-29T12:00:00+00:00"))
    assert parse_slot(manual, "v2026.11.29-é", at("2026-11-29T12:00:00+00:00"))


def test_ticks_back_is_newest_first_inclusive_and_bounded() -> None:
    from horizontal.jobs.slots import ticks_back

    minutely = make("* * * * *")
    ticks = list(
        ticks_back(minutely, at("2026-11-29T00:00:00+00:00"), at("2026-11-29T00:05:00+00:00"), 3)
    )
    assert ticks == [at(f"2026-11-29T00:0{m}:00+00:00") for m in (5, 4, 3)]
    everything = list(
        ticks_back(minutely, at("2026-11-29T00:00:00+00:00"), at("2026-11-29T00:05:30+00:00"), 99)
    )
    assert everything[-1] == at("2026-11-29T00:01:00+00:00") and len(everything) == 5


def test_a_schedule_with_no_tick_has_none_instead_of_raising() -> None:
    never = make("0 0 30 2 *")
    now = at("2026-11-29T12:00:00+00:00")
    assert latest_tick(never, now) is None and next_tick(never, now) is None
    assert list(ticks_between(never, now - dt.timedelta(days=1), now)) == []
