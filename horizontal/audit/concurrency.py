"""timer-thread, scheduler, and ``migrate`` called from start-up code.

All three assume "this process is the only one": a thread started at boot runs once per
instance; an APScheduler in ``ready()`` fires every job N times. (Locks that exclude this
process's threads only: ``in_process_locks.py``.)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    Scope,
    call_name,
    dotted,
    keyword,
    last_part,
    string_value,
)
from horizontal.audit.start_messages import BEAT_IN_WORKER_CODE

THREAD_FACTORIES = frozenset(
    {"threading.Thread", "threading.Timer", "multiprocessing.Process", "_thread.start_new_thread"}
)
SCHEDULER_CLASSES = frozenset(
    {
        "BackgroundScheduler",
        "BlockingScheduler",
        "AsyncIOScheduler",
        "GeventScheduler",
        "TornadoScheduler",
        "TwistedScheduler",
        "QtScheduler",
    }
)
UWSGI_TIMERS = frozenset({"timer", "rbtimer", "cron", "rbcron", "mulefunc"})
# Code that runs when a process boots, on every instance.
STARTUP_FUNCTIONS = frozenset(
    {"ready", "on_starting", "when_ready", "post_fork", "post_worker_init", "pre_fork"}
)
SLEEPS = frozenset({"sleep", "wait", "join"})


def is_startup(module: PythonModule, scope: Scope) -> bool:
    if module.is_script:
        return False
    function = scope.function
    if function is None:
        return True  # module level or a class body: runs at import, in every process
    return getattr(function, "name", "") in STARTUP_FUNCTIONS


class LoopingStart(NamedTuple):
    call: ast.Call
    factory: str  # ``Thread(target=poll)``, ``Timer(rearm)``, a thread class: named in messages
    function: FunctionNode | None  # what starts it; None at module level
    at_boot: bool  # started at import or by start-up code of this module


def find_timer_threads(module: PythonModule) -> Iterator[Finding]:
    # Only a thread every process starts at boot runs on every instance; one that a
    # request, a task or a consumer starts runs where that one call ran. A start-up
    # function of another module that calls the starter is paired in boot_threads.py.
    for start in looping_thread_starts(module):
        if start.at_boot:
            yield Finding(
                module.path,
                start.call.lineno,
                "timer-thread",
                f"{start.factory} starts when the process boots and loops: every instance "
                "runs its own copy of this work",
                module.line(start.call.lineno),
            )


def looping_thread_starts(module: PythonModule) -> Iterator[LoopingStart]:
    if module.is_script:
        # A command's threads live as long as its one process, where its operator runs it;
        # one a supervisor starts in every container is judged there (repeating_commands).
        return
    thread_classes = thread_subclasses(module)
    owners: dict[int, str] | None = None  # built for the first start inside a function
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        if name not in THREAD_FACTORIES and last_part(name) not in thread_classes:
            continue
        # Periodic work runs once per instance; a thread that serves its own process (an
        # event loop, a queue consumer, one piece of work at boot) does not multiply.
        if not _target_loops(module, call, name, thread_classes):
            continue
        if _keeps_its_own_process(module, call) or _joined_where_started(module, call):
            continue
        scope = module.scope(call)
        function = scope.function
        if function is None and _inside_a_lambda(module, call):
            continue  # ``handlers["go"] = lambda request: Thread(…).start()``: run on a call
        if function is not None and owners is None:
            owners = _owners(module)
        at_boot = is_startup(module, scope) or (
            function is not None and _started_at_boot(module, function, owners or {}, 0)
        )
        yield LoopingStart(call, _named(call, last_part(name)), function, at_boot)


def _named(call: ast.Call, factory: str) -> str:
    """The factory and what the thread runs, so that one of several starts in a
    function is told apart: ``Thread(target=poll)``, ``Timer(_rearm)``."""
    target = _thread_target(call, factory)
    name = last_part(dotted(target) or "") if target is not None else ""
    if not name:
        return factory
    return (
        f"{factory}(target={name})" if keyword(call, "target") is not None else f"{factory}({name})"
    )


def _inside_a_lambda(module: PythonModule, call: ast.Call) -> bool:
    return any(
        isinstance(node, ast.Lambda) and any(child is call for child in ast.walk(node.body))
        for node in ast.walk(module.tree)
    )


def _owners(module: PythonModule) -> dict[int, str]:
    """Each method (by id) to the name of its class."""
    return {
        id(item): node.name
        for node in module.nodes(ast.ClassDef)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _started_at_boot(
    module: PythonModule, function: FunctionNode, owners: dict[int, str], depth: int
) -> bool:
    """The function that starts the thread is called at import or from a start-up function
    of this module (``ready()``, a server hook), directly or through up to two more."""
    name, owner = getattr(function, "name", ""), owners.get(id(function), "")
    at_import = (
        statement
        for statement in module.tree.body
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )
    if any(_calls_it(n, name, owner, "", set()) for s in at_import for n in ast.walk(s)):
        return True
    for caller in module.nodes(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        if caller is function:
            continue  # a timer that re-arms itself is started by whoever calls it first
        built = _built_from(caller, owner) if owner else set()
        caller_owner = owners.get(id(caller), "")
        calls = any(_calls_it(n, name, owner, caller_owner, built) for n in ast.walk(caller))
        if calls and (
            caller.name in STARTUP_FUNCTIONS
            or (depth < 2 and _started_at_boot(module, caller, owners, depth + 1))
        ):
            return True
    return False


def _calls_it(node: ast.AST, name: str, owner: str, caller_owner: str, built: set[str]) -> bool:
    """``node`` calls the function ``name`` (a method of ``owner`` when set): ``name()``;
    ``self.name()`` in its class, ``Owner().name()``, ``Owner.name()``, or ``x.name()``
    where ``x = Owner(…)``. Not ``os.environ.get()`` for a function named ``get``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if not owner:
        return isinstance(func, ast.Name) and func.id == name
    if not (isinstance(func, ast.Attribute) and func.attr == name):
        return False
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in {"self", "cls"}:
        return caller_owner == owner
    if isinstance(receiver, ast.Call):
        return last_part(dotted(receiver.func) or "") == owner
    return dotted(receiver) == owner or (dotted(receiver) or "") in built


