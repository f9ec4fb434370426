"""``manage.py audit``: formats, exit status, baselines."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

CORPUS = Path(__file__).parent / "corpus"
DEPLOY = str(CORPUS / "deploy")


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("audit", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_json_output_lists_the_deploy_findings():
    out, err = run(DEPLOY, "--format", "json", "--fail-on", "never")
    findings = json.loads(out)
    categories = sorted({f["category"] for f in findings})
    assert categories == ["boot-migrate", "boot-reset", "image-cron", "scheduler"]
    assert f"{len(findings)} findings" in err


def test_findings_at_or_above_fail_on_exit_1():
    with pytest.raises(CommandError) as failure:
        run(DEPLOY, "--fail-on", "error")
    assert failure.value.returncode == 1
    assert "at or above 'error'" in str(failure.value)


def test_only_warnings_pass_fail_on_error():
    # boot-migrate is a warning: --fail-on error lets it through.
    out, _ = run(DEPLOY, "--category", "boot-migrate", "--fail-on", "error")
    assert "boot-migrate" in out


def test_a_baseline_of_everything_passes_and_reports_nothing(tmp_path):
    baseline = tmp_path / "audit-baseline.json"
    run(DEPLOY, "--write-baseline", str(baseline))
    out, err = run(DEPLOY, "--baseline", str(baseline), "--format", "json")
    assert json.loads(out) == []
    assert "in the baseline" in err


def test_an_unreadable_baseline_is_a_usage_error(tmp_path):
    with pytest.raises(CommandError) as failure:
        run(DEPLOY, "--baseline", str(tmp_path / "missing.json"))
    assert failure.value.returncode == 2


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path):
    with pytest.raises(CommandError) as failure:
        run(str(tmp_path / "nonexistent_dir"))
    assert failure.value.returncode == 2
    assert "No such file or directory" in str(failure.value)
