"""Whether a configured backend is a known class: the one test every check module uses;
and whether the project set a setting at all.

A dotted path equal to a known one is classified without importing anything; any other
path (or a class itself) is imported and its bases compared, so a project's subclass
counts. A known class is never imported for the comparison: known paths name a class
where it is defined, or where a loaded module holds it.
A path that cannot be imported is never a match: Django fails loudly the first time it
uses such a backend, and guessing from a name would warn about classes we cannot see.
"""

from __future__ import annotations

import sys
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
    if any(_dotted(base) in known for base in backend.__mro__):
        return True
    bases = (_loaded_class(path) for path in known)
    return any(base is not None and issubclass(backend, base) for base in bases)


def _dotted(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _loaded_class(path: str) -> type | None:
    """The class a known path re-exports, if its module is loaded and holds it already.

    A subclass has imported its base, so a base nobody loaded cannot be one; importing it
    (or waking a module's lazy ``__getattr__``) would load a whole client library into
    ``check --deploy`` for no answer.
    """
    module_name, _, name = path.rpartition(".")
    module = sys.modules.get(module_name)
    found = vars(module).get(name) if module is not None else None
    return found if isinstance(found, type) else None


def backends(setting: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """(alias, BACKEND) for a CACHES/TASKS/CHANNEL_LAYERS/MAILERS-shaped setting."""
    for alias, config in setting.items():
        if isinstance(config, Mapping):
            yield str(alias), config.get("BACKEND")
