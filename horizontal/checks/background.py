"""Deploy warnings ``horizontal.W040``-``W049``: background work that runs per instance.

Channel layers (``W040``), ``TASKS`` backends (``W041``/``W042``; ``I041`` instead of
``W041`` when the project's own code neither defines nor enqueues a task) and the
in-process schedulers: django_apscheduler, django_crontab, django_cron's locks and an
embedded celery beat (``W043``-``W047``). ``W048``: a channel layer, a Celery broker or
result backend, Huey's or RQ's Redis addressed as this host (each instance has its own);
``W049``: Celery, Huey, django-q or RQ told to run tasks inline. Backends and apps are
the catalogue's (``horizontal.audit.known``), matched by class; only ``W047`` looks at the running
process instead of settings.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register, relative_place
from horizontal.checks._classes import backends, is_a, is_overridden
from horizontal.checks._service_addresses import (
    CELERY_ADDRESS_SETTINGS,
    huey_immediate,
    service_addresses,
)
from horizontal.checks.caches import NOT_SHARED_CACHES, cache_is

__all__ = [
    "DJANGO_CRON_CACHE_LOCK",
    "DJANGO_CRON_DEFAULT_LOCK",
    "DJANGO_CRON_FILE_LOCK",
    "DUMMY_TASKS",
    "IMMEDIATE_TASKS",
    "IN_MEMORY_CHANNEL_LAYERS",
    "W040",
    "W041",
    "W042",
    "W043",
    "W044",
    "W045",
    "W046",
    "W047",
    "W048",
    "W049",
    "check_apscheduler",
    "check_background_services_on_this_host",
    "check_channel_layers",
    "check_crontab",
    "check_django_cron_cache_lock",
    "check_django_cron_file_lock",
    "check_dummy_tasks",
    "check_eager_task_queues",
    "check_embedded_celery_beat",
    "check_immediate_tasks",
]

IN_MEMORY_CHANNEL_LAYERS = known.paths(known.IN_MEMORY_CHANNEL_LAYERS)
IMMEDIATE_TASKS = known.paths(known.IMMEDIATE_TASKS)
DUMMY_TASKS = known.paths(known.DUMMY_TASKS)
APSCHEDULER_APPS = known.paths(known.APSCHEDULER_APPS)
CRONTAB_APPS = known.paths(known.CRONTAB_APPS)
DJANGO_CRON_APP = "django_cron"
DJANGO_CRON_FILE_LOCK = known.paths(known.DJANGO_CRON_FILE_LOCKS)
DJANGO_CRON_CACHE_LOCK = known.paths(known.DJANGO_CRON_CACHE_LOCKS)
DJANGO_CRON_DEFAULT_LOCK = DJANGO_CRON_CACHE_LOCK[0]


# -- messages ----------------------------------------------------------------------------


def W040(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Channel layer {alias!r} is in memory: groups never reach other instances.",
        hint="Use channels_redis.core.RedisChannelLayer.",
        obj=f"CHANNEL_LAYERS[{alias!r}]",
        id="horizontal.W040",
    )


def W041(alias: str, implicit: bool) -> checks.Warning:
    return checks.Warning(
        f"Task backend {alias!r} runs tasks inline; they die with their instance.",
        # The project's code defines or enqueues tasks (else I041): TASKS = {} would
        # break those calls, so it is not offered.
        hint=(
            "TASKS is not set, so Django runs the project's tasks inline: configure a "
            "worker-backed backend (e.g. django-tasks-db)."
            if implicit
            else "Use a worker-backed backend (e.g. django-tasks-db)."
        ),
        obj=f"TASKS[{alias!r}]",
        id="horizontal.W041",
    )


def I041(alias: str, implicit: bool) -> checks.Info:
    return checks.Info(
        f"Task backend {alias!r} would run tasks inline; no code here uses tasks.",
        hint=(
            "Nothing to do while no task is defined or enqueued; before the first one, "
            "configure a worker-backed TASKS backend."
            if implicit
            else "Before the first task, use a worker-backed backend (e.g. django-tasks-db)."
        ),
        obj=f"TASKS[{alias!r}]",
        id="horizontal.I041",
    )


def W042(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Task backend {alias!r} is DummyBackend: enqueued tasks never run.",
        hint="Use a worker-backed backend (e.g. django-tasks-db); DummyBackend is for tests.",
        obj=f"TASKS[{alias!r}]",
        id="horizontal.W042",
    )


W043 = checks.Warning(
    "django_apscheduler: a scheduler in each instance runs every job N times.",
    hint="Run the scheduler in exactly one process, or call 'manage.py runjob' from cron.",
    obj="INSTALLED_APPS",
    id="horizontal.W043",
)

W044 = checks.Warning(
    "django_crontab installs the crontab on every host: jobs run N times.",
    hint="Run 'crontab add' on one host only, or have cron call 'manage.py runjob'.",
    obj="INSTALLED_APPS",
    id="horizontal.W044",
)

W045 = checks.Warning(
    "django_cron's FileLock is per host: every instance runs each cron job.",
    hint="Have cron call 'manage.py runjob' (one run per slot) instead of runcrons.",
    obj="DJANGO_CRON_LOCK_BACKEND",
    id="horizontal.W045",
)


def W046(reason: str) -> checks.Warning:
    return checks.Warning(
        f"django_cron's CacheLock {reason}: instances run the same job.",
        hint="Have cron call 'manage.py runjob' (one run per slot) instead of runcrons.",
        obj="DJANGO_CRON_LOCK_BACKEND",
        id="horizontal.W046",
    )


W047 = checks.Warning(
    "A celery beat runs inside this process: every web worker schedules tasks.",
    hint="Run exactly one 'celery beat' process, never inside web workers.",
    id="horizontal.W047",
)


def W048(
    setting: str, address: str, where: str | None = None, *, kept_here: bool = False
) -> checks.Warning:
    """``setting`` by name, or an option set in the project's code with ``where`` its
    place; ``kept_here`` for a store in a file or in the process, which no proxy reaches."""
    hint = (
        f"{address} keeps it in this host's file or process: use a server every instance "
        "shares (Redis, RabbitMQ, the database)."
        if kept_here
        else f"{address} is this host: point it at the server every instance shares. Behind "
        "a sidecar proxy to it, silence horizontal.W048."
    )
    return checks.Warning(
        f"{setting} is on this host: each instance has its own.",
        hint=hint,
        obj=where or setting,
        id="horizontal.W048",
    )


def W049(setting: str, where: str | None = None) -> checks.Warning:
    """``setting`` by name, or an option set in the project's code (``proj/celery.py``)
    with ``where`` its place."""
    return checks.Warning(
        f"{setting} makes tasks run inline, in the caller.",
        hint="Turn it off in production and run workers; inline modes are for tests.",
        obj=where or setting,
        id="horizontal.W049",
    )


# -- helpers -----------------------------------------------------------------------------


BACKPORT_IMMEDIATE_BACKEND = "django_tasks.backends.immediate.ImmediateBackend"


def _task_backends() -> Mapping[str, Any]:
    # Django < 6.0 has no TASKS default; there the django-tasks backport, installed with
    # TASKS unset, runs tasks with its ImmediateBackend.
    tasks = getattr(settings, "TASKS", None)
    if tasks is None and apps.is_installed("django_tasks"):
        return {"default": {"BACKEND": BACKPORT_IMMEDIATE_BACKEND}}
    return tasks or {}  # ``TASKS = {}``: no backend, so nothing runs inline


def _django_cron_lock() -> object:
    return getattr(settings, "DJANGO_CRON_LOCK_BACKEND", DJANGO_CRON_DEFAULT_LOCK)


def _embedded_celery_beat() -> bool:
    """Whether a celery beat service thread or process runs in this process.

    Whatever started it (an AppConfig.ready(), a settings import) has run by the time
    checks do; celery.beat is only looked at when something already imported it.
    """
    beat = sys.modules.get("celery.beat")
    if beat is None:
        return False
    kinds = tuple(
        kind
        for kind in (getattr(beat, "_Threaded", None), getattr(beat, "_Process", None))
        if isinstance(kind, type)
    )
    if not kinds:
        return False
    if any(isinstance(thread, kinds) for thread in threading.enumerate()):
        return True
    # Only now: a process that never imported celery.beat need not load multiprocessing.
    import multiprocessing

    return any(isinstance(child, kinds) for child in multiprocessing.active_children())


# -- checks ------------------------------------------------------------------------------


@register(TAG, deploy=True)
def check_channel_layers(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    layers = getattr(settings, "CHANNEL_LAYERS", None) or {}
    return [
        W040(alias)
        for alias, backend in backends(layers)
        if is_a(backend, IN_MEMORY_CHANNEL_LAYERS)
    ]


@register(TAG, deploy=True)
def check_immediate_tasks(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    implicit = not is_overridden("TASKS")
    inline = [
        alias for alias, backend in backends(_task_backends()) if is_a(backend, IMMEDIATE_TASKS)
    ]
    if not inline:
        return []
    # Only code that defines or enqueues tasks is harmed; a fresh project has none.
    from horizontal.audit.tree import uses_tasks
    from horizontal.checks.code import project_app_paths

    message = W041 if uses_tasks(project_app_paths(app_configs)) else I041
    return [message(alias, implicit) for alias in inline]


@register(TAG, deploy=True)
def check_dummy_tasks(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [
        W042(alias) for alias, backend in backends(_task_backends()) if is_a(backend, DUMMY_TASKS)
    ]


@register(TAG, deploy=True)
def check_apscheduler(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    passed_check = not any(apps.is_installed(app) for app in APSCHEDULER_APPS)
    return [] if passed_check else [W043]


@register(TAG, deploy=True)
def check_crontab(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    passed_check = not any(apps.is_installed(app) for app in CRONTAB_APPS)
    return [] if passed_check else [W044]


@register(TAG, deploy=True)
def check_django_cron_file_lock(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    passed_check = not apps.is_installed(DJANGO_CRON_APP) or not is_a(
        _django_cron_lock(), DJANGO_CRON_FILE_LOCK
    )
    return [] if passed_check else [W045]


@register(TAG, deploy=True)
def check_django_cron_cache_lock(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not apps.is_installed(DJANGO_CRON_APP) or not is_a(
        _django_cron_lock(), DJANGO_CRON_CACHE_LOCK
    ):
        return []
    alias = getattr(settings, "DJANGO_CRON_CACHE", "default")
    backend = (settings.CACHES.get(alias) or {}).get("BACKEND")
    if cache_is(backend, NOT_SHARED_CACHES):
        return [W046(f"uses local cache {alias!r}")]
    # On a shared cache it still reads, then sets: both instances can read "free".
    return [W046("is not atomic")]


@register(TAG, deploy=True)
def check_embedded_celery_beat(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W047] if _embedded_celery_beat() else []


# django-celery-results' cache backend: results in the Django cache alias named by
# CELERY_CACHE_BACKEND, or the default cache without one.
CELERY_DJANGO_CACHE = "django-cache"


def _celery_results_cache() -> tuple[str, object] | None:
    """(alias, BACKEND) of the cache that holds Celery's results, when it is Django's."""
    if getattr(settings, "CELERY_RESULT_BACKEND", None) != CELERY_DJANGO_CACHE:
        return None
    caches = getattr(settings, "CACHES", None) or {}
    alias = getattr(settings, "CELERY_CACHE_BACKEND", None)
    alias = alias if isinstance(alias, str) and alias in caches else "default"
    config = caches.get(alias)
    return alias, config.get("BACKEND") if isinstance(config, Mapping) else None


@register(TAG, deploy=True)
def check_background_services_on_this_host(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    from horizontal.audit.this_host import is_kept_here, this_host_addresses  # not at start-up
    from horizontal.checks import _celery_apps as celery_apps
    from horizontal.checks.code import project_app_paths

    conf = celery_apps.project_celery_conf(project_app_paths(app_configs))
    # The broker settings the project's Celery apps read (``TASKQ_BROKER_URL`` for
    # ``namespace="TASKQ"``), not a leftover ``CELERY_BROKER_URL`` they ignore.
    celery = celery_apps.celery_settings(conf, CELERY_ADDRESS_SETTINGS)
    found: list[CheckMessage] = []
    reported: set[str] = set()
    for setting, value in service_addresses(celery):
        address = next(this_host_addresses(value, live=True), None)
        if address is not None:
            reported.add(setting)
            found.append(W048(setting, address, kept_here=is_kept_here(address)))
    for given in celery_apps.production_addresses(conf):  # ``Celery("shop", broker=…)`` in its code
        if given.setting in reported:
            continue  # ``broker_url = settings.CELERY_BROKER_URL``: that setting's warning
        for option, value in celery_apps.live_values(given):
            address = next(this_host_addresses(value, live=True), None)
            if address is not None:
                place = relative_place(given.path, given.line)
                named = f"{option} set in code"
                found.append(W048(named, address, place, kept_here=is_kept_here(address)))
    results = _celery_results_cache()
    # A cache on this host's server is W004's; a cache in the process or its files is this.
    if results is not None and cache_is(results[1], NOT_SHARED_CACHES):
        alias, backend = results
        kind = str(backend).rsplit(".", 1)[-1]
        found.append(
            W048(
                "CELERY_RESULT_BACKEND",
                f"{CELERY_DJANGO_CACHE} on CACHES[{alias!r}], a {kind},",
                kept_here=True,
            )
        )
    return found


@register(TAG, deploy=True)
def check_eager_task_queues(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    # Not at start-up: the readers are for `check --deploy` alone.
    from horizontal.checks._celery_apps import project_celery_conf, reads_celery_prefix
    from horizontal.checks._eager_tasks import eager_in_code, eager_setting
    from horizontal.checks.code import project_app_paths

    conf = project_celery_conf(project_app_paths(app_configs))
    celery_read = reads_celery_prefix(conf)
    found = [
        eager_setting(*entry)
        for entry in known.EAGER_TASK_SETTINGS
        # ``CELERY_TASK_ALWAYS_EAGER`` left over where every app reads another namespace.
        if celery_read or not entry[0].startswith("CELERY_")
    ]
    huey = getattr(settings, "HUEY", None)
    if isinstance(huey, Mapping) and "immediate" not in huey and huey_immediate(huey):
        found.append("HUEY['immediate'] (unset, so DEBUG)")
    reported = [setting for setting in found if setting is not None]
    messages: list[CheckMessage] = [W049(setting) for setting in reported]
    if "horizontal.W049" not in settings.SILENCED_SYSTEM_CHECKS:
        messages += [W049(*place) for place in eager_in_code(conf, set(reported))]
    return messages
