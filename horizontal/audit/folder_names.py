"""Where a written file's folder is decided: the module's top-level assignments its path
is built from (``DATA_DIR = STATIC_DIR / "data"`` for ``DATA_DIR / "votes.parquet"``).
``files.py`` relates them to its write findings; labels often sit on those lines. A
function that names no place at all writes where its caller or its data says.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from horizontal.audit.findings import Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import FunctionNode, PythonModule, calls_to, string_value

__all__ = ["names_a_place", "place_named", "where_the_folder_is_named"]


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


# ``/srv/data/x.json``, ``~/.cache``, ``exports/report.csv``: a literal that is a path
# (not a media type, ``text/csv``).
PATH_LITERAL = lazy_compile(
    r"^(/|~/|(?!(application|text|image|audio|video|multipart|font)/)[\w.-]+/)"
)
# ``self.input_path``, ``self.get_cert_dir()``: the object's own folder.
PLACE_ATTRIBUTE = lazy_compile(r"dir|path|root|folder", re.IGNORECASE)


def place_named(module: PythonModule, function: FunctionNode, line: int, target: ast.AST) -> bool:
    """Where a write at ``line`` of ``function`` goes is decided here: the written path has a
    literal in it (a file name in the working folder, ``"/srv/a" + name``), or the function
    (or the one it is nested in, or a caller in this module, two levels up) names a place
    (``names_a_place``), or a caller passes a literal (``cls._create_key(".key.pem")``).
    Otherwise a record's or a parameter's path decides, elsewhere."""
    if any(string_value(node) is not None for node in ast.walk(target)):
        return True
    outer = module.scope(function).function
    if outer is not None and names_a_place(module, outer, line):
        return True
    return _named_here_or_by_callers(module, function, line, 0)


def _named_here_or_by_callers(
    module: PythonModule, function: FunctionNode, line: int, depth: int
) -> bool:
    if names_a_place(module, function, line):
        return True
    if depth >= 2:
        return False
    return any(
        caller is not function
        and (
            any(string_value(argument) is not None for argument in call.args)
            or _named_here_or_by_callers(module, caller, call.lineno, depth + 1)
        )
        for caller, call in calls_to(module, function.name)
    )


def names_a_place(module: PythonModule, function: FunctionNode, line: int) -> bool:
    """``function``, up to ``line``, names somewhere files live: a setting
    (``settings.EXPORT_DIR``), a constant (``CACHE_ROOT``), a path literal, a folder or
    path of its object (``self.input_path``, ``self.get_cert_dir()``), or calls a function
    of this module that does (``local_path = get_template_path()``). A write in a
    function that names none (``open(filename, "w")`` of a parameter, ``open(record.file,
    "w")``) puts the file where its caller or its data says; the place, if it is one
    host's disk, is decided and judged elsewhere."""
    return _names_a_place(module, function, line, helpers=True)


def _names_a_place(module: PythonModule, function: FunctionNode, line: int, helpers: bool) -> bool:
    called: set[str] = set()
    for node in ast.walk(function):
        if getattr(node, "lineno", 0) > line:
            continue
        if isinstance(node, ast.Name) and (node.id == "settings" or _constant(node.id)):
            return True
        if isinstance(node, ast.Attribute) and (
            _constant(node.attr)
            or (
                isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and PLACE_ATTRIBUTE.search(node.attr) is not None
            )
        ):
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and PATH_LITERAL.match(node.value)
        ):
            return True
        if helpers and isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                called.add(func.id)
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in {"self", "cls"}
            ):
                called.add(func.attr)
    if not called:
        return False
    return any(
        isinstance(helper, ast.FunctionDef | ast.AsyncFunctionDef)
        and helper.name in called
        and helper is not function
        and _names_a_place(module, helper, helper.end_lineno or helper.lineno, helpers=False)
        for helper in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef)
    )


def _constant(name: str) -> bool:
    """``EXPORT_DIR``, ``CACHE_ROOT``: a module's or a class's constant (not ``DEBUG``)."""
    return len(name) >= 4 and name.isupper() and name != "DEBUG"
