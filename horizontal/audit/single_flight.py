"""in-process-lock: a module's ``Lock`` taken by hand as a single-flight guard.

``if not _drain_lock.acquire(blocking=False): return`` and then the work: one run at a
time in this process, any number across instances. ``with lock:`` sections are
``in_process_locks.find_in_process_locks``'s; this is the form without ``with``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.effects import reaches_outside
from horizontal.audit.findings import Finding
from horizontal.audit.source import PythonModule, call_name, dotted, keyword, last_part

__all__ = ["single_flight_guards"]


def single_flight_guards(module: PythonModule, locks: set[str]) -> Iterator[Finding]:
    """``if not _drain_lock.acquire(blocking=False): return`` then the work: a module's
    ``Lock`` taken as a single-flight guard, so that one run at a time does the work. (A
    semaphore's slots, a class's lock and a blocking ``acquire()`` are left alone: on the
    tuning projects they cap this process's own concurrency.)"""
    guards = _module_mutexes(module) & locks
    reported: set[int] = set()
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        function = module.scope(call).function
        if not isinstance(call.func, ast.Attribute) or call.func.attr != "acquire":
            continue
        name = dotted(call.func.value)
        if function is None or name not in guards or id(function) in reported:
            continue
        if not _non_blocking(call) or _with_the_same_lock(function, call.func.value):
            continue  # a blocking take, or a ``with`` of it (find_in_process_locks')
        outside = reaches_outside(module, function, writes=True)
        if not outside:
            continue  # guards this process's own memory
        reported.add(id(function))
        yield Finding(
            module.path,
            call.lineno,
            "in-process-lock",
            f"{name} (in-process) lets one run at a time do {'/'.join(sorted(outside))} "
            "work, but only within one process: other instances run it at the same time",
            module.line(call.lineno),
        )


def _module_mutexes(module: PythonModule) -> set[str]:
    """Names bound at the top of the module to ``threading.Lock()`` or ``RLock()``."""
    return {
        target.id
        for statement in module.tree.body
        if isinstance(statement, ast.Assign)
        and last_part(call_name(module, statement.value) or "") in {"Lock", "RLock"}
        for target in statement.targets
        if isinstance(target, ast.Name)
    }


def _non_blocking(call: ast.Call) -> bool:
    """``acquire(blocking=False)`` or ``acquire(False)``."""
    blocking = keyword(call, "blocking") or (call.args[0] if call.args else None)
    return isinstance(blocking, ast.Constant) and blocking.value is False


def _with_the_same_lock(function: ast.AST, lock: ast.expr) -> bool:
    held = ast.dump(lock)
    return any(
        isinstance(node, ast.With | ast.AsyncWith)
        and any(ast.dump(item.context_expr) == held for item in node.items)
        for node in ast.walk(function)
    )
