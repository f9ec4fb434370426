"""The deploy checks' view: the source of the settings module this process imported.

``check --deploy`` sees the live settings values, not how they were made: that a
``SECRET_KEY`` came from a random call (W050), a cache ``KEY_PREFIX`` from the hostname,
or ``HORIZONTAL_INSTANCE_ID`` from a literal every instance shares. These functions read
the source of the imported settings module and of every module it takes settings from
(``from .base import *``), found in ``sys.modules``, with the audit's rules; the cache
namespaces are read in ``cache_namespaces.py`` (a key function's code in
``key_functions.py``), the instance id in ``instance_ids.py``. They never
import a module, and leave out nothing for looking like development settings: the module
being checked is the one deployed. The checks import this module lazily, inside the
check, so that a web worker never loads it.
"""

from __future__ import annotations

import ast
import glob
import os
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from horizontal.audit.settings_branches import off_by_default_statements
from horizontal.audit.settings_secrets import random_value_line
from horizontal.audit.settings_values import apply_env_schema, top_level_settings
from horizontal.audit.source import PythonModule, dotted

__all__ = [
    "imported_module",
    "last_unconditional_assignment",
    "random_secret_key_sites",
    "settings_sources",
]


def settings_sources(
    module_name: str, deciding: str | None = None
) -> list[tuple[PythonModule, str]]:
    """The parsed source of the imported settings module ``module_name`` and of every
    module it takes settings from (``from .base import *``, ``from X import NAME``), to
    any depth, each with its module name; the module itself first. Nothing is imported.

    With ``deciding`` (a setting's name), an import that a later unconditional assignment
    of that setting overrides is not followed: what it set there is not what runs."""
    return list(_imported_settings(module_name, None, depth_first=False, deciding=deciding))


def random_secret_key_sites(module_name: str) -> list[str]:
    """``path:line`` of each random ``SECRET_KEY`` in the imported settings module
    ``module_name`` and in the modules it takes its settings from (``from .base import *``,
    ``from X import SECRET_KEY``), followed to any depth.

    The same rule as the audit's (``settings_secrets.random_value_line``), for ``check
    --deploy`` (horizontal.W050).
    """
    sites: list[str] = []
    names = ("*", "SECRET_KEY")
    settings_modules = _imported_settings(
        module_name, names, depth_first=True, deciding="SECRET_KEY"
    )
    for module, _name in settings_modules:
        # ``env = environ.Env(DJANGO_SECRET_KEY=(str, get_random_secret_key()))``: the
        # schema's default read where ``env("DJANGO_SECRET_KEY")`` reads it.
        apply_env_schema(module)
        statements = top_level_settings(module).get("SECRET_KEY", [])
        # As the audit reads it: a key generated only in a branch production does not
        # take (under DEBUG, after a guard that stops production without a key) is not
        # production's; nor is one a later unconditional assignment replaces.
        off = off_by_default_statements(module.tree)
        last = last_unconditional_assignment(module, "SECRET_KEY")
        for statement in sorted(statements, key=lambda node: node.lineno):
            if id(statement) in off or statement.lineno < last:
                continue
            line = random_value_line(
                module, statement, helpers=imported_module, follow_classes=True
            )
            if line is not None:
                sites.append(f"{module.path}:{line}")
    return sites


def _imported_settings(
    module_name: str,
    names: tuple[str, ...] | None,
    *,
    depth_first: bool,
    deciding: str | None = None,
) -> Iterator[tuple[PythonModule, str]]:
    """``module_name``'s source and that of each module it takes ``names`` from
    (``_settings_imports``), each once, with its module name: depth first (each import
    followed before the next, as Python runs them) or breadth first."""
    seen: set[str] = set()
    pending = [module_name]
    while pending:
        name = pending.pop() if depth_first else pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        source = _imported_source(name)
        if source is None:
            continue
        module, package = source
        yield module, name
        after = last_unconditional_assignment(module, deciding) if deciding else 0
        # django-split-settings runs its components in the module's namespace: read them
        # where ``include()`` names them (they are files, never imported modules).
        components = _split_settings_components(module, after)
        for index, component in enumerate(components):
            # A later component that assigns the setting outright replaces this one's.
            if deciding and any(
                last_unconditional_assignment(later, deciding) for later in components[index + 1 :]
            ):
                continue
            yield component, f"{name}:{os.path.basename(component.path)}"
        imported = list(_settings_imports(module, package, names, after))
        pending.extend(reversed(imported) if depth_first else imported)


