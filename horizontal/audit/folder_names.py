"""Where a written file's folder is decided: the module's top-level assignments its path
is built from (``DATA_DIR = STATIC_DIR / "data"`` for ``DATA_DIR / "votes.parquet"``).
``files.py`` relates them to its write findings; labels often sit on those lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from horizontal.audit.findings import Location
from horizontal.audit.source import FunctionNode, PythonModule

__all__ = ["where_the_folder_is_named"]


def where_the_folder_is_named(
    module: PythonModule, function: FunctionNode | None, target: ast.AST
) -> tuple[Location, ...]:
    """The module's top-level assignments a written path is built from (``DATA_DIR =
    STATIC_DIR / "data"`` for ``DATA_DIR / "votes.parquet"``, through the function's own
    names): where the folder the file goes to is decided, as related places."""
    top = _assignments(module.tree.body)
    local = _assignments(list(ast.walk(function))) if function is not None else {}
    pending = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    seen: set[str] = set()
    places: list[Location] = []
    while pending and len(places) < FOLDER_PLACES_SHOWN:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in local:
            pending += [n.id for n in ast.walk(local[name]) if isinstance(n, ast.Name)]
        elif name in top:
            places.append(Location(module.path, top[name].lineno))
            pending += [n.id for n in ast.walk(top[name]) if isinstance(n, ast.Name)]
    return tuple(places)


FOLDER_PLACES_SHOWN = 3


def _assignments(statements: Iterable[ast.AST]) -> dict[str, ast.expr]:
    """``NAME = value`` among ``statements``: each name's last value."""
    found: dict[str, ast.expr] = {}
    for statement in statements:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                found[target.id] = statement.value
    return found
