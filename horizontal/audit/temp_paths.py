"""Temp files and scratch directories: whether a path a function writes is gone before
the request ends.

A path is temp when it comes from a temp factory (``TemporaryDirectory``, ``mkstemp``) in
the function, from an object's own scratch directory (``self.tmp_dir`` and what the class
derives from it), or from a directory every caller in the module passes from its own temp
directory. ``files.py`` asks here before it reports a write. Parsed source only.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    calls_to,
    dotted,
    keyword,
    last_part,
)

TEMP_FACTORIES = frozenset(
    {
        "mkstemp",
        "mkdtemp",
        "NamedTemporaryFile",
        "TemporaryFile",
        "TemporaryDirectory",
        "SpooledTemporaryFile",
        "gettempdir",
    }
)
# The factories whose file or folder goes away by itself (on close, or when collected).
SELF_DELETING = frozenset(
    {"NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile", "TemporaryDirectory"}
)
TEMP_LEFT_BEHIND = (
    "temp file is written and left behind: a later request on another instance cannot read it"
)
CLEANUP_FUNCTIONS = frozenset({"os.remove", "os.unlink", "os.rmdir", "shutil.rmtree"})
CLEANUP_METHODS = frozenset({"unlink", "rmtree", "cleanup"})  # Path, TemporaryDirectory
# ``get_tmp_local_path()``, ``make_temp_dir()``: a project helper named for the temp
# folder it gives (not ``template_path()``).
TEMP_HELPER = lazy_compile(r"(^|_)(te?mp|tmp_?dir|temp_?dir)(_|$)", re.IGNORECASE)


def _makes_temp(name: str) -> bool:
    return name in TEMP_FACTORIES or bool(TEMP_HELPER.search(name))


# self.tempdir, self._temp_dir, self.scratch_dir: a scratch directory the object owns.
OWNED_SCRATCH = lazy_compile(r"^_*(te?mp|scratch)[a-z_]*$|dir_?te?mp$", re.IGNORECASE)


class Scratch(NamedTuple):
    """What a class derives from its own scratch directory: attributes assigned from it
    (``self.data_dir = join(self.tmp_dir, …)``) and methods that return a path in it."""

    attributes: frozenset[str] = frozenset()
    methods: frozenset[str] = frozenset()


NO_SCRATCH = Scratch()


def class_scratch(module: PythonModule, cls: ast.ClassDef | None) -> Scratch:
    """The attributes and methods of ``cls`` that hold or return a path inside the
    object's own scratch directory (followed three steps)."""
    if cls is None:
        return NO_SCRATCH
    scratch = NO_SCRATCH
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for _ in range(3):
        attributes, returning = set(scratch.attributes), set(scratch.methods)
        for method in methods:
            names = temp_names(module, method, owned=True, scratch=scratch)
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and mentions_temp(
                    module, node.value, names, owned=True, scratch=scratch
                ):
                    attributes.update(
                        t.attr
                        for t in node.targets
                        if isinstance(t, ast.Attribute) and dotted(t.value) == "self"
                    )
                elif (
                    isinstance(node, ast.Return)
                    and node.value is not None
                    and mentions_temp(module, node.value, names, owned=True, scratch=scratch)
                ):
                    returning.add(method.name)
        found = Scratch(frozenset(attributes), frozenset(returning))
        if found == scratch:
            break
        scratch = found
    return scratch


