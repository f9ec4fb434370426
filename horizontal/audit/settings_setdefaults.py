"""Environment defaults a settings module sets before it star-imports its base.

``production.py``: ``os.environ.setdefault("CACHE_DEFAULT", "127.0.0.1:6379/2")`` and then
``from .base import *``, where ``config("CACHE_DEFAULT", default="localhost:6379/0")``
builds ``CACHES``: production's cache is the one the importing module names, decided at
its ``setdefault``. When every production module that imports the base directly sets the
same name first, the base's lookups of it are worth that default (placed at the lookup,
the ``setdefault`` related); a base one production module imports without setting it
keeps its own default.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping, Sequence

from horizontal.audit.env_lookups import env_default
from horizontal.audit.settings_star_imports import star_imported_below
from horizontal.audit.source import PythonModule, dotted, string_value

__all__ = ["apply_env_setdefaults"]

Defaults = dict[str, tuple[ast.expr, int]]  # name: (value, line of the setdefault)


def apply_env_setdefaults(
    modules: Sequence[PythonModule],
    children: Mapping[str, list[PythonModule]],
    production: Sequence[PythonModule],
) -> None:
    """Give each base's environment lookups the defaults its production importers set."""
    for base in modules:
        importers = [
            (module, line)
            for module in children.get(base.path, [])
            if module in production
            for line, imported in star_imported_below(module, modules)
            if imported is base
        ]
        if not importers:
            continue
        given = [_set_before(module, line) for module, line in importers]
        names = set(given[0]).intersection(*given[1:])
        module, _ = importers[0]
        for name in names:
            value, line = given[0][name]
            _default_lookups(base, name, value, (module.path, line))


def _set_before(module: PythonModule, star_line: int) -> Defaults:
    """``os.environ.setdefault("X", value)`` at ``module``'s top level above ``star_line``."""
    found: Defaults = {}
    for statement in module.tree.body:
        if statement.lineno >= star_line:
            break
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and dotted(call.func) in {"os.environ.setdefault", "environ.setdefault"}
            and len(call.args) == 2
            and (name := string_value(call.args[0]))
        ):
            found[name] = (call.args[1], statement.lineno)
    return found


def _default_lookups(
    base: PythonModule, name: str, value: ast.expr, place: tuple[str, int]
) -> None:
    for node in ast.walk(base.tree):
        if not (
            isinstance(node, ast.Call)
            and node.args
            and string_value(node.args[0]) == name
            and env_default(node) is not None
        ):
            continue
        default = ast.copy_location(copy.copy(value), node)
        for keyword in node.keywords:
            if keyword.arg in {"default", "fallback"}:
                keyword.value = default
                break
        else:
            node.args[1] = default  # os.getenv("X", d), env.str("X", d)
        base.declared_defaults[node.lineno] = place
