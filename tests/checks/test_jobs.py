"""Job-registration errors E010-E017 (horizontal/checks/jobs.py), through the registry.

They run on every ``check``; tests/jobs/test_registry_checks.py covers the registry side.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from horizontal.checks import jobs as job_checks
from horizontal.jobs.registry import registry


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The global job registry, restored after the test registers its own jobs."""
    monkeypatch.setattr(registry, "jobs", dict(registry.jobs))
    monkeypatch.setattr(
        registry, "duplicates", {k: list(v) for k, v in registry.duplicates.items()}
    )
    yield


def job_ids() -> list[str]:
    return sorted(e.id for e in job_checks.check_jobs())


def test_cron_expression_that_does_not_parse_is_e010(own_registry: None) -> None:
    from horizontal.jobs import job

    job("check_bad_cron", schedule="61 * * * *")(lambda run: None)
    assert job_ids() == ["horizontal.E010"]


def test_time_zone_that_does_not_exist_is_e011(own_registry: None) -> None:
    from horizontal.jobs import job

    job("check_bad_zone", schedule="0 3 * * *", timezone="Mars/Olympus")(lambda run: None)
    assert job_ids() == ["horizontal.E011"]


def test_same_function_imported_twice_is_e012(
    own_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One jobs.py reachable as 'shop.jobs' and as 'jobs': two registrations, one job."""
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "jobs.py").write_text(
        "from horizontal.jobs import job\n\n"
        "@job('check_nightly_refunds', schedule='0 0 * * *')\n"
        "def nightly_refunds(run):\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(package))
    for name in ("shop", "shop.jobs", "jobs"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    importlib.import_module("shop.jobs")
    importlib.import_module("jobs")
    errors = job_checks.check_jobs()
    assert [e.id for e in errors] == ["horizontal.E012"]
    assert "shop.jobs.nightly_refunds" in errors[0].msg
    assert "jobs.nightly_refunds" in errors[0].msg
    for name in ("shop", "shop.jobs", "jobs"):
        sys.modules.pop(name, None)
