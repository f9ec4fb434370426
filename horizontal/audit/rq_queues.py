"""RQ's queues built in the project's code told to run jobs inline (``horizontal.W049``),
read with the Celery code (``celery_conf.py``) as one more eager option, each queue
judged alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.eager_options import EagerOption, Guards
from horizontal.audit.source import dotted, last_part

__all__ = ["RQ_INLINE", "inline_rq_queues"]

# RQ's queues built in code: ``Queue(connection=redis, is_async=False)``,
# ``django_rq.get_queue("default", is_async=False)`` run each job in the caller.
RQ_QUEUE_FACTORIES = frozenset({"Queue", "get_queue"})
RQ_INLINE = "RQ's is_async=False"


def inline_rq_queues(path: str, statement: ast.stmt, guards: Guards) -> list[EagerOption]:
    """The RQ queues ``statement`` builds at import told to run jobs inline (not in a
    function, which a test may call); each is its own, judged alone."""
    found = []
    for node in _outside_functions(statement):
        if not isinstance(node, ast.Call) or last_part(dotted(node.func) or "") not in (
            RQ_QUEUE_FACTORIES
        ):
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg == "is_async" and isinstance(value, ast.Constant):
                scope = f"rq:{path}:{node.lineno}"
                inline = value.value is False
                found.append(EagerOption(path, node.lineno, RQ_INLINE, inline, None, guards, scope))
    return found


def _outside_functions(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _outside_functions(child)