def _built_from(function: FunctionNode, owner: str) -> set[str]:
    """Names ``function`` binds to a new ``owner``: ``self.worker = Worker()``."""
    return {
        dotted(target) or ""
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and last_part(dotted(node.value.func) or "") == owner
        for target in node.targets
    }


def _joined_where_started(module: PythonModule, call: ast.Call) -> bool:
    """``t = threading.Thread(target=poll); t.start(); … finally: t.join()``: the thread
    ends before the function that starts it returns, a helper of that one call."""
    function = module.scope(call).function
    if function is None:
        return False
    names = {
        dotted(target)
        for node in ast.walk(function)
        if isinstance(node, ast.Assign) and node.value is call
        for target in node.targets
    }
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and dotted(node.func.value) in names
        for node in ast.walk(function)
    )


# A heartbeat, a lease or lock renewer, a watchdog, a diagnostics sampler: a loop whose job
# is this process's own liveness or resources, meant to run in every process.
OWN_PROCESS_DUTY = lazy_compile(
    r"heart_?beat|keep_?alive|renew|watchdog|diagnos|liveness|health_?check", re.I
)


def _keeps_its_own_process(module: PythonModule, call: ast.Call) -> bool:
    """The thread is named for a duty to its own process: its target (``target=
    self._heartbeat``), its ``name=``, or what it is bound to (``self.renewer_thread``)."""
    target = keyword(call, "target")
    names = [last_part(dotted(target) or "") if target is not None else ""]
    names.append(string_value(keyword(call, "name")) or "")
    for node in module.nodes(ast.Assign):
        if isinstance(node, ast.Assign) and node.value is call:
            names += [dotted(t) or "" for t in node.targets]
    return any(OWN_PROCESS_DUTY.search(name) for name in names if name)


def thread_subclasses(module: PythonModule) -> dict[str, ast.ClassDef]:
    classes: dict[str, ast.ClassDef] = {}
    for node in module.nodes(ast.ClassDef):
        assert isinstance(node, ast.ClassDef)
        if any((module.qualify(b) or "") in THREAD_FACTORIES for b in node.bases):
            classes[node.name] = node
    return classes


def _thread_target(call: ast.Call, factory: str) -> ast.expr | None:
    """What a thread runs: ``target=``/``function=``, a ``Timer``'s second argument,
    ``start_new_thread``'s first."""
    target = keyword(call, "target") or keyword(call, "function")
    if target is None and factory.endswith("Timer") and len(call.args) > 1:
        target = call.args[1]
    if target is None and factory.endswith("start_new_thread") and call.args:
        target = call.args[0]
    return target


def _target_loops(
    module: PythonModule, call: ast.Call, name: str, thread_classes: dict[str, ast.ClassDef]
) -> bool:
    """Does the thread's target (or ``run``) loop with a sleep: periodic work?"""
    bodies: list[ast.AST] = []
    if last_part(name) in thread_classes:
        bodies.append(thread_classes[last_part(name)])
    target = _thread_target(call, name)
    if target is not None:
        target_name = last_part(dotted(target))
        bodies.extend(module.functions.get(target_name, []))
        if name.endswith("Timer") and any(_calls_timer(module, b) for b in bodies):
            return True  # a timer that re-arms itself is a periodic job
    return any(sleeping_loop(module, body) for body in bodies)


def _calls_timer(module: PythonModule, body: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and last_part(call_name(module, n)) == "Timer"
        for n in ast.walk(body)
    )


# A wait with a deadline or a retry budget (``while time.time() - start < timeout``) ends:
# it is no periodic job.
BOUNDED_WAIT = frozenset({"time", "monotonic", "perf_counter", "now"})
BOUND_NAME = ("timeout", "deadline", "retr", "attempt", "tries", "limit", "until")


def _bounded(module: PythonModule, test: ast.expr) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and last_part(call_name(module, node)) in BOUNDED_WAIT:
            return True
        name = (dotted(node) or "").lower() if isinstance(node, ast.Name | ast.Attribute) else ""
        if any(part in name for part in BOUND_NAME):
            return True
    return False


