"""Deploy warnings ``horizontal.W080``-``W089``: triggers that cannot deliver, or deliver
to anyone.

The HTTP trigger (``horizontal.triggers.http``), ``W080``-``W084``: routed without a
secret, a short secret, plain HTTP on an HTTPS site, the ``SECRET_KEY`` reused. Celery
and django.tasks, ``W085``-``W089``: a job handed to django.tasks (``@job(executor=
"tasks")``) whose default task backend cannot run it in a worker (not installed, inline
``ImmediateBackend``, or never ``DummyBackend``); a Celery beat entry in settings
(``CELERY_BEAT_SCHEDULE``) that sends ``horizontal.run_job`` for a job nobody registered.
They read settings, the URLconf and the job registry only: no network, no import of
Celery or of a task backend (docs/triggers.md).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags
from django.urls import NoReverseMatch, URLPattern, get_resolver, get_urlconf

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a, is_overridden
from horizontal.conf import conf
from horizontal.jobs.registry import Job, registry
from horizontal.triggers.http import MIN_SECRET_BYTES, site_says_https, trigger, trigger_path

__all__ = [
    "RUN_JOB_TASK",
    "W080",
    "W081",
    "W082",
    "W083",
    "W085",
    "W086",
    "check_beat_schedule",
    "check_task_executor",
    "check_trigger",
]


def W080(path: str) -> checks.Warning:
    return checks.Warning(
        "HORIZONTAL_TRIGGER_SECRET is unset: the routed HTTP trigger answers 404.",
        hint="Set HORIZONTAL_TRIGGER_SECRET (32 bytes or more, from a secret store) on every "
        "instance; or, if no scheduler calls it, route the health views alone: "
        "include('horizontal.health.urls').",
        obj=path,
        id="horizontal.W080",
    )


def W081(length: int) -> checks.Warning:
    return checks.Warning(
        f"HORIZONTAL_TRIGGER_SECRET is {length} bytes long, fewer than {MIN_SECRET_BYTES}.",
        hint="Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(48))'.",
        id="horizontal.W081",
    )


def W082() -> checks.Warning:
    return checks.Warning(
        "The site is HTTPS but the HTTP trigger accepts plain HTTP calls.",
        hint="Remove HORIZONTAL_TRIGGER_REQUIRE_HTTPS = False; behind a TLS-terminating proxy set "
        "SECURE_PROXY_SSL_HEADER so request.is_secure() is true.",
        id="horizontal.W082",
    )


def W083() -> checks.Warning:
    return checks.Warning(
        "HORIZONTAL_TRIGGER_SECRET is the SECRET_KEY (or one of its fallbacks).",
        hint="Give the trigger a secret of its own: the scheduler that holds it can then "
        "not sign sessions, and either can be rotated alone.",
        id="horizontal.W083",
    )


def _trigger_route(patterns: Iterable[Any], prefix: str = "") -> str | None:
    """The route of the first pattern whose view is the trigger, in ``patterns`` or any
    include below them, namespaced or not (anything that is not a ``URLPattern`` is a
    resolver there): matched by view, so a project's own view of the same name is not."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLPattern):
            if pattern.callback is trigger:
                return route
        else:
            found = _trigger_route(pattern.url_patterns, route)
            if found is not None:
                return found
    return None


def _trigger_path() -> str | None:
    if not getattr(settings, "ROOT_URLCONF", None):
        return None  # a project without URLs (a worker-only settings module)
    # reverse() first builds the lookup tables of the whole URLconf (about 10 ms with the
    # admin): asked only once a walk of the patterns found the trigger somewhere.
    route = _trigger_route(get_resolver(get_urlconf()).url_patterns)
    if route is None:
        return None
    try:
        return trigger_path("NAME")
    except NoReverseMatch:
        # Under a namespace of the project's own: routed all the same.
        return "/" + route


@register(Tags.security, TAG, deploy=True)
def check_trigger(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    secret = conf.TRIGGER_SECRET
    if secret is None:
        routed = _trigger_path()
        return [] if routed is None else [W080(routed)]
    found: list[CheckMessage] = []
    length = len(secret.encode())
    if length < MIN_SECRET_BYTES:
        found.append(W081(length))
    if site_says_https() and conf.TRIGGER_REQUIRE_HTTPS is False:
        found.append(W082())
    keys = [getattr(settings, "SECRET_KEY", None), *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    if secret in keys:
        found.append(W083())
    return found


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
