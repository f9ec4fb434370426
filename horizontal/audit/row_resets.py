"""boot-reset in code: rows of the shared database reset when a process starts.

``Job.objects.filter(status="RUNNING").update(status="FAILED")`` in ``ready()``, a server
hook or a Celery worker's start signal runs in every replica and every recycled worker:
each one that starts marks the work the running ones are doing as failed (or deletes
it), though they are still doing it. A reset that belongs to the whole fleet runs once,
at deploy, from one place; one that belongs to this process names its own rows (a
worker id, this host).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from horizontal.audit.cache_wipes import debug_only_lines
from horizontal.audit.concurrency import is_startup
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule

__all__ = ["BOOT_ROW_RESET", "find_startup_row_resets"]

BOOT_ROW_RESET = (
    "shared rows are reset when each process starts: every new replica or recycled worker "
    "marks the work that running instances are doing as failed or gone"
)
# What an update at boot resets: a row's run state (``status``, ``online``, ``locked_by``,
# ``pid``), not configuration every instance writes alike (``Site.domain``, a feature
# flag's ``active``, a backfilled ``owner``).
RUN_STATE = lazy_compile(
    r"(^|_)(status|state|online|running|busy|locked|lock|pid|worker|heartbeat|"
    r"ping|load|progress|claimed)(_|$)",
    re.I,
)
# Celery's signals sent as each worker (or its child process) starts.
WORKER_START_SIGNALS = frozenset(
    {"worker_ready", "worker_init", "celeryd_init", "worker_process_init"}
)
ONE_ROW = frozenset({"get", "first", "last", "latest", "earliest", "get_or_create"})
MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})


def find_startup_row_resets(module: PythonModule) -> Iterator[Finding]:
    """A queryset's ``update()`` or ``delete()`` of run state in start-up code."""
    text = module.text
    if (".objects" not in text and "_manager" not in text) or (
        "update(" not in text and "delete(" not in text
    ):
        return
    debug_only: set[int] | None = None
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        function = call.func
        if not isinstance(function, ast.Attribute) or function.attr not in {"update", "delete"}:
            continue
        if not _on_a_manager(function.value):
            continue
        if not _resets_run_state(call, function):
            continue
        if not _at_start(module, call):
            continue
        if debug_only is None:
            debug_only = debug_only_lines(module)
        if call.lineno in debug_only:
            continue
        yield Finding(
            module.path, call.lineno, "boot-reset", BOOT_ROW_RESET, module.line(call.lineno)
        )


def _at_start(module: PythonModule, call: ast.Call) -> bool:
    """In ``ready()``, a server hook, at import, or in a receiver of a Celery worker's
    start signal (``@worker_ready.connect``): what every instance runs as it starts."""
    scope = module.scope(call)
    if is_startup(module, scope):
        return True
    function = scope.function
    for decorator in getattr(function, "decorator_list", ()):
        if isinstance(decorator, ast.Call):  # ``@worker_ready.connect(weak=False)``
            decorator = decorator.func
        # ``@worker_ready.connect``, ``@signals.worker_ready.connect``
        signal = decorator.value if isinstance(decorator, ast.Attribute) else None
        name = getattr(signal, "id", None) or getattr(signal, "attr", None)
        if getattr(decorator, "attr", None) == "connect" and name in WORKER_START_SIGNALS:
            return True
    return False


def _resets_run_state(call: ast.Call, function: ast.Attribute) -> bool:
    """``update(status=…)``; ``delete()`` of every row, or of rows chosen by run state
    (``filter(status="RUNNING")``): not configuration synced at boot (groups, sites)."""
    if function.attr == "update":
        return any(k.arg and RUN_STATE.search(k.arg) for k in call.keywords)
    chosen: list[str] = []
    for node in ast.walk(function.value):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr in ONE_ROW:
            return False  # ``Job.objects.get(name="x").delete()``: one row, by name
        if node.func.attr in {"filter", "exclude"}:
            # A ``Q(…)`` or an expression chooses rows too: by what, unread.
            chosen += ["" for _ in node.args] + [k.arg or "" for k in node.keywords]
    return not chosen or any(RUN_STATE.search(name.split("__")[0]) for name in chosen)


def _on_a_manager(node: ast.expr) -> bool:
    """``Model.objects…`` (through any chain of queryset calls)."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr in MANAGERS:
                return True
            node = node.value
        else:
            return False
