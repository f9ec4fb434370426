"""``horizontal.checks._classes``: how a configured class is matched against known ones.

``is_a`` never imports a known class to compare with: it matches a class's bases by
dotted path, or uses a known class already held by its (loaded) module. So every known
path the checks list must name a class where it is defined, or where its defining
module's parent package re-exports it eagerly; a lazy re-export must be listed with the
defining path beside it (``horizontal.sessions.names.STORE_CLASSES``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys

import pytest
from django.utils.module_loading import import_string

import horizontal.checks
from horizontal.checks._classes import is_a

DOTTED_CLASS = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+\.[A-Z]\w*")


def known_class_paths() -> set[str]:
    found: set[str] = set()
    for info in pkgutil.iter_modules(horizontal.checks.__path__):
        module = importlib.import_module(f"horizontal.checks.{info.name}")
        for value in vars(module).values():
            values = value if isinstance(value, tuple | frozenset | set | list) else [value]
            found |= {v for v in values if isinstance(v, str) and DOTTED_CLASS.fullmatch(v)}
    return found


def test_every_known_class_can_be_matched_without_importing_it() -> None:
    paths = known_class_paths()
    unmatched = []
    for path in sorted(paths):
        try:
            cls = import_string(path)
        except ImportError:
            continue  # not installed here: nothing configured can subclass it
        if not isinstance(cls, type):
            continue
        defined = f"{cls.__module__}.{cls.__qualname__}"
        holder = path.rpartition(".")[0]
        eager_parent = cls.__module__.startswith(f"{holder}.") and (
            vars(sys.modules[holder]).get(path.rpartition(".")[2]) is cls
        )
        if defined != path and not eager_parent and defined not in paths:
            unmatched.append(f"{path} (defined as {defined})")
    assert unmatched == []


class ProjectLocMemCache(importlib.import_module("django.core.cache.backends.locmem").LocMemCache):
    pass


@pytest.mark.parametrize(
    "known",
    [
        ("django.core.cache.backends.locmem.LocMemCache",),  # where it is defined
        ("django.core.files.storage.FileSystemStorage", "x.Y"),  # unrelated paths
    ],
)
def test_a_project_subclass_matches_by_its_bases_paths(known: tuple[str, ...]) -> None:
    expected = "django.core.cache.backends.locmem.LocMemCache" in known
    assert is_a(ProjectLocMemCache, known) is expected
    assert is_a(f"{__name__}.ProjectLocMemCache", known) is expected


def test_a_known_class_whose_module_nobody_loaded_is_not_imported() -> None:
    # No configured class can subclass a class whose module nobody loaded: "no", unloaded.
    unloaded = "tests.checks.unloaded_backend"
    assert unloaded not in sys.modules
    assert is_a(ProjectLocMemCache, (f"{unloaded}.SomeBackend",)) is False
    assert unloaded not in sys.modules
