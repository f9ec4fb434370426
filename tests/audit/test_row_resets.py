"""boot-reset in code (row_resets.py): rows of the shared database reset as each process
starts, which marks the work running instances are doing as failed or gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

APPS = """\
from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"

    def ready(self):
        from jobs.models import Job

        {reset}
"""
WORKER = """\
from celery.signals import worker_ready

from jobs.models import Job


@worker_ready.connect
def reap(**kwargs):
    {reset}
"""


@pytest.mark.parametrize(
    "reset",
    [
        'Job.objects.filter(status="RUNNING").update(status="FAILED")',
        "Job.objects.filter(locked_by__isnull=False).update(locked_by=None)",
        'Job.objects.filter(state="claimed").delete()',
        "Job.objects.all().delete()",
    ],
)
def test_a_reset_of_run_state_at_start_is_found(tmp_path: Path, reset: str) -> None:
    found = scan(tmp_path / "apps", {"jobs/apps.py": APPS.format(reset=reset)})
    assert ("jobs/apps.py", 10) in where(found)
    found = scan(tmp_path / "worker", {"jobs/signals.py": WORKER.format(reset=reset)})
    assert ("jobs/signals.py", 8) in where(found)


@pytest.mark.parametrize(
    "reset",
    [
        # Configuration every instance writes alike, and a sync of configuration rows.
        'Site.objects.filter(pk=1).update(domain="shop.example.com")',
        'Group.objects.filter(name__startswith="flag-").exclude(name__in=FLAGS).delete()',
    ],
)
def test_configuration_synced_at_start_is_not_a_reset(tmp_path: Path, reset: str) -> None:
    found = scan(tmp_path, {"jobs/apps.py": APPS.format(reset=reset)})
    assert [f for f in found if f.category == "boot-reset"] == []


def test_the_same_reset_in_a_view_is_not_found(tmp_path: Path) -> None:
    # Its twin: a request that fails stuck jobs runs where an operator asked for it.
    view = (
        "from jobs.models import Job\n\n\ndef fail_stuck(request):\n"
        '    Job.objects.filter(status="RUNNING").update(status="FAILED")\n'
    )
    found = scan(tmp_path, {"jobs/views.py": view})
    assert [f for f in found if f.category == "boot-reset"] == []


@pytest.mark.parametrize(
    "decorator", ["@signals.worker_ready.connect", "@worker_ready.connect(weak=False)"]
)
def test_the_start_signal_however_it_is_named(tmp_path: Path, decorator: str) -> None:
    reset = 'Job.objects.filter(status="RUNNING").update(status="FAILED")'
    source = WORKER.format(reset=reset).replace("@worker_ready.connect", decorator)
    source = source.replace(
        "from celery.signals import worker_ready",
        "from celery import signals\nfrom celery.signals import worker_ready",
    )
    found = scan(tmp_path, {"jobs/signals.py": source})
    assert [f.category for f in found] == ["boot-reset"]


@pytest.mark.parametrize(
    "reset",
    [
        # One row by name, a feature flag switched on, a backfill: not run state.
        'Job.objects.get(name="nightly").delete()',
        "Flag.objects.filter(name__in=FLAGS).update(active=True)",
        "Job.objects.filter(owner=None).update(owner=admin)",
        # Rows chosen by an expression the rule cannot read are not "every row".
        "Job.objects.filter(Q(kind='import') | Q(kind='export')).delete()",
    ],
)
def test_what_is_no_reset_of_run_state(tmp_path: Path, reset: str) -> None:
    found = scan(tmp_path, {"jobs/apps.py": APPS.format(reset=reset)})
    assert [f for f in found if f.category == "boot-reset"] == []


def test_a_gunicorn_pre_fork_hook_is_start_up(tmp_path: Path) -> None:
    hook = (
        "from jobs.models import Job\n\n\ndef pre_fork(server, worker):\n"
        '    Job._default_manager.filter(status="RUNNING").update(status="FAILED")\n'
    )
    found = scan(tmp_path, {"gunicorn.conf.py": hook})
    assert [(f.path, f.line) for f in found if f.category == "boot-reset"] == [
        ("gunicorn.conf.py", 5)
    ]
