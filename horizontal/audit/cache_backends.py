"""The project's own cache backends that keep their entries where Django's local ones do.

``class DummyRedisCache(LocMemCache)`` named in ``CACHES``: a per-process cache, found as
``LocMemCache`` is (``settings_rules.bad_backends``). Read from the text of every module,
before any parse: such a module has nothing else the scan parses for.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import class_paths, last_part

__all__ = ["cache_subclasses"]

# Django's cache backends that keep entries in this process or on this host's disk, by the
# class name a project's own backend extends.
LOCAL_CACHE_BASES = {
    "LocMemCache": "django.core.cache.backends.locmem.LocMemCache",
    "FileBasedCache": "django.core.cache.backends.filebased.FileBasedCache",
}


def cache_subclasses(name: str, text: str) -> Iterator[tuple[str, str]]:
    """(dotted path, Django backend it extends) for each module-level class of the file
    that subclasses ``LocMemCache`` or ``FileBasedCache``
    (``common.cache_backends.DummyRedisCache``): named as a cache backend, it keeps what
    that backend keeps where that backend does. Read from the text: such a module has
    nothing else the scan parses for."""
    package = posixpath.join(posixpath.dirname(name), "__init__.py")
    for match in CLASS_HEADER.finditer(text):
        bases = [LOCAL_CACHE_BASES.get(last_part(b.strip())) for b in match[2].split(",")]
        extended = next((b for b in bases if b is not None), None)
        if extended is not None:
            for path in (*class_paths(name, match[1]), *class_paths(package, match[1])):
                yield path, extended


# ``class DummyRedisCache(LocMemCache):`` at the top of a module (bases on one line or more).
CLASS_HEADER = lazy_compile(r"^class\s+(\w+)\s*\(([^)]*)\)\s*:", re.M)
