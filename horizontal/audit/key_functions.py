"""A cache ``KEY_FUNCTION`` whose code makes the key differ per instance
(``horizontal.W005``): the first per-instance call (hostname, pid, random, clock) in the
function's source, in a module-level value it reads, or in a helper of its module it
calls. Read from source with ``inspect``; a lambda, a callable instance and a
``functools.partial`` are each read where their code is. Imported lazily by the check.
"""

from __future__ import annotations

import ast
import functools
import os

from horizontal.audit.known import PER_INSTANCE_CALLS

__all__ = ["first_call", "per_instance_calls_in"]


def per_instance_calls_in(function: object, depth: int = 2) -> str | None:
    """The first call in ``function``'s source whose value differs per instance
    (hostname, pid, random), in a module-level name it reads (``NODE =
    socket.gethostname()``), or in the source of a function of its module that it calls
    (``depth`` levels: a key function that asks a ``_node()`` helper); None when there is
    none or the source cannot be read. A lambda is read as its own node of the file that
    defines it, a callable instance as its class (what ``__init__`` stores counts), a
    ``functools.partial`` as its function (its bound arguments are the caller's to judge)."""
    import inspect

    function = _underlying_function(function)
    tree = _function_tree(function)
    if tree is None:
        return None
    found = first_call(tree, PER_INSTANCE_CALLS) or _per_instance_constant(function, tree)
    if found is not None or depth <= 1:
        return found
    module_names = _module_names(function)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = module_names.get(node.func.id)
            if inspect.isfunction(helper) and helper is not function:
                found = per_instance_calls_in(helper, depth - 1)
                if found is not None:
                    return found
    return None


def _underlying_function(function: object) -> object:
    """What holds the code of a key function: a partial's function, a bound method's
    function, an instance's class."""
    import functools
    import inspect

    while isinstance(function, functools.partial):
        function = function.func
    if inspect.ismethod(function):
        return function.__func__
    if inspect.isroutine(function) or inspect.isclass(function):
        return function
    return type(function)  # a callable instance


def _module_names(function: object) -> dict[str, object]:
    """The names of the module that defines ``function`` (a class has no globals)."""
    import inspect

    found = getattr(function, "__globals__", None)
    if found is None:
        module = inspect.getmodule(function)
        found = vars(module) if module is not None else {}
    return dict(found)


def _function_tree(function: object) -> ast.AST | None:
    """The parsed source of a function or class; for a lambda, its own node in the file
    that defines it (``inspect`` gives a lambda's lines, often a fragment of a dict or a
    call, or two statements on one line)."""
    import inspect
    import textwrap

    code = getattr(function, "__code__", None)
    if getattr(function, "__name__", "") != "<lambda>" or code is None:
        try:
            return ast.parse(textwrap.dedent(inspect.getsource(function)))  # type: ignore[arg-type]
        except (OSError, TypeError, SyntaxError):
            return None
    module = _parsed_file(code.co_filename)
    if module is None:
        return None
    # The columns the lambda's own instructions come from lie within its node.
    columns = [
        column
        for line, _, column, end in code.co_positions()
        # (0, 0) is the frame's own bookkeeping (RESUME, the implicit return), no span.
        if line == code.co_firstlineno and column is not None and end
    ]
    candidates = [
        n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
    ]
    for node in candidates:
        end = node.end_col_offset if node.end_lineno == node.lineno else None
        if all(node.col_offset <= c and (end is None or c < end) for c in columns):
            return node
    return candidates[0] if len(candidates) == 1 else None


def _parsed_file(path: str) -> ast.Module | None:
    """A source file parsed once per version of it (the same settings or key module is
    asked about for each alias and each helper)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    # The change time and the inode too: a rewrite of the same size within the same
    # modification time (``rsync -t``, a coarse clock) still changes those.
    version = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_size)
    return _parse_version(path, version)


@functools.lru_cache(maxsize=16)
def _parse_version(path: str, version: tuple[int, int, int, int]) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as source:
            return ast.parse(source.read())
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


def _is_value(found: object) -> bool:
    """A module-level value a key function reads (a string, a UUID, a datetime), not a
    module, a class or a function, whose binding says nothing of the instance."""
    import inspect

    return not (inspect.ismodule(found) or inspect.isclass(found) or inspect.isroutine(found))


def _per_instance_constant(function: object, tree: ast.AST) -> str | None:
    """A per-instance call in the module-level assignment of a name ``tree`` reads:
    ``NODE = socket.gethostname()`` at import, then ``f"{NODE}:{key}"``."""
    import inspect

    module_names = _module_names(function)
    names = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and _is_value(module_names.get(node.id, _is_value))
    }
    if not names:
        return None
    try:
        module_tree = _parsed_file(inspect.getsourcefile(function) or "")  # type: ignore[arg-type]
    except TypeError:
        return None
    for statement in module_tree.body if module_tree is not None else ():
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id in names for t in targets):
                found = first_call(statement.value, PER_INSTANCE_CALLS)
                if found is not None:
                    return found
    return None


# ``uname()`` names the host only through its node field; its system, release and machine
# are the same on every instance of one image.
UNAME_HOST_FIELDS = frozenset({"nodename", "node"})


def first_call(tree: ast.AST, calls: frozenset[str]) -> str | None:
    """The last name of the first call in ``tree`` that is one of ``calls``."""
    other_fields = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Call)
        and _call_name(node.value) == "uname"
        and node.attr not in UNAME_HOST_FIELDS
    }
    clock = "time" in calls  # the clock's calls are asked for: its formatters read it too
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in other_fields:
            name = _call_name(node)
            if name in calls or (clock and _formats_the_time_now(node)):
                return name
    return None


# The time module's formatters, and how many arguments they take before the time they
# format: given no time, they format the clock's (``time.strftime("%Y%m%d%H%M")``).
TIME_FORMATTERS = {"strftime": 1, "localtime": 0, "gmtime": 0, "ctime": 0, "asctime": 0}


def _formats_the_time_now(call: ast.Call) -> bool:
    """``time.strftime(fmt)``, ``time.ctime()``, ``strftime(fmt)``: the clock now; not a
    date's own ``d.strftime(fmt)``, nor a formatter given a time."""
    target = call.func
    if isinstance(target, ast.Attribute):
        if not (isinstance(target.value, ast.Name) and target.value.id == "time"):
            return False
        name = target.attr
    elif isinstance(target, ast.Name):
        name = target.id
    else:
        return False
    return TIME_FORMATTERS.get(name) == len(call.args) and not call.keywords


def _call_name(call: ast.Call) -> str:
    target = call.func
    return str(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
