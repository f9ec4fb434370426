"""A task that hands back a file by its local path.

A Celery (or Huey, django-tasks) task runs in a worker, often on another host. When it
writes its output to a temp path and returns that path (``return {"file": tmpfile}``), the
web process that reads the result opens a path that exists only on the worker's disk.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.findings import Finding
from horizontal.audit.source import PythonModule, call_name, dotted, last_part

__all__ = ["find_task_returned_paths"]

# A decorator that makes a function a task run by a worker: @app.task, @shared_task,
# @huey.task, @db_task, @task (django.tasks).
TASK_DECORATORS = frozenset({"task", "shared_task", "db_task", "periodic_task", "actor"})
# Calls that name a fresh temp path, without a context manager removing it.
TEMP_PATHS = frozenset({"mktemp", "mkdtemp", "mkstemp"})
MESSAGE = (
    "a task returns a local temp path: the worker wrote the file on its own disk, and the "
    "process that reads the result on another host cannot open it"
)
FIX = (
    "Save the task's output through default_storage (S3Storage) and return its storage "
    "name; the web process opens it from there."
)


def find_task_returned_paths(module: PythonModule) -> Iterator[Finding]:
    if "task" not in module.text and "actor" not in module.text:
        return
    for function in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        if not any(_is_task_decorator(d) for d in function.decorator_list):
            continue
        temps = _temp_path_names(module, function)
        if not temps:
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and node.value is not None:
                returned = _names_in(node.value, function)
                hit = next((line for name, line in temps.items() if name in returned), None)
                if hit is not None:
                    yield Finding(
                        module.path, hit, "file-write", MESSAGE, module.line(hit), fix_text=FIX
                    )
                    break


def _is_task_decorator(decorator: ast.AST) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return last_part(dotted(target)) in TASK_DECORATORS


def _temp_path_names(
    module: PythonModule, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, int]:
    """Names bound to a temp path in ``function`` (``tmpfile = tempfile.mktemp(…)``,
    ``out = os.path.join(tempfile.mkdtemp(), "x")``), with the line that makes it."""
    found: dict[str, int] = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        if any(
            isinstance(call, ast.Call) and last_part(call_name(module, call)) in TEMP_PATHS
            for call in ast.walk(node.value)
        ):
            found[target.id] = node.lineno
    return found


def _names_in(value: ast.AST, function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names ``value`` mentions, and those of a local it names (``result = {"file":
    tmpfile}`` … ``return result``)."""
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in names
        ):
            names |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return names