def _split_settings_components(module: PythonModule, after: int = 0) -> list[PythonModule]:
    """The files django-split-settings' ``include("components/base.py", "*.py")`` runs,
    in order, parsed; a name whose list is given (``include(*base_settings)``) is read
    from its module-level binding. Not those included before line ``after``."""
    if "split_settings" not in module.text or "include" not in module.text:
        return []
    lists = {
        target.id: node.value
        for node in module.tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List | ast.Tuple)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    folder = os.path.dirname(module.path)
    found: list[PythonModule] = []
    for node in _module_level_statements(module.tree.body):
        if node.lineno < after:
            continue
        for call in ast.walk(node):
            if not (
                isinstance(call, ast.Call)
                and (dotted(call.func) or "").rpartition(".")[2] == "include"
            ):
                continue
            for argument in call.args:
                if isinstance(argument, ast.Starred) and isinstance(argument.value, ast.Name):
                    argument = lists.get(argument.value.id, argument)
                for text in _strings(argument):
                    for path in sorted(glob.glob(os.path.join(folder, text))):
                        parsed = _parsed_file(path)
                        if parsed is not None and parsed not in found:
                            found.append(parsed)
    return found


def _strings(node: ast.AST) -> list[str]:
    """The string literals in ``node`` (``optional("local.py")`` gives its path too)."""
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _parsed_file(path: str) -> PythonModule | None:
    try:
        return _parsed(path, os.stat(path).st_mtime) if path.endswith(".py") else None
    except OSError:
        return None


def _imported_source(module_name: str) -> tuple[PythonModule, str] | None:
    """The parsed source of the imported module ``module_name``, with the package its
    relative imports start from; None when it is not imported or has no ``.py`` source."""
    loaded = sys.modules.get(module_name)
    filename = getattr(loaded, "__file__", None)
    if not isinstance(filename, str) or not filename.endswith(".py"):
        return None
    try:
        module = _parsed(filename, os.stat(filename).st_mtime)
    except OSError:
        return None
    if module is None:
        return None
    # A package's __init__ is its own package; a plain module's is its parent's.
    package = getattr(loaded, "__package__", None) or module_name.rpartition(".")[0]
    module.package = package  # what its relative imports start from
    return module, package


def imported_module(module_name: str) -> PythonModule | None:
    """The parsed source of an imported project module (a settings helper), or None for
    the standard library and installed packages: the audit follows only the scanned
    tree's modules, and parsing ``os.py`` on every ``check --deploy`` would cost."""
    loaded = sys.modules.get(module_name)
    filename = getattr(loaded, "__file__", None)
    if not isinstance(filename, str) or _installed(filename):
        return None
    source = _imported_source(module_name)
    return source[0] if source else None


def _installed(filename: str) -> bool:
    parts = Path(filename).parts
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    prefixes = {sys.base_prefix, sys.base_exec_prefix}
    return any(Path(filename).is_relative_to(Path(prefix, "lib")) for prefix in prefixes)


@cache
def _parsed(filename: str, mtime: float) -> PythonModule | None:
    # Keyed by mtime so that an edited module (runserver's reloads) is read again.
    try:
        text = Path(filename).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return PythonModule.parse(filename, text)


def last_unconditional_assignment(module: PythonModule, name: str) -> int:
    """The line of the last top-level statement that assigns ``name`` whatever the
    branch (``SECRET_KEY = os.environ["KEY"]``), or 0: what comes before it is replaced.
    One that reads the name (``CACHES = {**CACHES, "pages": …}``) extends it instead."""
    last = 0
    for node in module.tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and not any(
            isinstance(read, ast.Name) and read.id == name for read in ast.walk(node.value)
        ):
            last = node.lineno
    return last


def _module_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """What a module runs at import, in order: its statements, and those of its
    ``try``/``if`` blocks (not of its functions and classes)."""
    for node in body:
        yield node
        if isinstance(node, ast.Try | ast.TryStar):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse):
                yield from _module_level_statements(block)
            yield from _module_level_statements(node.finalbody)
        elif isinstance(node, ast.If):
            yield from _module_level_statements(node.body)
            yield from _module_level_statements(node.orelse)


def _settings_imports(
    module: PythonModule, package: str, names: tuple[str, ...] | None, after: int = 0
) -> Iterator[str]:
    """Modules a settings module pulls settings from: ``*`` or one of ``names`` (any
    UPPERCASE name when ``names`` is None); not those imported before line ``after``.
    Also under a module-level ``try`` or ``if`` (``try: from .local import *`` / ``except
    ImportError: pass``): only a module the process imported is read
    (``_imported_source``), so a branch not taken names nothing."""
    for node in _module_level_statements(module.tree.body):
        if not isinstance(node, ast.ImportFrom) or node.lineno < after:
            continue
        if names is None:
            if not any(a.name == "*" or a.name.isupper() for a in node.names):
                continue
        elif not any(alias.name in names for alias in node.names):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            yield f"{base}.{node.module}" if node.module else base
        elif node.module:
            yield node.module
