"""in-process-lock, timer-thread, scheduler, and ``migrate`` called from start-up code.

All four assume "this process is the only one": a ``threading.Lock`` around a read-modify-
write of a row serialises one process, not the fleet; a thread started at boot runs once
per instance; an APScheduler in ``ready()`` fires every job N times.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator

from horizontal.audit.effects import reaches_outside
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    PythonModule,
    Scope,
    call_name,
    dotted,
    keyword,
    last_part,
    local_names,
    string_value,
)

LOCK_FACTORIES = frozenset(
    {
        "threading.Lock",
        "threading.RLock",
        "threading.Semaphore",
        "threading.BoundedSemaphore",
        "threading.Condition",
        "multiprocessing.Lock",
        "multiprocessing.RLock",
        "asyncio.Lock",
        "asyncio.Semaphore",
    }
)
HOST_LOCKS = frozenset({"fcntl.flock", "fcntl.lockf", "filelock.FileLock", "filelock.SoftFileLock"})
# Libraries whose lock is a file (or a pid file) on this host's disk: one holder per host,
# not per fleet. Called, or ``Base.__init__(self, ...)`` in a subclass.
HOST_LOCK_CLASSES = frozenset(
    {
        "tendo.singleton.SingleInstance",
        "fasteners.InterProcessLock",
        "fasteners.InterProcessReaderWriterLock",
        "fasteners.process_lock.InterProcessLock",
        "portalocker.Lock",
        "portalocker.RLock",
        "pid.PidFile",
        "lockfile.LockFile",
        "lockfile.FileLock",
        "zc.lockfile.LockFile",
    }
)
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


def find_in_process_locks(module: PythonModule) -> Iterator[Finding]:
    locks = _lock_names(module)
    registry = _registry_locks(module)
    for node in module.nodes(ast.With, ast.AsyncWith):
        assert isinstance(node, ast.With | ast.AsyncWith)
        for item in node.items:
            expr = item.context_expr
            host_lock = last_part(call_name(module, expr)) in {"FileLock", "SoftFileLock"}
            scope = module.scope(node)
            name = _lock_key(expr, scope.cls)
            taken = name in locks or (id(scope.function), name) in registry
            if not host_lock and not taken:
                continue
            body = ast.Module(body=node.body, type_ignores=[])
            outside = reaches_outside(module, body, writes=True)
            if (
                not host_lock
                and not outside
                and name not in locks
                and _runs_the_decorated(module, node)
            ):
                outside = {"the functions it decorates"}
            if not (host_lock or outside):
                continue  # guards this process's own memory: correct and harmless
            if not host_lock and _fills_memo_only(module, node):
                continue  # a memo's fill, made thread-safe: the memo is the finding
            what = f"{name} (in-process)"
            if host_lock:
                what = "a file lock on this host's disk"
            elif name not in locks:
                what = f"{name} (in-process, one per key in a dict of this process)"
            guarded = "/".join(sorted(outside)) or "work"
            yield Finding(
                module.path,
                node.lineno,
                "in-process-lock",
                f"{what} guards {guarded} across requests, but only within one "
                "process: other instances run the same section at the same time",
                module.line(node.lineno),
            )
    if ".acquire(" in module.text:
        # Imported here: few modules take a lock by hand, and check --deploy scans.
        from horizontal.audit.single_flight import single_flight_guards

        yield from single_flight_guards(module, locks)
    yield from _host_lock_files(module)
    # One module's flock()s are one choice of lock (its file locks): one finding, the
    # other calls related; a release (``LOCK_UN``) is not a lock.
    flocks = sorted(
        {
            call.lineno
            for call in module.nodes(ast.Call)
            if isinstance(call, ast.Call)
            and (call_name(module, call) or "") in {"fcntl.flock", "fcntl.lockf"}
            and not _releases(call)
        }
    )
    if flocks:
        first, *rest = flocks
        yield Finding(
            module.path,
            first,
            "in-process-lock",
            "flock() serialises processes on one host only: other instances do not see the lock",
            module.line(first),
            related=tuple(Location(module.path, line, module.line(line)) for line in rest),
        )


def _releases(call: ast.Call) -> bool:
    operation = call.args[1] if len(call.args) > 1 else None
    return operation is not None and (dotted(operation) or "").endswith("LOCK_UN")


def _host_lock_files(module: PythonModule) -> Iterator[Finding]:
    """``SingleInstance(flavor_id="mail")``, ``fasteners.InterProcessLock(path)``: one
    finding per function (a test flavour and a production one are one guard)."""
    by_scope: dict[int, list[tuple[ast.Call, str]]] = {}
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = (call_name(module, call) or "").removesuffix(".__init__")
        if name in HOST_LOCK_CLASSES:
            by_scope.setdefault(id(module.scope(call).function), []).append((call, name))
    for calls in by_scope.values():
        (first, name), *others = sorted(calls, key=lambda pair: pair[0].lineno)
        yield Finding(
            module.path,
            first.lineno,
            "in-process-lock",
            f"{last_part(name)} is a lock file on this host's disk: it keeps one copy per "
            "host, and every other instance runs the same work at the same time",
            module.line(first.lineno),
            related=tuple(Location(module.path, call.lineno) for call, _ in others),
        )


# Calls that change rows: a lock around one of these is a read-modify-write.
ROW_CHANGES = frozenset(
    {
        "save",
        "delete",
        "create",
        "bulk_create",
        "get_or_create",
        "update_or_create",
        "select_for_update",
        "bulk_update",
    }
)


def _fills_memo_only(module: PythonModule, node: ast.With | ast.AsyncWith) -> bool:
    """``with lock: MEMO[key] = Site.objects.get(...)``, ``with self._lock:
    self._refresh()`` where ``_refresh`` sets ``self._policies = …``: the body (and the
    methods of its class it calls) stores into a container or an object that outlives the
    call and changes no row. The lock makes the memo's fill thread-safe, which is right;
    the memo is what other instances miss (reported as such, where it is one)."""
    scope = module.scope(node)
    function = scope.function
    local = local_names(function) if function is not None else set()
    # self._load() runs the class's method, or a subclass's of this module (a base class
    # that locks around a load its subclasses define).
    methods: dict[str, list[ast.AST]] = {}
    for cls in module.nodes(ast.ClassDef):
        assert isinstance(cls, ast.ClassDef)
        for method in cls.body:
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                methods.setdefault(method.name, []).append(method)
    bodies: list[ast.AST] = list(node.body)
    for child in (c for statement in node.body for c in ast.walk(statement)):
        if (
            scope.cls is not None
            and isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and isinstance(child.func.value, ast.Name)
            and child.func.value.id in {"self", "cls"}
        ):
            bodies.extend(methods.get(child.func.attr, ()))
    # ``self._cache = …``, or the class by its name from a static method
    # (``CustomizationBase._variables_cache = …``).
    owners = {"self", "cls", *((scope.cls.name,) if scope.cls is not None else ())}
    fills = False
    for child in (c for body in bodies for c in ast.walk(body)):
        if (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and child.func.attr in ROW_CHANGES
        ):
            return False
        targets = child.targets if isinstance(child, ast.Assign) else []
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and _outlives_the_call(target.value, local, owners)
            ) or (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id in owners
            ):
                fills = True
    return fills


def _outlives_the_call(
    container: ast.expr, local: set[str], owners: Collection[str] = ("self", "cls")
) -> bool:
    """``MEMO`` (a module or class name), ``self._clients`` or ``Owner._cache`` (the
    class by its name): not the function's own."""
    if isinstance(container, ast.Name):
        return container.id not in local
    return (
        isinstance(container, ast.Attribute)
        and isinstance(container.value, ast.Name)
        and container.value.id in owners
    )


