"""horizontal.E010–E018: registrations that cannot run are errors at every ``check``.

``horizontal.jobs.validation.job_errors`` judges one registration; the check
(``horizontal.checks.jobs``) reports it for every job, and ``run_job`` refuses a job it
finds fault with (``InvalidJob``, exit 2 from ``runjob``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from horizontal.checks.jobs import check_jobs
from horizontal.exceptions import InvalidJob, InvalidSlot
from horizontal.jobs import Run, job, registry, run_job
from horizontal.jobs.registry import CATCHUP_POLICIES, OVERLAP_POLICIES
from horizontal.jobs.validation import job_errors

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def scratch_registry() -> Iterator[None]:
    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def noop(run: Run) -> None:
    pass


def ids() -> list[str]:
    return [error.id for error in check_jobs()]


def test_the_testproject_registrations_are_clean() -> None:
    assert ids() == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"schedule": "61 * * * *"}, ["horizontal.E010"]),
        ({"schedule": "every day"}, ["horizontal.E010"]),
        ({"schedule": "0 0 * * *", "timezone": "Mars/Olympus"}, ["horizontal.E011"]),
        ({"catchup": "sometimes"}, ["horizontal.E013"]),
        ({"overlap": "queue"}, ["horizontal.E014"]),
        ({"ttl": 0}, ["horizontal.E015"]),
        ({"ttl": -5}, ["horizontal.E015"]),
        ({"max_attempts": 0}, ["horizontal.E017"]),
    ],
)
def test_each_invalid_option_is_its_own_error(
    options: dict[str, object], expected: list[str]
) -> None:
    job("broken", **options)(noop)  # type: ignore[arg-type]
    assert [error.id for error in job_errors(registry.jobs["broken"])] == expected
    assert ids() == expected


def test_the_allowed_policies_are_the_literal_types_values() -> None:
    assert CATCHUP_POLICIES == ("skip", "latest", "all")
    assert OVERLAP_POLICIES == ("skip", "allow")


def test_a_name_with_whitespace_is_refused() -> None:
    job("refund balances")(noop)
    assert ids() == ["horizontal.E016"]


def test_two_functions_under_one_name_are_an_error() -> None:
    def other(run: Run) -> None:
        pass

    job("twice")(noop)
    job("twice")(other)
    [error] = check_jobs()
    assert error.id == "horizontal.E012"
    assert "test_validation.noop" in error.msg and "other" in error.msg


def test_the_same_module_imported_under_two_names_is_caught() -> None:
    # How one run becomes eight: `app.jobs` and `project.app.jobs` are two modules to
    # Python, so the decorator runs twice.
    for module_name in ("billing_jobs", "project.billing_jobs"):
        spec = importlib.util.spec_from_file_location(module_name, HERE / "duplicate_jobs.py")
        assert spec and spec.loader
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert ids() == ["horizontal.E012"]


def test_registering_the_same_function_twice_is_harmless() -> None:
    job("same")(noop)
    job("same")(noop)
    assert ids() == []


def test_errors_fail_a_plain_check_not_only_deploy() -> None:
    job("broken", schedule="* * *")(noop)
    # Only horizontal's checks: Django 6.1's model checks would connect to MySQL, and this
    # test has no database.
    with pytest.raises(SystemCheckError, match=r"horizontal\.E010"):
        call_command("check", "--tag", "horizontal")


def test_run_job_refuses_an_invalid_registration_before_touching_the_database() -> None:
    job("broken", schedule="* * *", ttl=0)(noop)
    with pytest.raises(InvalidJob) as refused:
        run_job("broken")
    assert str(refused.value) == "; ".join(
        f"{error.id}: {error.msg}" for error in job_errors(registry.jobs["broken"])
    )
    # Code written against run_job before InvalidJob existed caught InvalidSlot.
    assert isinstance(refused.value, InvalidSlot)


def test_runjob_exits_2_for_an_invalid_registration(capsys: pytest.CaptureFixture[str]) -> None:
    job("broken", schedule="* * *")(noop)
    with pytest.raises(SystemExit) as exited:
        call_command("runjob", "broken")
    assert exited.value.code == 2
    assert "runjob: horizontal.E010: Job 'broken' has an invalid cron schedule" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("schedule", ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 2,4,6 *"])
def test_hardening_03_a_schedule_that_parses_but_never_fires_is_e018(schedule: str) -> None:
    # croniter.is_valid checks syntax only: these passed E010, and the scheduler died on
    # CroniterBadDateError at the first poll (every node's, as each took the lead).
    job("never", schedule=schedule)(noop)
    assert ids() == ["horizontal.E018"]
    [error] = check_jobs()
    assert "never fires" in error.msg and schedule in error.msg


def test_hardening_03_a_schedule_that_fires_rarely_is_fine() -> None:
    job("leap_day", schedule="0 0 29 2 *")(noop)  # every four years
    job("month_end", schedule="0 0 L * *")(noop)
    assert ids() == []


@pytest.mark.parametrize(
    ("schedule", "reason"),
    [
        ("61 0 * * *", "Minute 61 is out of range (0-59)"),
        ("0 24 * * *", "Hour 24 is out of range (0-23)"),
        ("0 0 * * 8", "Day of week 8 is out of range (0-7 or sun-sat)"),
        ("0 0 * 13 *", "Month 13 is out of range"),
        ("every day", "Exactly 5, 6 or 7 columns"),
    ],
)
def test_hardening_03_e010_hint_carries_croniters_reason(schedule: str, reason: str) -> None:
    job("broken", schedule=schedule)(noop)
    [error] = check_jobs()
    assert error.id == "horizontal.E010"
    assert error.hint is not None and error.hint.startswith(reason), error.hint


@pytest.mark.django_db(transaction=True)
def test_hardening_03_runjob_refuses_a_never_firing_job_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    job("never", schedule="0 0 30 2 *")(noop)
    with pytest.raises(SystemExit) as exited:
        call_command("runjob", "never")
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("runjob: horizontal.E018: Job 'never' has a cron schedule")
    assert "Traceback" not in err


@pytest.mark.django_db(transaction=True)
def test_hardening_17_runjob_refuses_only_the_broken_job_as_docs_checks_md_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # docs/checks.md said an E0xx makes runjob refuse to start; runjob checks only the
    # job it is asked to run, and the page now says so. This pins the behaviour it states.
    job("never", schedule="0 0 30 2 *")(noop)
    job("fine")(noop)
    assert ids() == ["horizontal.E018"]  # the project has an error, in another job
    call_command("runjob", "fine", slot="v1")  # no SystemExit: exit 0
    assert "succeeded" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        call_command("runjob", "never")
    assert exited.value.code == 2
    docs = (HERE.parents[1] / "docs" / "checks.md").read_text()
    assert "`runjob` checks only the job it is" in docs


@pytest.mark.parametrize("name", ["nul\x00name", "bad-\udcff", "tab\tname"])
def test_hardening_10_a_job_name_no_database_stores_is_e016(name: str) -> None:
    job(name, schedule="0 0 * * *")(noop)
    assert ids() == ["horizontal.E016"]


def test_hardening_10_a_ttl_past_every_vendors_datetime_is_e015() -> None:
    job("forever", schedule="0 0 * * *", ttl=1e12)(noop)
    assert ids() == ["horizontal.E015"]
