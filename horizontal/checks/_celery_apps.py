"""Which Django settings the project's Celery apps read, from its own code
(``horizontal.audit.celery_conf``): ``config_from_object("django.conf:settings",
namespace="TASKQ")`` reads ``TASKQ_BROKER_URL``, and leaves ``CELERY_BROKER_URL`` unread.
For W048 and W049; imported when they run, not at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from horizontal.audit.celery_conf import CeleryAddress, CeleryConf
    from horizontal.audit.eager_options import Guards

__all__ = [
    "celery_settings",
    "production_addresses",
    "project_celery_conf",
    "reads_celery_prefix",
]

# The settings of a broker or a result store, after the namespace's prefix.
ADDRESS_OPTIONS = ("BROKER_URL", "RESULT_BACKEND", "BROKER_READ_URL", "BROKER_WRITE_URL")


def project_celery_conf(paths: Iterable[Path]) -> CeleryConf:
    """``celery_conf`` of the project's code (read afresh: an edited ``celery.py`` is
    judged as it is now)."""
    from horizontal.audit.celery_conf import celery_conf

    return celery_conf(paths)


def reads_celery_prefix(conf: CeleryConf) -> bool:
    """Whether Celery reads the usual ``CELERY_…`` settings (or the old unprefixed ones):
    yes unless every app the code configures from Django's settings takes another
    namespace, or no app is configured in the project's code (nothing to tell)."""
    return not conf.namespaces or bool(conf.namespaces & {"CELERY", ""})


def celery_settings(conf: CeleryConf, usual: Iterable[str]) -> list[str]:
    """``usual`` (``CELERY_BROKER_URL``, ``BROKER_URL``, …) as the project's apps read
    them: with the namespaced names (``TASKQ_BROKER_URL``) of each app that takes its
    own, and without ``usual`` where every app does."""
    names = list(usual) if reads_celery_prefix(conf) else []
    prefixes = sorted(conf.namespaces - {"CELERY", ""})
    return names + [f"{prefix}_{option}" for prefix in prefixes for option in ADDRESS_OPTIONS]


def production_addresses(conf: CeleryConf) -> list[CeleryAddress]:
    """The brokers and result stores the project's Celery code writes where production
    runs it: not under ``if settings.DEBUG:`` (the ``if`` tests read live)."""
    from horizontal.checks._eager_tasks import guard_holds

    def taken(guards: Guards) -> bool:
        return all(guard_holds(name, negated) for name, negated in guards)

    def replaced(load: int) -> bool:
        # A later ``config_from_object`` in the same file replaces the object, where taken.
        loader = conf.loads[load][0]
        return any(path == loader and taken(g) for path, g in conf.loads[load + 1 :])

    return [
        a
        for a in conf.addresses
        if taken(a.guards) and (a.loaded_by is None or not replaced(a.loaded_by))
    ]
