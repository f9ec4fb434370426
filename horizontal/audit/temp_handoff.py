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
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    calls_to,
    dotted,
    last_part,
)
from horizontal.audit.temp_paths import (
    CLEANUP_FUNCTIONS,
    CLEANUP_METHODS,
    TEMP_LEFT_BEHIND,
    kept_temp_files,
)

__all__ = ["escapes", "handed_on_temp_files"]

# Calls that hand a value to another process: a task queue's.
# Celery's signatures (``task.s(...)``, ``.si``, ``.signature``) are sent later, in a
# chain or chord.
HAND_OFF_CALLS = frozenset(
    {"delay", "apply_async", "send_task", "enqueue", "defer", "s", "si", "signature"}
)
# Calls that put a value into the response: the next request comes back with it, on
# whichever instance it lands.
RESPONSE_CALLS = frozenset(
    {"redirect", "HttpResponseRedirect", "reverse", "JsonResponse", "Response", "urlencode"}
)
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
                names = _with_aliases(function, name)
                if escapes(module, function, names) and not _removes_temp(module, function, names):
                    line = call.lineno
                    yield Finding(
                        module.path, line, "file-write", TEMP_LEFT_BEHIND, module.line(line)
                    )


def _written_by_path(module: PythonModule, function: FunctionNode, name: str) -> bool:
    """Whether ``function`` writes to a path built from ``name`` (``open(x.name, "w")``,
    ``image.save(x.name)``): that write is the finding, reported in ``files.py``."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        target = written_path(module, node)
        if target is None and isinstance(node.func, ast.Attribute) and node.func.attr == "save":
            target = node.args[0] if node.args else None
        if target is not None and _mentions(target, {name}):
            return True
    return False


def _stores_in_cache(call: ast.Call) -> bool:
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in CACHE_STORES):
        return False
    receiver = call.func.value
    if isinstance(receiver, ast.Subscript):
        receiver = receiver.value  # caches["default"]
    return last_part(dotted(receiver)).endswith(("cache", "caches"))


def _with_aliases(function: FunctionNode, name: str) -> set[str]:
    """``name`` and the names bound to its file's name (``path = tmp.name``)."""
    names = {name}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(
            isinstance(n, ast.Attribute) and n.attr == "name" and _mentions(n.value, names)
            for n in ast.walk(node.value)
        ):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def _removes_temp(module: PythonModule, function: FunctionNode, names: set[str]) -> bool:
    """Whether ``function`` removes the file ``names`` hold (the temp file and its
    aliases: ``os.remove(x.name)``, ``Path(path).unlink()``): other removals there are of
    other files, and a removal in an ``except`` handler leaves the file of the path that
    succeeds."""
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
        if removal and _mentions(node, names):
            return True
    return False


def escapes(module: PythonModule, function: FunctionNode, names: set[str]) -> bool:
    """Whether a value held by one of ``names`` (a temp path, or what was built from it)
    leaves this process or request: a task queue's call, the session, the cache, the
    response (a redirect or a URL that names it, a JSON body), or a field of another
    object (``upload.path = tmp``, saved for later readers). Returned to the caller, used
    here or kept on ``self``, it is most often consumed where it was made; a caller in
    this module that takes it back is judged the same way."""
    if _escapes_here(module, function, names):
        return True
    returned = any(
        isinstance(node, ast.Return) and _mentions(node.value, names) for node in ast.walk(function)
    )
    if not returned:
        return False
    for caller, call in calls_to(module, function.name):
        taken = {
            name
            for node in ast.walk(caller)
            if isinstance(node, ast.Assign) and any(n is call for n in ast.walk(node.value))
            for target in node.targets
            for name in _bound(target)
        }
        if taken and caller is not function and _escapes_here(module, caller, taken):
            return True
    return False


def _escapes_here(module: PythonModule, function: FunctionNode, names: set[str]) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _mentions(node.value, names):
            if any(_shared_target(target) for target in node.targets):
                return True
        elif isinstance(node, ast.Call):
            called = last_part(call_name(module, node))
            handed = called in HAND_OFF_CALLS or called in RESPONSE_CALLS or _queued(node)
            arguments = (*node.args, *(keyword.value for keyword in node.keywords))
            if (handed or _stores_in_cache(node)) and any(_mentions(a, names) for a in arguments):
                return True
    return False


def _queued(call: ast.Call) -> bool:
    """A task model's method (``CeleryTask.spawn(...)``) or a row written through the ORM
    (``Upload.objects.create(path=…)``): another process reads the value back."""
    if not isinstance(call.func, ast.Attribute):
        return False
    receiver = last_part(dotted(call.func.value))
    return receiver.endswith("Task") or (receiver == "objects" and call.func.attr in ORM_WRITES)


# Manager methods that store their arguments in a row.
ORM_WRITES = frozenset({"create", "update", "update_or_create", "get_or_create", "bulk_create"})


def _shared_target(target: ast.expr) -> bool:
    """``request.session["x"] = …`` or ``upload.path = …`` (not ``self.x``, not a local)."""
    if isinstance(target, ast.Subscript):
        return "session" in (dotted(target.value) or "")
    if isinstance(target, ast.Attribute):
        return dotted(target.value) not in {None, "self", "cls"}
    return False


def _bound(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _mentions(node: ast.AST | None, names: set[str]) -> bool:
    return node is not None and any(
        isinstance(n, ast.Name) and n.id in names for n in ast.walk(node)
    )
