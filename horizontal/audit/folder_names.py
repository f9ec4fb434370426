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
from horizontal.audit.temp_paths import passed_for, path_parameters

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


def place_named(
    module: PythonModule,
    function: FunctionNode,
    line: int,
    target: ast.AST,
    folder: tuple[Location, ...] = (),
) -> bool:
    """Where a write at ``line`` of ``function`` goes is decided here: the module's top
    level names its folder (``folder``, from ``where_the_folder_is_named``), the written
    path has a literal in it (a file name in the working folder, ``"/srv/a" + name``), the
    function (or the one it is nested in, or a caller in this module, two levels up) names
    a place (``names_a_place``), or a caller passes a literal for the path
    (``cls._create_key(".key.pem")``, ``_write(f"{doc.pk}.bin")``). Otherwise a record's
    or a parameter's path decides, elsewhere."""
    if folder or _has_literal(target):
        return True
    outer = module.scope(function).function
    if outer is not None and names_a_place(module, outer, line):
        return True
    return _named_here_or_by_callers(module, function, line, target, 0)


def _has_literal(node: ast.AST) -> bool:
    return any(string_value(child) is not None for child in ast.walk(node))


def _named_here_or_by_callers(
    module: PythonModule, function: FunctionNode, line: int, target: ast.AST, depth: int
) -> bool:
    if names_a_place(module, function, line):
        return True
    if depth >= 2:
        return False
    parameters = path_parameters(function, target)
    for caller, call in calls_to(module, function.name):
        if caller is function:
            continue
        given = [a for a in (passed_for(function, call, name) for name in parameters) if a]
        if any(_has_literal(argument) for argument in given):
            return True
        onward = given[0] if given else call
        if _named_here_or_by_callers(module, caller, call.lineno, onward, depth + 1):
            return True
    return False


def names_a_place(module: PythonModule, function: FunctionNode, line: int) -> bool:
    """``function``, up to ``line``, names somewhere files live: a setting
    (``settings.EXPORT_DIR``), a constant (``CACHE_ROOT``), a path literal, the module's
    own folder or the process's (``__file__``, ``Path.home()``, ``os.getcwd()``), an
    environment variable, a folder or path of its object or class (``self.input_path``,
    ``cls.cache_dir``, ``self.get_cert_dir()``, or an attribute its class binds to such a
    place: ``self.output = os.path.join(settings.EXPORT_ROOT, "x.csv")``), or calls a
    function that does (of this module, or imported and named for a folder:
    ``export_folder()``). A write in a function that names none (``open(filename, "w")``
    of a parameter, ``open(record.file, "w")``) puts the file where its caller or its data
    says; the place, if it is one host's disk, is decided and judged elsewhere."""
    if _names_a_place(module, function, line, helpers=True):
        return True
    cls = module.scope(function).cls
    if cls is None:
        return False
    used = {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in {"self", "cls"}
    }
    return any(_value_names_a_place(value) for value in _class_bindings(cls, used))


def _class_bindings(cls: ast.ClassDef, names: set[str]) -> list[ast.expr]:
    """What ``cls`` binds ``names`` to: class attributes, and ``self.x = …`` in its methods."""
    values: list[ast.expr] = []
    for node in ast.walk(cls):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if (isinstance(target, ast.Name) and target.id in names) or (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id in {"self", "cls"}
                and target.attr in names
            ):
                values.append(node.value)
    return values


def _value_names_a_place(value: ast.AST) -> bool:
    return any(_node_names_a_place(node) for node in ast.walk(value))


# Where the process or the module lives, and what the environment says.
PLACE_NAMES = frozenset({"settings", "__file__", "environ"})
PLACE_CALLS = frozenset({"getenv", "home", "cwd", "getcwd", "expanduser"})


def _node_names_a_place(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in PLACE_NAMES or _constant(node.id)
    if isinstance(node, ast.Attribute):
        if _constant(node.attr) or node.attr in PLACE_NAMES or node.attr in PLACE_CALLS:
            return True
        return (
            isinstance(node.value, ast.Name)
            and node.value.id in {"self", "cls"}
            and PLACE_ATTRIBUTE.search(node.attr) is not None
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in PLACE_CALLS
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and PATH_LITERAL.match(node.value) is not None
    )


def _names_a_place(module: PythonModule, function: FunctionNode, line: int, helpers: bool) -> bool:
    called: set[str] = set()
    for node in ast.walk(function):
        if getattr(node, "lineno", 0) > line:
            continue
        if _node_names_a_place(node):
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
    defined = {
        helper.name: helper
        for helper in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(helper, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for name in called:
        helper = defined.get(name)
        if helper is None:
            # Imported (or a builtin): its name is all there is to read.
            if name in module.imports and PLACE_ATTRIBUTE.search(name):
                return True
            continue
        if helper is not function and _names_a_place(
            module, helper, helper.end_lineno or helper.lineno, helpers=False
        ):
            return True
    return False


def _constant(name: str) -> bool:
    """``EXPORT_DIR``, ``CACHE_ROOT``: a module's or a class's constant (not ``DEBUG``)."""
    return len(name) >= 4 and name.isupper() and name != "DEBUG"