def temp_names(
    module: PythonModule,
    function: FunctionNode,
    *,
    owned: bool = False,
    scratch: Scratch = NO_SCRATCH,
) -> set[str]:
    """Names in a function that hold a temp file or directory, or a path inside one.

    ``owned``: only those derived from an object's own scratch directory
    (``self.tempdir``), which the object creates and removes (``__exit__``, ``cleanup``),
    or from what ``scratch`` says the class derives from it.
    """
    names: set[str] = set()
    for node in sorted(ast.walk(function), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, ast.withitem) and node.optional_vars is not None:
            if mentions_temp(module, node.context_expr, names, owned=owned, scratch=scratch):
                names |= _bound_names(node.optional_vars)
        elif (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and mentions_temp(module, node.value, names, owned=owned, scratch=scratch)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= _bound_names(target)
    return names


def _bound_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def mentions_temp(
    module: PythonModule,
    node: ast.AST,
    names: set[str],
    *,
    owned: bool = False,
    scratch: Scratch = NO_SCRATCH,
) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in names:
            return True
        if owned:
            if (
                isinstance(child, ast.Attribute)
                and dotted(child.value) == "self"
                and (OWNED_SCRATCH.match(child.attr) or child.attr in scratch.attributes)
            ):
                return True
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and dotted(child.func.value) == "self"
                and child.func.attr in scratch.methods
            ):
                return True
        elif _named_per_call_in_tmp(child) or (
            isinstance(child, ast.Call) and _makes_temp(last_part(call_name(module, child)))
        ):
            return True
    return False