def sleeping_loop(module: PythonModule, body: ast.AST) -> bool:
    for loop in ast.walk(body):
        if isinstance(loop, ast.While) and not _bounded(module, loop.test):
            for node in ast.walk(loop):
                if isinstance(node, ast.Call) and last_part(call_name(module, node)) in SLEEPS:
                    return True
    return False


def _parses_an_expression(call: ast.Call) -> bool:
    """``CronTab("*/5 * * * *").next()``: parse-crontab (also imported as ``crontab``)
    computes the next time of an expression; python-crontab's ``CronTab(user=True)`` is the
    one that installs jobs into this host's crontab."""
    return bool(call.args) and not any(k.arg in {"user", "tab", "tabfile"} for k in call.keywords)


def _handed_on(module: PythonModule, function: str) -> bool:
    """Whether the module names ``function`` as a value (``Thread(target=run)``), not only
    as a call's function."""
    if not function:
        return False
    called = {id(node.func) for node in ast.walk(module.tree) if isinstance(node, ast.Call)}
    return any(
        isinstance(node, ast.Name)
        and node.id == function
        and isinstance(node.ctx, ast.Load)
        and id(node) not in called
        for node in ast.walk(module.tree)
    )


# A Celery worker started in Python with beat inside it (``Worker(app=app, beat=True)``,
# ``app.worker_main(["worker", "-B"])``): every process that runs this code is a scheduler.
CELERY_WORKER_CLASSES = frozenset({"Worker", "WorkController"})
CELERY_WORKER_STARTS = frozenset({"worker_main", "start"})
EMBEDDED_BEAT_FLAGS = frozenset({"-B", "--beat"})


def _embeds_beat(call: ast.Call, name: str) -> bool:
    # Celery's own class, or an attribute of an app imported from a ``celery`` module
    # (``from proj.celery import app``: ``app.Worker``); another library's ``Worker`` is not.
    if "celery" not in name.lower():
        return False
    if last_part(name) in CELERY_WORKER_CLASSES:
        beat = keyword(call, "beat")
        return isinstance(beat, ast.Constant) and beat.value is True
    if last_part(name) in CELERY_WORKER_STARTS:
        argv = call.args[0] if call.args else keyword(call, "argv")
        if isinstance(argv, ast.List | ast.Tuple):
            words = [string_value(e) for e in argv.elts]
            return "worker" in words and any(
                w is not None and (w in EMBEDDED_BEAT_FLAGS or w.startswith("--beat="))
                for w in words
            )
    return False


def find_embedded_beats(module: PythonModule) -> Iterator[Finding]:
    """A worker that starts beat in its own process, scripts included: workers scale."""
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        if _embeds_beat(call, name):
            yield Finding(
                module.path, call.lineno, "scheduler", BEAT_IN_WORKER_CODE, module.line(call.lineno)
            )


def find_schedulers(module: PythonModule) -> Iterator[Finding]:
    yield from find_embedded_beats(module)
    if module.is_script:
        return  # a dedicated scheduler command is one process by construction
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        scheduler = (
            last_part(name) in SCHEDULER_CLASSES
            or name.startswith(("schedule.every", "sched.scheduler"))
            or (name == "crontab.CronTab" and not _parses_an_expression(call))
        )
        if scheduler and last_part(name) == "BlockingScheduler":
            # Its start() never returns: the program that calls it is the scheduler's own
            # process type (``runscript app.task_scheduler``, a ``clock.py``), unless an
            # app's ``ready()`` or a server hook builds it.
            enclosing = module.scope(call).function
            name_of = getattr(enclosing, "name", "")
            # ... or runs it in a thread of its own (``Thread(target=run)``): the function
            # handed on as a value, not called, is some process's background.
            scheduler = name_of in STARTUP_FUNCTIONS or _handed_on(module, name_of)
        if scheduler:
            yield Finding(
                module.path,
                call.lineno,
                "scheduler",
                f"{name} schedules jobs inside this process: with N instances "
                "every job runs N times (or not at all when they restart)",
                module.line(call.lineno),
            )
    for function in module.nodes(ast.FunctionDef):
        assert isinstance(function, ast.FunctionDef)
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = module.qualify(target) or ""
            if qualified.startswith("uwsgidecorators.") and last_part(qualified) in UWSGI_TIMERS:
                yield Finding(
                    module.path,
                    decorator.lineno,
                    "scheduler",
                    f"uWSGI @{last_part(qualified)} runs in every uWSGI instance: the job "
                    "fires once per instance",
                    module.line(decorator.lineno),
                )


def find_startup_migrate(module: PythonModule) -> Iterator[Finding]:
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        if last_part(call_name(module, call)) != "call_command" or not call.args:
            continue
        if string_value(call.args[0]) != "migrate":
            continue
        if not is_startup(module, module.scope(call)):
            continue
        yield Finding(
            module.path,
            call.lineno,
            "boot-migrate",
            "migrate runs when each process starts: N replicas race to apply the same "
            "migrations, and an old replica can boot against a newer schema",
            module.line(call.lineno),
        )
