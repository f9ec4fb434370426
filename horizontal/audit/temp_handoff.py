"""file-write: a temp file kept (``NamedTemporaryFile(delete=False)``) and handed on.

The file is written through its object (``x.write()``), so no path write shows; what
shows is its name leaving for another request or process: a task's ``.delay()``, the
session, the cache. The reader opens it by name on whichever instance it lands.
Returned to the caller or kept in a local mapping, it is most often consumed in the same
request (measured on the corpus: eight times in nine), so that is not reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.file_calls import written_path
from horizontal.audit.findings import Finding
from horizontal.audit.source import FunctionNode, PythonModule, call_name, dotted, last_part
from horizontal.audit.temp_paths import (
    CLEANUP_FUNCTIONS,
    CLEANUP_METHODS,
    TEMP_LEFT_BEHIND,
    kept_temp_files,
)

__all__ = ["handed_on_temp_files"]

# Calls that hand a value to another process: a task queue's.
HAND_OFF_CALLS = frozenset({"delay", "apply_async", "send_task", "enqueue", "defer"})
# A write into Django's cache (cache.set, caches["x"].set, self.cache.add): another
# request reads it.
CACHE_STORES = frozenset({"set", "add", "set_many"})


def handed_on_temp_files(module: PythonModule) -> Iterator[Finding]:
    """``x = NamedTemporaryFile(delete=False)`` whose name is handed to another request
    or process (a task, the session, the cache) and that nothing here removes: the
    reader opens it by name, on whichever instance it lands. (Written through
    ``x.write()``: no path-write call to see.)"""
    if module.is_script or "delete=False" not in module.text:
        return
    for functions in module.functions.values():
        for function in functions:
            for call, name in kept_temp_files(module, function):
                if _written_by_path(module, function, name):
                    continue  # that write is the finding (files._local_writes)
                if _escapes(module, function, name) and not _removes_temp(module, function, name):
                    line = call.lineno
                    yield Finding(
                        module.path, line, "file-write", TEMP_LEFT_BEHIND, module.line(line)
                    )


def _written_by_path(module: PythonModule, function: FunctionNode, name: str) -> bool:
    """Whether ``function`` writes to a path built from ``name`` (``open(x.name, "w")``)."""
    for node in ast.walk(function):
        target = written_path(module, node) if isinstance(node, ast.Call) else None
        if target is not None and _names(target, name):
            return True
    return False


def _stores_in_cache(call: ast.Call) -> bool:
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in CACHE_STORES):
        return False
    receiver = call.func.value
    if isinstance(receiver, ast.Subscript):
        receiver = receiver.value  # caches["default"]
    return last_part(dotted(receiver)).endswith(("cache", "caches"))


def _removes_temp(module: PythonModule, function: FunctionNode, name: str) -> bool:
    """Whether ``function`` removes the file ``name`` holds (``os.remove(x.name)``,
    ``Path(x.name).unlink()``): other removals there are of other files, and a removal
    in an ``except`` handler leaves the file of the path that succeeds."""
    on_error = {
        id(inner)
        for handler in ast.walk(function)
        if isinstance(handler, ast.ExceptHandler)
        for inner in ast.walk(handler)
    }
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or id(node) in on_error:
            continue
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        removal = (call_name(module, node) or "") in CLEANUP_FUNCTIONS or method in CLEANUP_METHODS
        if removal and _names(node, name):
            return True
    return False


def _escapes(module: PythonModule, function: FunctionNode, name: str) -> bool:
    """Whether ``name`` (or ``name.name``) is handed to another request or process: to
    a task queue's call, into the session, or into the cache. (Returned to the caller
    or kept in a local mapping, it is most often consumed in the same request.)"""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _names(node.value, name):
            if any(
                isinstance(t, ast.Subscript) and "session" in (dotted(t.value) or "")
                for t in node.targets
            ):
                return True
        elif isinstance(node, ast.Call):
            handed = last_part(call_name(module, node)) in HAND_OFF_CALLS
            arguments = (*node.args, *(keyword.value for keyword in node.keywords))
            if (handed or _stores_in_cache(node)) and any(_names(a, name) for a in arguments):
                return True
    return False


def _names(node: ast.AST | None, name: str) -> bool:
    """Whether ``node`` mentions the local ``name`` (``x``, ``x.name``, ``f(x)``)."""
    return node is not None and any(
        isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)
    )