def _registry_locks(module: PythonModule) -> set[tuple[int, str | None]]:
    """``lock = LOCKS.setdefault(key, Lock())`` in a function: a lock per key, kept in a
    dict of this process; (the function's ``id()``, the local name)."""
    taken: set[tuple[int, str | None]] = set()
    for node in module.nodes(ast.Assign):
        assert isinstance(node, ast.Assign)
        value = node.value
        if not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "setdefault"
            and any((call_name(module, a) or "") in LOCK_FACTORIES for a in value.args)
        ):
            continue
        function = module.scope(node).function
        taken.update((id(function), t.id) for t in node.targets if isinstance(t, ast.Name))
    return taken


def _runs_the_decorated(module: PythonModule, node: ast.With | ast.AsyncWith) -> bool:
    """``with lock: return function(*args, **kwargs)`` in a decorator's wrapper: the lock
    guards whatever the functions it decorates do (views, tasks), not this module's data."""
    function = module.scope(node).function
    outer = module.scope(function).function if function is not None else None
    if function is None or outer is None or not _returns(outer, function.name):
        return False
    # The decorator's own parameter, the function it wraps (not a factory's argument, such
    # as a handler a batching decorator calls with its buffer).
    parameters = {a.arg for a in (*outer.args.posonlyargs, *outer.args.args)}
    return any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in parameters
        for statement in node.body
        for call in ast.walk(statement)
    )


