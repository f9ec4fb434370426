"""Settings modules that star-import each other: which module's names replace which
(``prod.py``: ``from .base import *``), and what a module's star imports bring in.
``settings_modules`` reads a settings package as Python runs it with these.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from horizontal.audit.settings_files import is_dev_settings, is_served
from horizontal.audit.settings_values import top_level_settings
from horizontal.audit.source import PythonModule

__all__ = [
    "absolute_import_name",
    "has_star_import",
    "served_reexport",
    "star_imported_below",
    "star_imported_modules",
    "star_imported_settings",
    "star_importers",
]


def star_importers(modules: list[PythonModule]) -> dict[str, list[PythonModule]]:
    """For each module's path, the modules of the group that ``from … import *`` it,
    directly or through others (``prod.py``: ``from .base import *``, a package whose
    ``__init__.py`` star-imports ``django.py``: ``prod.py`` imports ``django.py`` too)."""
    by_name = {_module_name(m.path): m for m in modules}
    # A package whose ``__init__.py`` holds only imports is no settings module: read as
    # the settings modules of its folder.
    by_folder: dict[str, list[PythonModule]] = {}
    for m in modules:
        by_folder.setdefault(posixpath.basename(posixpath.dirname(m.path)), []).append(m)
    direct: dict[str, list[PythonModule]] = {}
    for module in modules:
        for node in _top_level_and_tried(module.tree.body):
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                name = _imported_name(module.path, node)
                base = by_name.get(name)
                bases = [base] if base is not None else by_folder.get(name, [])
                for imported in bases:
                    if imported is not module:
                        direct.setdefault(imported.path, []).append(module)
    importers: dict[str, list[PythonModule]] = {}
    for path, first in direct.items():
        found: list[PythonModule] = []
        pending = list(first)
        while pending:
            child = pending.pop(0)
            if child not in found and child.path != path:
                found.append(child)
                pending += direct.get(child.path, [])
        importers[path] = found
    return importers


def _top_level_and_tried(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's top-level statements, with those of a top-level ``try:`` body (``try:
    from .local_settings import *`` / ``except ImportError: pass``: in the tree, it runs)."""
    found: list[ast.stmt] = []
    for node in body:
        found.extend(node.body if isinstance(node, ast.Try) else [node])
    return found


def star_imported_below(
    module: PythonModule, group: Sequence[PythonModule]
) -> list[tuple[int, PythonModule]]:
    """(line, sibling) for each ``from .x import *`` of a sibling settings module at
    ``module``'s top level: what the sibling assigns replaces what ``module`` assigned
    above that line (a base that ends with ``from .local_config import *``)."""
    by_name = {_module_name(m.path): m for m in group if m is not module}
    return [
        (node.lineno, sibling)
        for node in module.tree.body
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        if (sibling := by_name.get(_imported_name(module.path, node))) is not None
    ]


def _module_name(path: str) -> str:
    """``settings/base.py``: ``base``; a package's ``abstract_base/__init__.py``: its name."""
    name = posixpath.basename(path)[: -len(".py")]
    return posixpath.basename(posixpath.dirname(path)) if name == "__init__" else name


def _imported_name(importer: str, node: ast.ImportFrom) -> str:
    """The last part of what ``from X import *`` names (``from . import *``: the package)."""
    if node.module:
        return node.module.rsplit(".", 1)[-1]
    package = posixpath.dirname(importer)
    for _ in range(node.level - 1):
        package = posixpath.dirname(package)
    return posixpath.basename(package)


def star_imported_settings(
    module: PythonModule,
    group: Sequence[PythonModule],
    elsewhere: Mapping[str, frozenset[str]],
) -> set[str] | None:
    """The settings names ``module``'s ``from … import *`` bring in, when every one of them
    is a settings module of the project (of this group, or ``elsewhere``: dotted module
    names of the other settings modules the scan read, to the names they assign); None
    when any is not (a library's, a file the scan did not read): its names are unknown."""
    by_name = {_module_name(m.path): m for m in group if m is not module}
    names: set[str] = set()
    for node in module.tree.body:
        if not (isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)):
            continue
        dotted_name = absolute_import_name(module.path, node)
        # A relative name is built from the path: the tree may be scanned from above the
        # import root, so its shorter suffixes are tried as well.
        candidates = [dotted_name]
        if node.level:
            parts = dotted_name.split(".")
            candidates += [".".join(parts[i:]) for i in range(1, len(parts))]
        known = next((elsewhere[c] for c in candidates if c in elsewhere), None)
        if known is not None:
            names |= known
        elif (sibling := by_name.get(_imported_name(module.path, node))) is not None:
            names |= top_level_settings(sibling).keys()
        else:
            return None
    return names


def absolute_import_name(importer: str, node: ast.ImportFrom) -> str:
    """``from crm.settings import *``: ``crm.settings``; relative: from ``importer``'s path."""
    if not node.level:
        return node.module or ""
    package = posixpath.dirname(importer)
    for _ in range(node.level - 1):
        package = posixpath.dirname(package)
    parts = [p for p in package.split("/") if p]
    return ".".join([*parts, *([node.module] if node.module else [])])


def star_imported_modules(module: PythonModule) -> list[str]:
    """The modules ``module`` star-imports at its top level, as written (``.base``: ``base``
    with its dots stripped; ``None`` for ``from . import *``: "")."""
    return [
        node.module or ""
        for node in module.tree.body
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]


def has_star_import(module: PythonModule) -> bool:
    return bool(star_imported_modules(module))


def served_reexport(module: PythonModule, served: AbstractSet[str]) -> bool:
    """A module wsgi.py serves that only star-imports production modules (``from .base
    import *``); one that re-exports a development module (``from .dev import *``) gets
    that module's values, which are not production's."""
    imported = star_imported_modules(module)
    return (
        bool(imported)
        and is_served(module.path, served)
        and not any(is_dev_settings(name.rsplit(".", 1)[-1] + ".py") for name in imported)
    )
