"""``manage.py jobs`` (horizontal/jobs/inventory.py): every job, even next to a broken one."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from horizontal.jobs import Run, job, registry, run_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def scratch_registry() -> Iterator[None]:
    before = dict(registry.jobs)
    registry.jobs.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def noop(run: Run) -> None:
    pass


def test_hardening_03_jobs_lists_the_good_jobs_and_the_bad_one_with_its_error_id() -> None:
    job("a_nightly", schedule="0 0 * * *")(noop)
    job("b_never", schedule="0 0 30 2 *")(noop)
    job("c_hourly", schedule="0 * * * *")(noop)
    out = StringIO()
    call_command("jobs", stdout=out)
    text = out.getvalue()
    lines = text.splitlines()
    titles = [line for line in lines if not line.startswith(" ")]
    assert titles == ["a_nightly", "b_never", "c_hourly"], text
    never = lines[lines.index("b_never") + 2]
    assert never.strip().startswith("error: horizontal.E018: Job 'b_never'"), text
    assert sum("next slot: " in line for line in lines) == 2, text


# -- issue 13: jobs --check, jobs --format json ----------------------------------------


def check(*extra: str) -> tuple[int, str]:
    """``manage.py jobs --check``: its exit status and what it printed (both streams)."""
    out, err = StringIO(), StringIO()
    try:
        call_command("jobs", "--check", *extra, stdout=out, stderr=err)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue() + err.getvalue()
    return 0, out.getvalue() + err.getvalue()


def boom(run: Run) -> None:
    raise RuntimeError("the ledger is locked")


def test_jobs_check_fails_for_a_missed_slot() -> None:
    job("nightly", schedule="0 0 * * *", catchup="skip", grace=1)(noop)
    [outcome] = run_job("nightly")  # the tick is more than a second old: missed
    assert outcome.status == "missed"
    status, text = check()
    assert status == 1, text
    assert f"FAIL nightly@{outcome.slot}: missed: missed: not claimed within 0:00:01" in text


def test_jobs_check_fails_for_a_failed_slot_and_passes_when_all_is_well() -> None:
    job("fails", schedule="0 0 * * *")(boom)
    job("works", schedule="0 0 * * *")(noop)
    [failed] = run_job("fails")
    [worked] = run_job("works")
    assert (failed.status, worked.status) == ("failed", "succeeded")
    status, text = check()
    assert status == 1, text
    assert f"FAIL fails@{failed.slot}: failed: failed on " in text
    assert "RuntimeError: the ledger is locked" in text
    assert f"ok   works@{worked.slot}: ok: succeeded on " in text
    registry.jobs.pop("fails")
    status, text = check()
    assert status == 0 and "FAIL" not in text, text


def test_jobs_check_fails_for_a_job_that_stopped_running_and_passes_a_paused_one() -> None:
    from horizontal.jobs.control import pause_job

    job("every_minute", schedule="* * * * *")(noop)  # grace 10 min: the default
    status, text = check()
    # The latest tick is within its grace; the one 10 minutes back never ran.
    assert status == 1 and "FAIL every_minute@" in text and ": late: no run " in text, text
    pause_job("every_minute", by="ops")
    status, text = check()
    assert status == 0 and "ok   every_minute: paused: PAUSED by ops at " in text, text


def test_jobs_format_json_lists_runs_with_their_attempts_and_the_check() -> None:
    import json

    job("fails", schedule="0 0 * * *")(boom)
    [failed] = run_job("fails")
    [again] = run_job("fails", slot=failed.slot, retry=True)
    assert again.status == "failed" and again.token == 2
    out = StringIO()
    call_command("jobs", "--format", "json", stdout=out)
    [record] = json.loads(out.getvalue())["jobs"]
    assert record["name"] == "fails" and record["paused"] is None
    assert record["check"]["status"] == "failed" and record["check"]["failing"] is True
    [run] = record["runs"]
    assert (run["slot"], run["status"], run["token"], run["attempt"]) == (
        failed.slot,
        "failed",
        2,
        2,
    )
    assert [(a["token"], a["trigger"], a["outcome"]) for a in run["attempts"]] == [
        (1, "schedule", "failed"),
        (2, "retry", "failed"),
    ]
    assert all("RuntimeError: the ledger is locked" in a["error"] for a in run["attempts"])
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("jobs", "--check", "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["ok"] is False
