"""What makes a task queue run its tasks inline, for ``horizontal.W049``
(``background.py``): a setting read as the library reads it, and Celery told so in the
project's own code (``horizontal.audit.celery_conf`` reads the source). Imported by the
check when it runs, not at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.conf import settings

from horizontal.audit.rq_queues import RQ_INLINE
from horizontal.checks._base import relative_place

if TYPE_CHECKING:
    from horizontal.audit.celery_conf import CeleryConf, EagerOption

__all__ = ["eager_in_code", "eager_setting", "guard_holds"]

_UNSET = object()


def _reads_as(found: object, value: object) -> bool:
    """Whether a setting's value means ``value`` to the library, which tests its truth:
    ``"False"`` from the environment is eager, ``""`` is not async."""
    return found is not _UNSET and bool(found) is bool(value)


def eager_setting(setting: str, key: str | None, value: object) -> str | None:
    """The setting as reported when it is set to ``value`` (under ``key``, per alias)."""
    current = getattr(settings, setting, _UNSET)
    if key is None:
        return setting if _reads_as(current, value) else None
    if isinstance(current, Mapping):
        if _reads_as(current.get(key, _UNSET), value):
            return f"{setting}[{key!r}]"
        if setting == "RQ_QUEUES":  # one config per queue
            for alias, config in current.items():
                if isinstance(config, Mapping) and _reads_as(config.get(key, _UNSET), value):
                    return f"{setting}[{alias!r}][{key!r}]"
    elif current is not None and _reads_as(getattr(current, key, _UNSET), value):
        return f"{setting}.{key}"  # a Huey instance
    return None


def eager_in_code(conf: CeleryConf, reported: set[str]) -> list[tuple[str, str | None]]:
    """(what, where) for Celery told in the project's own code (``conf``, read from its
    apps and package) to run inline (``proj/celery.py``), each app module judged by the
    last write production takes, and for the eager setting of a namespace an app reads
    (``where`` None); ``reported`` are the settings already warned about."""
    found: list[tuple[str, str | None]] = []
    for namespace in sorted(conf.namespaces - {"CELERY", ""}):
        setting = eager_setting(f"{namespace}_TASK_ALWAYS_EAGER", None, True)
        if setting is not None and setting not in reported:
            found.append((setting, None))
    # Per app module, the write production takes last; a configuration object's value
    # never replaces a write on ``app.conf``, which Celery applies over it.
    last: dict[str, EagerOption] = {}
    for option in conf.eager:
        if not all(guard_holds(name, negated) for name, negated in option.guards):
            continue
        current = last.get(option.scope)
        if current is None or not option.from_source or current.from_source:
            last[option.scope] = option
    for option in last.values():
        if option.setting is not None and option.setting in reported:
            continue  # ``= settings.CELERY_TASK_ALWAYS_EAGER``: that setting's warning
        value = getattr(settings, option.setting, None) if option.setting else option.value
        if option.setting and option.option == RQ_INLINE:  # ``is_async=settings.X``
            value = not getattr(settings, option.setting, True)
        if option.variable is not None:  # ``os.environ.get("EAGER", "yes")``, as it runs
            value = os.environ.get(option.variable, option.fallback)
        if value:
            found.append((f"{option.option} set in code", relative_place(option.path, option.line)))
    return found


def guard_holds(setting: str, negated: bool) -> bool:
    """Whether ``if settings.X:`` (``if not settings.X:`` when negated) is taken here; a
    setting Django does not have is no known branch, so not taken."""
    if not hasattr(settings, setting):
        return False
    return bool(getattr(settings, setting)) is not negated