def _named_per_call_in_tmp(node: ast.AST) -> bool:
    """``"/tmp/{}".format(name)``, ``f"/tmp/{name}"``, ``"/tmp/%s" % name``: a path in the
    temp folder named for this call, like ``mkstemp()``'s. A fixed name there
    (``"/tmp/report.pdf"``) is one file every request shares, and is not."""
    if isinstance(node, ast.JoinedStr):
        head = node.values[0] if node.values else None
        dynamic = any(isinstance(value, ast.FormattedValue) for value in node.values)
        return dynamic and isinstance(head, ast.Constant) and _in_tmp(head.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        template = node.func.value
        return (
            node.func.attr == "format"
            and bool(node.args or node.keywords)
            and isinstance(template, ast.Constant)
            and _in_tmp(template.value)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, ast.Constant) and _in_tmp(node.left.value)
    return False


def _in_tmp(value: object) -> bool:
    return isinstance(value, str) and value.startswith("/tmp/")


def caller_cleans_up(module: PythonModule, function: FunctionNode, names: set[str]) -> bool:
    """The function hands its temp path back (``return path``) to a caller in this module
    that removes it in a ``finally:`` block: the file does not outlive the request."""
    returned = any(
        isinstance(node, ast.Return)
        and node.value is not None
        and mentions_temp(module, node.value, names)
        for node in ast.walk(function)
    )
    if not returned:
        return False
    callers = {id(caller): caller for caller, _ in calls_to(module, function.name)}
    return any(
        isinstance(node, ast.Try)
        and node.finalbody
        and any(cleans_up(module, statement) for statement in node.finalbody)
        for caller in callers.values()
        for node in ast.walk(caller)
    )


def callers_pass_temp(module: PythonModule, function: FunctionNode, target: ast.AST) -> bool:
    """``copy_asset(export_dir, …)`` writing into ``export_dir``, where every call in this
    module passes a path inside a temp directory of the caller (``with
    TemporaryDirectory() as tmp``), directly or through two more helpers: the helper's
    files go when the caller's directory does."""
    used = _parameters_under(function, path_root(target), _derived_from)
    return bool(used) and all(_given_temp(module, function, name, 0) for name in used)


def path_parameters(function: FunctionNode, target: ast.AST) -> list[str]:
    """The parameters the written path ``target`` is, or is built on (``out = join(folder,
    name)`` from ``folder``)."""
    return _parameters_under(function, path_root(target), _path_derived)


def writes_where_told(module: PythonModule, function: FunctionNode, target: ast.AST) -> bool:
    """``def export(rows, filepath): open(filepath, "w")``: a helper writing where its
    caller says (the path is a parameter, or built from one), and no call in this module
    says a place of its own (a literal, a path built from a setting): the callers are in
    other modules, or pass their own callers' paths. Whether that place outlives the
    request is decided where the path is built, and judged there."""
    used = _parameters_under(function, path_root(target), _path_derived)
    return bool(used) and all(_never_given_a_place(module, function, name, 0) for name in used)


def _parameters_under(
    function: FunctionNode,
    root: str | None,
    derived: Callable[[FunctionNode, str], set[str]],
) -> list[str]:
    """The parameters (not ``self``/``cls``) that ``root`` is one of, or is built from."""
    return [
        name
        for name in parameter_names(function)
        if name not in {"self", "cls"} and root in derived(function, name)
    ]


def passed_for(function: FunctionNode, call: ast.Call, parameter: str) -> ast.AST | None:
    """What ``call`` passes for ``function``'s ``parameter``: by position (``self`` and
    ``cls`` not counted) or by keyword; a keyword-only parameter only by keyword."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    offset = 1 if positional[:1] in (["self"], ["cls"]) else 0
    position = positional.index(parameter) - offset if parameter in positional else -1
    return call.args[position] if 0 <= position < len(call.args) else keyword(call, parameter)


def _path_derived(function: FunctionNode, parameter: str) -> set[str]:
    """``parameter`` and the local names whose path is built on it (``out =
    join(folder, name)`` from ``folder``; not ``path = join(BASE, name)`` from ``name``:
    there the caller names a file in a place the function chose)."""
    names = {parameter}
    for node in _assignments_in_order(function):
        if path_root(node.value) in names:
            for target in node.targets:
                names |= _bound_names(target)
    return names


def _never_given_a_place(
    module: PythonModule, function: FunctionNode, parameter: str, depth: int
) -> bool:
    """No call of ``function`` in this module gives ``parameter`` a place of the caller's
    own, following callers that pass their own parameter on (two levels up)."""
    for caller, call in calls_to(module, function.name):
        if caller is function:
            return False  # recursion: the path may come from anywhere
        given = passed_for(function, call, parameter)
        if given is None:
            continue  # the parameter's default, or passed as *args/**kwargs
        root = path_root(given)
        if root is None:
            return False  # a place of the caller's own: "/srv/out.csv", settings.X / "a"
        if root in temp_names(module, caller):
            continue
        passed_on = _parameters_under(caller, root, _path_derived)
        if not passed_on:
            return False  # a local path the caller built (not from a temp dir or a parameter)
        if depth < 2 and not all(
            _never_given_a_place(module, caller, name, depth + 1) for name in passed_on
        ):
            return False
    return True


def parameter_names(function: FunctionNode) -> list[str]:
    """Positional parameters in order, then keyword-only ones (``def f(*, dir)``)."""
    arguments = function.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def _given_temp(module: PythonModule, function: FunctionNode, parameter: str, depth: int) -> bool:
    """Whether every call of ``function`` in this module passes, for ``parameter``, a path
    rooted in the caller's temp directory (or in a parameter of the caller that is)."""
    called = False
    names: dict[int, set[str]] = {}  # each caller's temp names
    for caller, call in calls_to(module, function.name):
        if caller is function:
            return False  # recursion: the path may come from anywhere
        if id(caller) not in names:
            names[id(caller)] = temp_names(module, caller)
        root = path_root(passed_for(function, call, parameter))
        if root is None:
            return False
        if root not in names[id(caller)] and not (
            depth < 2
            and any(
                root in _derived_from(caller, outer)
                and _given_temp(module, caller, outer, depth + 1)
                for outer in parameter_names(caller)
                if outer not in {"self", "cls"}
            )
        ):
            return False
        called = True
    return called


def path_root(path: ast.AST | None) -> str | None:
    """The name a path expression is built on: ``tmp``, ``join(tmp, "a")``,
    ``Path(tmp) / "a"``, ``f"{tmp}/a"`` (not ``document.source_path``, an attribute of
    some object)."""
    while path is not None:
        if isinstance(path, ast.Name):
            return path.id
        if isinstance(path, ast.BinOp) and isinstance(path.op, ast.Div):
            path = path.left
        elif isinstance(path, ast.JoinedStr) and path.values:
            first = path.values[0]
            path = first.value if isinstance(first, ast.FormattedValue) else None
        elif isinstance(path, ast.Call) and path.args:
            path = path.args[0]
        else:
            return None
    return None


def _derived_from(function: FunctionNode, parameter: str) -> set[str]:
    """``parameter`` and the local names built from it, in order of assignment."""
    names = {parameter}
    for node in _assignments_in_order(function):
        if any(isinstance(child, ast.Name) and child.id in names for child in ast.walk(node.value)):
            for target in node.targets:
                names |= _bound_names(target)
    return names


@functools.lru_cache(maxsize=64)
def _assignments_in_order(function: FunctionNode) -> tuple[ast.Assign, ...]:
    """The function's assignments by line: one walk per function, not one per parameter
    each derivation follows."""
    return tuple(
        sorted(
            (node for node in ast.walk(function) if isinstance(node, ast.Assign)),
            key=lambda node: node.lineno,
        )
    )


def cleans_up(module: PythonModule, function: ast.AST) -> bool:
    """Whether ``function`` (or any statement) removes a temp file or uses a self-deleting one."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name = call_name(module, node) or ""
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in CLEANUP_FUNCTIONS or method in CLEANUP_METHODS:
                return True
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call):
            factory = last_part(call_name(module, node.context_expr))
            if factory in TEMP_FACTORIES and not _kept(node.context_expr):
                return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            # nm = NamedTemporaryFile(): removed when closed or collected, with no ``with``.
            factory = last_part(call_name(module, node.value))
            if factory in SELF_DELETING and not _kept(node.value):
                return True
    return False


def kept_temp_files(module: PythonModule, function: FunctionNode) -> Iterator[tuple[ast.Call, str]]:
    """``NamedTemporaryFile(..., delete=False)`` in ``function``, bound to a name by an
    assignment or a ``with … as x``: each such call with the name."""
    for node in ast.walk(function):
        bound: list[tuple[ast.AST | None, list[ast.AST]]] = []
        if isinstance(node, ast.Assign):
            bound.append((node.value, list(node.targets)))
        elif isinstance(node, ast.AnnAssign):
            bound.append((node.value, [node.target]))
        elif isinstance(node, ast.With | ast.AsyncWith):
            bound += [
                (item.context_expr, [item.optional_vars])
                for item in node.items
                if item.optional_vars is not None
            ]
        for value, targets in bound:
            if not isinstance(value, ast.Call) or not _kept(value):
                continue
            if last_part(call_name(module, value)) != "NamedTemporaryFile":
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    yield value, target.id


def _kept(call: ast.Call) -> bool:
    delete = keyword(call, "delete")
    return isinstance(delete, ast.Constant) and delete.value is False


def removed_in_place(
    module: PythonModule, function: FunctionNode | None, call: ast.Call, target: ast.AST
) -> bool:
    """The write sits in a ``try:`` whose ``finally:`` removes the written name
    (``probe.unlink()``, ``os.remove(probe)``): a probe file, gone before the function
    returns whatever happens."""
    if function is None or not isinstance(target, ast.Name):
        return False
    if _removed_after(module, function, call, target.id):
        return True
    for node in ast.walk(function):
        if not isinstance(node, ast.Try) or not node.finalbody:
            continue
        first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
        if first <= call.lineno <= last and any(
            _removes(module, statement, target.id) for statement in node.finalbody
        ):
            return True
    return False


def _removed_after(module: PythonModule, function: FunctionNode, call: ast.Call, name: str) -> bool:
    """A later statement of the block that writes removes the written name (``with
    open(probe, "w") …`` then ``os.remove(probe)``): a probe of the folder, gone before
    the block ends unless the write itself failed."""
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, statement in enumerate(block):
                end = statement.end_lineno or statement.lineno
                if statement.lineno <= call.lineno <= end:
                    # A removal on the block's own path, not one in an error branch
                    # (``except DoesNotExist: os.unlink(path)``) of a file kept otherwise.
                    later = [s for s in block[index + 1 :] if isinstance(s, ast.Expr)]
                    if any(_removes(module, other, name) for other in later):
                        return True
    return False


def _removes(module: PythonModule, statement: ast.stmt, name: str) -> bool:
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else ""
        receiver = func.value if isinstance(func, ast.Attribute) else None
        if method in CLEANUP_METHODS and isinstance(receiver, ast.Name) and receiver.id == name:
            return True
        if (call_name(module, node) or "") in CLEANUP_FUNCTIONS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id == name:
                return True
    return False
