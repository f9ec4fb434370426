"""A local file that is a copy of what a storage keeps, on its way in or out.

``writer.write(open(out, "wb"))`` then ``with open(out, "rb") as f:
self.attestation.save(name, File(f))``: the local file is a staging copy; what later
requests read is the copy the storage keeps (a ``FileField``'s or
``default_storage``'s). ``with default_storage.open(name) as f: local.write(f.read())``:
a working copy of a stored file, which any instance can fetch again. Neither write is a
file-write finding; where that storage keeps its files is the media setting's finding.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from horizontal.audit.source import FunctionNode, dotted, last_part

__all__ = ["copied_from_storage", "staged_for_storage"]

# ``field.save(name, content)``, ``default_storage.save(name, content)``: a storage's or
# a FieldFile's save takes the name first, then the content.
SAVE_METHODS = frozenset({"save"})


def staged_for_storage(function: FunctionNode, call: ast.Call, target: ast.AST) -> bool:
    """After the write at ``call``, the function opens ``target`` again and passes what
    it read (or the path itself) as the content of a ``.save(name, content)``."""
    key = _key(target)
    if key is None:
        return False
    # The path, and the file objects opened on it.
    readers = {key} | _names_bound_to(function, lambda value: _opens(value, key))
    return any(
        isinstance(node, ast.Call)
        and node.lineno > call.lineno
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SAVE_METHODS
        and len(node.args) >= 2
        and _mentions(node.args[1], readers)
        for node in ast.walk(function)
    )


def _names_bound_to(function: FunctionNode, opens: Callable[[ast.AST], bool]) -> set[str]:
    """The names ``with <opens> as f:`` or ``f = <opens>`` bind in the function."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.withitem) and opens(node.context_expr):
            if isinstance(node.optional_vars, ast.Name):
                names.add(node.optional_vars.id)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and opens(node.value)
        ):
            names.add(node.targets[0].id)
    return names


def _key(target: ast.AST) -> str | None:
    """The name a path is held under (``out``, ``self.out``)."""
    return dotted(target) if isinstance(target, ast.Name | ast.Attribute) else None


def _opens(node: ast.AST, key: str) -> bool:
    """``open(out, "rb")``, ``open(out)``, ``Path(out).open("rb")``."""
    if not isinstance(node, ast.Call):
        return False
    if last_part(dotted(node.func)) == "open" and node.args and dotted(node.args[0]) == key:
        return True
    inner = node.func.value if isinstance(node.func, ast.Attribute) else None
    return (
        isinstance(inner, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "open"
        and bool(inner.args)
        and dotted(inner.args[0]) == key
    )


def _mentions(node: ast.AST, names: set[str]) -> bool:
    """``File(f)``, ``ContentFile(f.read())``, ``f``: the content names a reader."""
    return any(
        isinstance(child, ast.Name | ast.Attribute) and dotted(child) in names
        for child in ast.walk(node)
    )


def copied_from_storage(function: FunctionNode) -> bool:
    """The function writes what it read from a storage (``default_storage.open(name)``,
    ``self.storage.open(name)``): the local file is a working copy of a stored one."""
    sources = _names_bound_to(function, _storage_open)
    return bool(sources) and any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"write", "write_bytes"}
        and any(_mentions(argument, sources) for argument in node.args)
        for node in ast.walk(function)
    )


def _storage_open(node: ast.AST) -> bool:
    """``default_storage.open(…)``, ``self.storage.open(…)``, ``storages["x"].open(…)``."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "open"
    ):
        return False
    owner = node.func.value
    if isinstance(owner, ast.Subscript):
        owner = owner.value
    return last_part(dotted(owner)).lower().endswith(("storage", "storages"))
