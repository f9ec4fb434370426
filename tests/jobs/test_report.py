"""``horizontal.jobs.report``: outcome statuses, the exit code they fold into, the words."""

from __future__ import annotations

import datetime as dt

from horizontal.jobs import Outcome, OutcomeStatus
from horizontal.jobs.report import describe, exit_code, format_instant
from horizontal.models import JobRun


def outcome(status: OutcomeStatus) -> Outcome:
    return Outcome("nightly", "2026-11-29T00:00:00Z", status, "")


def test_statuses_read_as_the_strings_they_always_were() -> None:
    assert [str(s) for s in OutcomeStatus] == [
        "succeeded",
        "failed",
        "lost",
        "interrupted",
        "taken",
        "missed",
        "skipped_overlap",
        "idle",
        "handed_off",
        "paused",
    ]
    assert OutcomeStatus.TAKEN == "taken" and f"{OutcomeStatus.IDLE}" == "idle"


def test_exit_codes_fold_to_the_most_serious_outcome() -> None:
    codes = {status: outcome(status).exit_code for status in OutcomeStatus}
    assert codes == {
        **dict.fromkeys(OutcomeStatus, 0),
        OutcomeStatus.FAILED: 1,
        OutcomeStatus.LOST: 3,
        OutcomeStatus.INTERRUPTED: 4,
    }
    assert exit_code([]) == 0
    assert exit_code([outcome(OutcomeStatus.FAILED), outcome(OutcomeStatus.SUCCEEDED)]) == 1
    assert exit_code([outcome(OutcomeStatus.FAILED), outcome(OutcomeStatus.LOST)]) == 3
    assert exit_code([outcome(OutcomeStatus.LOST), outcome(OutcomeStatus.INTERRUPTED)]) == 4


def test_instants_print_in_utc_to_the_millisecond() -> None:
    berlin = dt.timezone(dt.timedelta(hours=1))
    instant = dt.datetime(2026, 11, 29, 1, 0, 3, 123456, tzinfo=berlin)
    assert format_instant(instant) == "2026-11-29 00:00:03.123Z"
    assert format_instant(None) == "-"


def test_describe_names_who_has_the_slot() -> None:
    claimed = dt.datetime(2026, 11, 29, 0, 0, 1, tzinfo=dt.UTC)
    row = JobRun(
        job="nightly",
        slot="2026-11-29T00:00:00Z",
        status=JobRun.Status.FAILED,
        owner="web-2:41:ab12cd34",
        token=3,
        attempt=2,
        claimed_at=claimed,
        finished_at=claimed + dt.timedelta(seconds=2),
        error="Traceback (most recent call last):\n  ...\nValueError: no",
    )
    assert describe(row) == (
        "nightly@2026-11-29T00:00:00Z: failed on web-2:41:ab12cd34 at "
        "2026-11-29 00:00:03.000Z (token 3, attempt 2): ValueError: no; "
        "run again with --retry to re-run it"
    )
    assert describe(row, retry=True).endswith("ValueError: no")
