"""horizontal.E010–E016: registrations that cannot run are errors at every ``check``."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from horizontal.checks.jobs import check_jobs
from horizontal.jobs import Run, job, registry

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
    return [error.id for error in check_jobs()]  # type: ignore[misc]


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
    assert ids() == expected


def test_a_name_with_whitespace_is_refused() -> None:
    job("refund balances")(noop)
    assert ids() == ["horizontal.E016"]


def test_two_functions_under_one_name_are_an_error() -> None:
    def other(run: Run) -> None:
        pass

    job("twice")(noop)
    job("twice")(other)
    [error] = check_jobs()  # type: ignore[misc]
    assert error.id == "horizontal.E012"
    assert "test_registry_checks.noop" in error.msg and "other" in error.msg


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
