"""RQ's queues and Huey instances built in the project's code told to run jobs inline
(``horizontal.W049``), read with the Celery code (``celery_conf.py``) as one more eager
option, each queue judged alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.source import dotted, last_part, settings_attribute

__all__ = ["HUEY_INLINE", "RQ_INLINE", "inline_rq_queues"]

# RQ's queues built in code: ``Queue(connection=redis, is_async=False)``,
# ``django_rq.get_queue("default", is_async=False)`` run each job in the caller.
RQ_QUEUE_FACTORIES = frozenset({"Queue", "get_queue"})
RQ_INLINE = "RQ's is_async=False"
# Huey built in code without djhuey: ``RedisHuey("shop", immediate=True)``.
HUEY_INLINE = "Huey's immediate=True"


def inline_rq_queues(path: str, statement: ast.stmt, guards: Guards) -> list[EagerOption]:
    """The RQ queues and Huey instances ``statement`` builds at import told to run jobs
    inline (not in a function, which a test may call); each is its own, judged alone. The
    value is a literal, or a Django setting read live (``is_async=settings.RQ_ASYNC``:
    inline when it is false, which the check reads)."""
    found = []
    for node in _outside_functions(statement):
        if not isinstance(node, ast.Call):
            continue
        called = last_part(dotted(node.func) or "")
        if called in RQ_QUEUE_FACTORIES:
            option, wanted = RQ_INLINE, "is_async"
        elif called.endswith("Huey"):
            option, wanted = HUEY_INLINE, "immediate"
        else:
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg != wanted:
                continue
            scope = f"{option}:{path}:{node.lineno}"
            if isinstance(value, ast.Constant):
                inline = value.value is False if option == RQ_INLINE else bool(value.value)
                found.append(EagerOption(path, node.lineno, option, inline, None, guards, scope))
            elif (setting := settings_attribute(value)) is not None:
                found.append(EagerOption(path, node.lineno, option, None, setting, guards, scope))
    return found


def _outside_functions(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _outside_functions(child)
