"""A secret read from a file the settings module itself writes when it is imported
(``if not os.path.exists(key_file): … write(get_random_secret_key())``, then
``SECRET_KEY = open(key_file).read()`` or ``json.load(handle)["SECRET_KEY"]``): a key
made on first boot, on each host that boots. And ``/dev/urandom`` read as a file. Asked by
``settings_secrets.random_value_line``, for W050 and the audit alike.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.settings_branches import off_by_default_statements
from horizontal.audit.source import (
    PythonModule,
    call_name,
    dotted,
    last_part,
    nodes_outside_scopes,
    string_value,
)

__all__ = ["key_file_written_here", "reads_random_device"]


def key_file_written_here(
    module: PythonModule, statement: ast.AST, calls: frozenset[str]
) -> int | None:
    """``SECRET_KEY = open(key_file).read()`` where the module itself writes ``key_file``
    when it imports (``if not os.path.exists(key_file): … write(random_key(64))``): a key
    made on first boot, on each host that boots, whatever generator filled it. The line
    of the write.

    A structured file (``json.load(handle)["SECRET_KEY"]``), also loaded into a name the
    key is taken from (``_secrets = json.load(…)``), holds other values too: its write
    counts only where a generator makes what is written."""
    if "open(" not in module.text and ".write_" not in module.text:
        return None  # nothing here writes a file (most settings modules): no walk
    plain, structured = _files_read(module, statement)
    if "load(" in module.text:  # a structured read, perhaps into a name the key reads
        for binding in _bindings_read(module, statement):
            structured |= set().union(*_files_read(module, binding))
    if not plain and not structured:
        return None
    for node in nodes_outside_scopes(module.tree.body):
        if not isinstance(node, ast.Call) or (written := _file_written(node)) is None:
            continue
        if written in plain or (written in structured and _generates(module, node, calls)):
            return node.lineno
    return None


def _files_read(module: PythonModule, reader: ast.AST) -> tuple[set[str], set[str]]:
    """The files ``reader`` reads as text, and those it loads as structured data."""
    handles = _opened_handles(module, reader) if "with" in module.text else {}
    plain: set[str] = set()
    structured: set[str] = set()
    for node in ast.walk(reader):
        if name := _structured_load(node, handles):
            structured.add(name)
        elif name := _file_read(node, handles):
            plain.add(name)
    return plain, structured


def _generates(module: PythonModule, write: ast.Call, calls: frozenset[str]) -> bool:
    """A generator makes what ``write`` writes: it is called in the statement that holds
    the write (``json.dump({"SECRET_KEY": token_urlsafe(50)}, open(path, "w"))``, or the
    body of ``with open(path, "w") as handle:``), or where a name that statement reads was
    last bound before it (``key = get_random_secret_key()``). Another value generated
    beside a rewrite of the file (an instance id added to it) is not the key."""
    holders = [
        node
        for node in nodes_outside_scopes(module.tree.body)
        if isinstance(node, ast.stmt)
        and not isinstance(node, ast.If | ast.Try | ast.For | ast.While)
        and any(child is write for child in ast.walk(node))
    ]
    if not holders:
        return False
    holder = min(holders, key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
    return any(
        isinstance(node, ast.Call) and last_part(call_name(module, node)) in calls
        for place in (holder, *_bindings_read(module, holder))
        for node in ast.walk(place)
    )


# ``open("/dev/urandom", "rb").read(32)``: the kernel's random bytes, read as a file.
RANDOM_DEVICES = frozenset({"/dev/urandom", "/dev/random"})


def reads_random_device(node: ast.Call) -> bool:
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "read"):
        return False
    opened = node.func.value
    return (
        isinstance(opened, ast.Call)
        and last_part(dotted(opened.func)) == "open"
        and bool(opened.args)
        and string_value(opened.args[0]) in RANDOM_DEVICES
    )


def _bindings_read(module: PythonModule, statement: ast.AST) -> Iterator[ast.stmt]:
    """For each name the value of ``statement`` reads, the module-level assignment that
    binds it last before ``statement`` (``_secrets = json.load(handle)`` for
    ``SECRET_KEY = _secrets["secret_key"]``), one step back; not one in a branch that
    production does not take (``if DEBUG:``)."""
    value = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else statement
    if value is None:
        return
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    line = getattr(statement, "lineno", 0)
    bindings: dict[str, list[ast.stmt]] = {}
    for node in nodes_outside_scopes(module.tree.body):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        if node.lineno >= line:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id in names:
                bindings.setdefault(target.id, []).append(node)
    if not bindings:
        return
    off = off_by_default_statements(module.tree)  # only now: it reads the whole module
    for found in bindings.values():
        taken = [node for node in found if id(node) not in off]
        if taken:
            yield max(taken, key=lambda node: node.lineno)


# Readers of a structured file: ``json.load(handle)``, ``yaml.safe_load(handle)``,
# ``YAML(typ="safe").load(handle)``, ``toml.load(path)``.
STRUCTURED_LOADS = frozenset({"load", "safe_load", "full_load"})


def _structured_load(node: ast.AST, handles: dict[str, str]) -> str | None:
    """The file a structured reader loads: through a handle ``with open(name)`` opened,
    ``open(name)`` given to it, or a path name (``toml.load(SECRETS_FILE)``)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in STRUCTURED_LOADS
        and node.args
    ):
        return None
    given = node.args[0]
    if isinstance(given, ast.Name):
        return handles.get(given.id, given.id)
    if (
        isinstance(given, ast.Call)
        and last_part(dotted(given.func)) == "open"
        and given.args
        and isinstance(given.args[0], ast.Name)
    ):
        return given.args[0].id
    return None