def _returns(function: ast.AST, name: str) -> bool:
    """``return wrapper`` in ``function``'s own body: it is a decorator of that wrapper."""
    return any(
        isinstance(statement, ast.Return)
        and isinstance(statement.value, ast.Name)
        and statement.value.id == name
        for statement in getattr(function, "body", ())
    )


def _lock_names(module: PythonModule) -> set[str]:
    """Keys (``NAME``, ``Class.NAME``) of locks created in this module."""
    names: set[str] = set()
    for node in module.nodes(ast.Assign):
        assert isinstance(node, ast.Assign)
        if (call_name(module, node.value) or "") not in LOCK_FACTORIES:
            continue
        cls = module.scope(node).cls
        for target in node.targets:
            if isinstance(target, ast.Name):
                names.add(f"{cls.name}.{target.id}" if cls else target.id)
            elif isinstance(target, ast.Attribute) and cls is not None:
                names.add(f"{cls.name}.{target.attr}")
    return names


def _lock_key(expr: ast.AST, cls: ast.ClassDef | None) -> str | None:
    name = dotted(expr)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head in {"self", "cls"} and rest and "." not in rest:
        return f"{cls.name}.{rest}" if cls else None
    return name


def find_timer_threads(module: PythonModule) -> Iterator[Finding]:
    if module.is_script:
        # A command's threads live as long as its one process, where its operator runs it;
        # one a supervisor starts in every container is judged there (repeating_commands).
        return
    thread_classes = thread_subclasses(module)
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        name = call_name(module, call) or ""
        if name not in THREAD_FACTORIES and last_part(name) not in thread_classes:
            continue
        scope = module.scope(call)
        # Periodic work runs once per instance; a thread that serves its own process (an
        # event loop, a queue consumer, one piece of work at boot) does not multiply.
        if not _target_loops(module, call, name, thread_classes):
            continue
        if _keeps_its_own_process(module, call) or _joined_where_started(module, call):
            continue
        why = (
            "starts when the process boots and loops"
            if is_startup(module, scope)
            else ("loops in the background")
        )
        yield Finding(
            module.path,
            call.lineno,
            "timer-thread",
            f"{last_part(name)} {why}: every instance runs its own copy of this work",
            module.line(call.lineno),
        )


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


def _target_loops(
    module: PythonModule, call: ast.Call, name: str, thread_classes: dict[str, ast.ClassDef]
) -> bool:
    """Does the thread's target (or ``run``) loop with a sleep: periodic work?"""
    bodies: list[ast.AST] = []
    if last_part(name) in thread_classes:
        bodies.append(thread_classes[last_part(name)])
    target = keyword(call, "target") or keyword(call, "function")
    if target is None and name.endswith("Timer") and len(call.args) > 1:
        target = call.args[1]
    if target is None and name.endswith("start_new_thread") and call.args:
        target = call.args[0]
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


def find_schedulers(module: PythonModule) -> Iterator[Finding]:
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
