"""Deploy warnings ``horizontal.W085``-``W089``: triggers that cannot deliver a job's slots.

``W085``: a job hands its slots to django.tasks (``@job(executor="tasks")``) but the
default task backend cannot run them in a worker: not installed, inline
(``ImmediateBackend``) or never (``DummyBackend``). ``W086``: a Celery beat entry in
settings (``CELERY_BEAT_SCHEDULE``) sends ``horizontal.run_job`` for a job nobody
registered. Both read settings and the job registry only: no import of Celery or of a
task backend (docs/triggers.md).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a, is_overridden
from horizontal.jobs.registry import Job, registry

__all__ = ["RUN_JOB_TASK", "W085", "W086", "check_beat_schedule", "check_task_executor"]

IMMEDIATE_TASKS = known.paths(known.IMMEDIATE_TASKS)
DUMMY_TASKS = known.paths(known.DUMMY_TASKS)
# The task horizontal.triggers.celery.register_jobs registers (not imported: no Celery here).
RUN_JOB_TASK = "horizontal.run_job"


FIX = (
    "Configure TASKS['default'] with a worker-backed backend (django-tasks-db: pip install "
    "'django-horizontal[tasks]') and run its workers, or drop executor='tasks'."
)


def W085(job: Job, problem: str, consequence: str) -> checks.Warning:
    return checks.Warning(
        f"Job {job.name!r}: executor='tasks', but {problem}.",
        hint=f"{consequence}. {FIX}",
        obj=job.origin,
        id="horizontal.W085",
    )


def W086(entry: str, name: object) -> checks.Warning:
    return checks.Warning(
        f"Beat entry {entry!r} sends {RUN_JOB_TASK} for unknown job {name!r}.",
        hint=f"Registered jobs: {', '.join(registry.names()) or '(none)'}; the first "
        "argument is the job's name as given to @job.",
        obj=f"CELERY_BEAT_SCHEDULE[{entry!r}]",
        id="horizontal.W086",
    )


def _tasks_installed() -> bool:
    return any(
        importlib.util.find_spec(name) is not None for name in ("django.tasks", "django_tasks")
    )


def _default_task_backend() -> object:
    """TASKS['default']'s BACKEND; without TASKS, both Django 6 and the backport run inline."""
    if not is_overridden("TASKS"):
        return IMMEDIATE_TASKS[0]
    config = (getattr(settings, "TASKS", None) or {}).get("default")
    return config.get("BACKEND") if isinstance(config, Mapping) else None


def _executor_problem() -> tuple[str, str] | None:
    """(what is wrong, what it does to the job's slots), or None."""
    if not _tasks_installed():
        return (
            "django.tasks is not installed",
            "Every hand-off fails with ImportError (Django 5.2 needs the django-tasks backport)",
        )
    backend = _default_task_backend()
    if backend is None:
        return "no TASKS['default']", "Every hand-off fails"
    if is_a(backend, IMMEDIATE_TASKS):
        return (
            "its task backend runs inline",
            "The scheduler's leader runs the body itself, as without the executor",
        )
    if is_a(backend, DUMMY_TASKS):
        return (
            "its task backend never runs tasks",
            "Its slots are enqueued again every TTL and never run",
        )
    return None


@register(TAG, deploy=True)
def check_task_executor(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    handed = [registry.jobs[n] for n in registry.names() if registry.jobs[n].executor == "tasks"]
    if not handed:
        return []
    problem = _executor_problem()
    return [] if problem is None else [W085(job, *problem) for job in handed]


def _job_named(entry: Mapping[str, Any]) -> object:
    args = entry.get("args") or ()
    kwargs = entry.get("kwargs") or {}
    if isinstance(kwargs, Mapping) and "job" in kwargs:
        return kwargs["job"]
    if isinstance(args, list | tuple) and args:
        return args[0]
    return None


@register(TAG, deploy=True)
def check_beat_schedule(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    schedule = getattr(settings, "CELERY_BEAT_SCHEDULE", None)
    if not isinstance(schedule, Mapping):
        return []
    found: list[CheckMessage] = []
    for entry_name, entry in schedule.items():
        if not isinstance(entry, Mapping) or entry.get("task") != RUN_JOB_TASK:
            continue
        name = _job_named(entry)
        if not (isinstance(name, str) and name in registry.jobs):
            found.append(W086(str(entry_name), name))
    return found