def _file_read(node: ast.AST, handles: dict[str, str] | None = None) -> str | None:
    """The name of the file ``open(name).read()`` / ``Path(name).read_text()`` /
    ``name.read_text()`` (a path) reads, or ``handle.read()`` where ``handles`` says which
    file ``with open(name) as handle`` opened."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr not in {"read", "read_text", "strip"}:
        return None
    inner = node.func.value
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
        return _file_read(inner, handles)  # open(f).read().strip()
    if isinstance(inner, ast.Call) and last_part(dotted(inner.func)) in {"open", "Path"}:
        first = inner.args[0] if inner.args else None
        return first.id if isinstance(first, ast.Name) else None
    if isinstance(inner, ast.Name) and node.func.attr != "strip":
        return (handles or {}).get(inner.id, inner.id)  # handle.read(), KEY_FILE.read_text()
    return None


def _opened_handles(module: PythonModule, statement: ast.AST) -> dict[str, str]:
    """``with open(KEY_FILE) as handle:`` around ``statement``: handle -> KEY_FILE (the
    innermost ``with`` that binds a name wins, as Python binds it)."""
    handles: dict[str, str] = {}
    line = getattr(statement, "lineno", 0)
    for node in nodes_outside_scopes(module.tree.body):
        if not isinstance(node, ast.With) or not node.body:
            continue
        if not node.body[0].lineno <= line <= (node.end_lineno or node.lineno):
            continue
        for item in node.items:
            opened = item.context_expr
            if (
                isinstance(item.optional_vars, ast.Name)
                and isinstance(opened, ast.Call)
                and last_part(dotted(opened.func)) in {"open", "io.open"}
                and opened.args
                and isinstance(opened.args[0], ast.Name)
            ):
                handles[item.optional_vars.id] = opened.args[0].id
    return handles


def _file_written(call: ast.Call) -> str | None:
    """The name of the file ``open(name, "w")``, ``os.open(name, …)`` or
    ``Path(name).write_text(…)`` writes."""
    function = dotted(call.func) or ""
    first = call.args[0] if call.args else None
    if function in {"open", "io.open", "os.open"} and isinstance(first, ast.Name):
        mode = string_value(call.args[1]) if len(call.args) > 1 else None
        if function == "os.open" or (mode is not None and any(c in mode for c in "wax")):
            return first.id
    if isinstance(call.func, ast.Attribute) and call.func.attr in {"write_text", "write_bytes"}:
        inner = call.func.value
        if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.Name):
            return inner.args[0].id
        if isinstance(inner, ast.Name):
            return inner.id
    return None
