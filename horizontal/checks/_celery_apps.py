"""Which Django settings the project's Celery apps read, from its own code
(``horizontal.audit.celery_conf``): ``config_from_object("django.conf:settings",
namespace="TASKQ")`` reads ``TASKQ_BROKER_URL``, and leaves ``CELERY_BROKER_URL`` unread.
For W048 and W049; imported when they run, not at start-up.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from horizontal.audit.celery_conf import CeleryAddress, CeleryConf
    from horizontal.audit.eager_options import Guards

__all__ = [
    "celery_settings",
    "live_values",
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
        for a in (*conf.addresses, *conf.from_settings)
        if taken(a.guards) and (a.loaded_by is None or not replaced(a.loaded_by))
    ]


# What a live mapping given to ``app.conf.update(settings.CELERY)`` names a broker or a
# result store by: Celery's names and the pre-4.0 ones.
MAPPING_ADDRESS_KEYS = (
    "broker_url",
    "result_backend",
    "broker_read_url",
    "broker_write_url",
    "BROKER_URL",
    "CELERY_RESULT_BACKEND",
)


def live_values(given: CeleryAddress) -> list[tuple[str, object]]:
    """``(option, value)`` the code's write gives where the check runs: a Django setting
    read live (a mapping's addresses for ``app.conf.update(settings.CELERY)``); the
    environment's value where the variable the write reads is set (its fallback is then
    not what runs); else the value as written, its fallback."""
    from django.conf import settings

    if given.setting is not None:
        value = getattr(settings, given.setting, None)
        if given.option != "update":
            return [(given.option, value)] if value is not None else []
        if not isinstance(value, Mapping):
            return []
        return [(key, value[key]) for key in MAPPING_ADDRESS_KEYS if key in value]
    if given.node is not None and any(name in os.environ for name in given.variables):
        # The value as it runs: each lookup its variable's value, or its fallback.
        rendered = _rendered(given.node)
        return [(given.option, rendered)] if rendered is not None else []
    return [(given.option, given.value)]


def _rendered(node: ast.AST) -> str | None:
    """A string written in code with its environment lookups read here: a lookup is the
    variable's value or its fallback; an f-string or ``+`` joins its parts; None for a
    part the source does not tell."""
    from horizontal.audit.env_lookups import env_default, environment_variable

    variable = environment_variable(node)
    if variable is not None:
        if variable in os.environ:
            return os.environ[variable]
        fallback = env_default(node)
        return _rendered(fallback) if fallback is not None else None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.FormattedValue):
        return _rendered(node.value)
    parts = (
        node.values
        if isinstance(node, ast.JoinedStr)
        else [node.left, node.right]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
        else None
    )
    if parts is None:
        return None
    texts = [_rendered(part) for part in parts]
    return None if None in texts else "".join(t for t in texts if t is not None)
