"""Deploy warnings W085-W086 (horizontal/checks/triggers.py), from the SHARED baseline."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from horizontal.checks import triggers
from horizontal.checks._classes import is_overridden
from horizontal.jobs import Run, job, registry
from tests.checks.baseline import (
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_messages,
)

DB_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)


def handed_off() -> None:
    @job("export_orders", schedule="*/5 * * * *", executor="tasks")
    def export_orders(run: Run) -> None:
        pass


def ids(**changes: Any) -> list[str]:
    return sorted(m.id for m in deploy_messages([triggers], **changes))


def test_a_worker_backed_default_backend_is_quiet() -> None:
    handed_off()
    assert ids(TASKS=DB_TASKS) == []


@pytest.mark.parametrize("tasks", [IMMEDIATE, DUMMY, {"other": DB_TASKS["default"]}])
def test_an_executor_job_on_a_backend_without_workers_is_w085(tasks: dict[str, Any]) -> None:
    handed_off()
    messages = deploy_messages([triggers], TASKS=tasks)
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "'export_orders'" in messages[0].msg
    assert_follows_the_contract(messages[0])


def test_without_tasks_set_the_implicit_inline_backend_is_w085() -> None:
    # The test settings (testproject's) set no TASKS: Django 6 and the backport run inline.
    handed_off()
    assert not is_overridden("TASKS")
    messages = triggers.check_task_executor(app_configs=None)
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "runs inline" in messages[0].msg


def test_an_empty_tasks_setting_has_no_default_backend_for_the_job() -> None:
    handed_off()
    messages = deploy_messages([triggers], TASKS={})
    assert [m.id for m in messages] == ["horizontal.W085"]
    assert "no TASKS['default']" in messages[0].msg


def test_no_executor_job_no_w085_whatever_the_backend() -> None:
    assert ids(TASKS=DUMMY) == []


def test_a_beat_entry_for_an_unknown_job_is_w086() -> None:
    handed_off()
    schedule = {
        "ok": {"task": "horizontal.run_job", "schedule": 60, "args": ("export_orders",)},
        "by_kwarg": {
            "task": "horizontal.run_job",
            "schedule": 60,
            "kwargs": {"job": "export_orders"},
        },
        "typo": {"task": "horizontal.run_job", "schedule": 60, "args": ("export_order",)},
        "none": {"task": "horizontal.run_job", "schedule": 60},
        "other task": {"task": "billing.cleanup", "schedule": 60, "args": ("x",)},
    }
    messages = deploy_messages([triggers], TASKS=DB_TASKS, CELERY_BEAT_SCHEDULE=schedule)
    assert [(m.id, m.obj) for m in messages] == [
        ("horizontal.W086", "CELERY_BEAT_SCHEDULE['typo']"),
        ("horizontal.W086", "CELERY_BEAT_SCHEDULE['none']"),
    ]
    for message in messages:
        assert_follows_the_contract(message)


def test_trigger_checks_are_deploy_only() -> None:
    assert_registered_deploy_only(triggers)
