"""horizontal/checks/__init__.py: importing the package registers every check module,
and a real run keeps the deploy warnings to ``check --deploy``."""

from __future__ import annotations

import pkgutil
from pathlib import Path
from typing import Any

import pytest
from django.core import checks
from django.test import override_settings

import horizontal.checks
from tests.checks.baseline import LOCMEM, shared_settings

SINGLE_INSTANCE: dict[str, Any] = {
    "CACHES": {"default": LOCMEM},
    "SESSION_ENGINE": "django.contrib.sessions.backends.file",
    "TASKS": {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}},
}


def test_every_check_module_is_imported_by_the_package() -> None:
    """A module the package does not import never registers its checks."""
    modules = {
        info.name
        for info in pkgutil.iter_modules(horizontal.checks.__path__)
        if not info.name.startswith("_")
    }
    assert modules <= set(horizontal.checks.__all__)
    assert all(hasattr(horizontal.checks, name) for name in modules)


def test_every_check_module_has_its_test_file() -> None:
    """The mirror rule of tests/README.md, for the one room where it has no exception."""
    here = Path(__file__).parent
    missing = [
        f"tests/checks/test_{info.name}.py"
        for info in pkgutil.iter_modules(horizontal.checks.__path__)
        if not info.name.startswith("_") and not (here / f"test_{info.name}.py").is_file()
    ]
    assert missing == []


def test_plain_check_raises_none_of_the_deploy_warnings() -> None:
    # Only horizontal's checks: Django's model checks would query every database on 6.1.
    # test_project.py runs the real plain `manage.py check` as a process.
    with override_settings(**SINGLE_INSTANCE):
        plain = {m.id for m in checks.run_checks(tags=["horizontal"], databases=[])}
        deploy = {
            m.id
            for m in checks.run_checks(
                tags=["horizontal"], include_deployment_checks=True, databases=[]
            )
        }
    assert {"horizontal.W001", "horizontal.W010", "horizontal.W042"} <= deploy
    assert {i for i in plain if i.startswith(("horizontal.W", "horizontal.I"))} == set()


@pytest.mark.parametrize(
    "changes",
    [
        {"HORIZONTAL_EXPECTED_INSTANCES": "many"},
        {"HORIZONTAL_PROCESSES_PER_INSTANCE": 0},
        {"HORIZONTAL_LOCAL_CACHES": 5},
    ],
)
def test_invalid_horizontal_settings_do_not_crash_the_deploy_run(changes: dict[str, Any]) -> None:
    """E001/E002 report them on the same run; the deploy checks must still finish."""
    with shared_settings(**changes):
        messages = checks.run_checks(
            tags=["horizontal"], include_deployment_checks=True, databases=[]
        )
    assert {m.id for m in messages if m.level >= checks.ERROR} <= {
        "horizontal.E001",
        "horizontal.E002",
    }
