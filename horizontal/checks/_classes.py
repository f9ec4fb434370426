"""Whether a configured backend is a known class: the one test every check module uses;
and whether the project set a setting at all.

A dotted path equal to a known one is classified without importing anything; any other
path (or a class itself) is tested with ``issubclass``, so a project's subclass counts.
A path that cannot be imported is never a match: Django fails loudly the first time it
uses such a backend, and guessing from a name would warn about classes we cannot see.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

__all__ = ["backends", "import_class", "is_a", "is_overridden"]


def is_overridden(setting: str) -> bool:
    """Whether the project's settings set ``setting`` (not Django's default)."""
    # django-stubs' plugin types ``settings`` as the configured Settings, which lacks
    # LazySettings' method; here, and only here, we say so.
    return bool(settings.is_overridden(setting))  # type: ignore[misc]


@cache
def import_class(path: str) -> type | None:
    """The class at dotted ``path``, or ``None`` if it cannot be imported or is no class."""
    try:
        found = import_string(path)
    except (ImportError, ImproperlyConfigured):
        # Not installed, or it needs a system library (GDAL) this machine lacks.
        return None
    return found if isinstance(found, type) else None


def is_a(backend: object, known: Collection[str]) -> bool:
    """Whether ``backend`` (a dotted path or a class) is one of ``known`` or a subclass."""
    if isinstance(backend, str):
        if backend in known:
            return True
        backend = import_class(backend)
    if not isinstance(backend, type):
        return False
    bases = (import_class(path) for path in known)
    return any(base is not None and issubclass(backend, base) for base in bases)


def backends(setting: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """(alias, BACKEND) for a CACHES/TASKS/CHANNEL_LAYERS/MAILERS-shaped setting."""
    for alias, config in setting.items():
        if isinstance(config, Mapping):
            yield str(alias), config.get("BACKEND")
