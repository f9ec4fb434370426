"""horizontal.E010–E017: registrations that cannot run are errors at every ``check``.

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
    with pytest.raises(SystemCheckError, match=r"horizontal\.E010"):
        call_command("check")


def test_run_job_refuses_an_invalid_registration_before_touching_the_database() -> None:
    job("broken", schedule="* * *", ttl=0)(noop)
    with pytest.raises(InvalidJob) as refused:
        run_job("broken")
    assert str(refused.value) == "; ".join(
        error.msg for error in job_errors(registry.jobs["broken"])
    )
    # Code written against run_job before InvalidJob existed caught InvalidSlot.
    assert isinstance(refused.value, InvalidSlot)


def test_runjob_exits_2_for_an_invalid_registration(capsys: pytest.CaptureFixture[str]) -> None:
    job("broken", schedule="* * *")(noop)
    with pytest.raises(SystemExit) as exited:
        call_command("runjob", "broken")
    assert exited.value.code == 2
    assert "runjob: Job 'broken' has an invalid cron schedule" in capsys.readouterr().err
