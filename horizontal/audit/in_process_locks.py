"""in-process-lock: a lock that excludes other threads or processes of this host only.

A ``threading.Lock`` around a read-modify-write of a row serialises one process, not the
fleet; a file lock (``flock``, ``filelock``, a pid file) serialises one host. A lock that
makes a memo's fill thread-safe guards this process's own memory and is not reported.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from horizontal.audit.effects import reaches_outside
from horizontal.audit.findings import Finding, Location
from horizontal.audit.source import PythonModule, call_name, dotted, last_part, local_names

__all__ = ["LOCK_FACTORIES", "find_in_process_locks", "opens_a_lock_file"]

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
FLOCK_CALLS = frozenset({"fcntl.flock", "fcntl.lockf"})
HOST_LOCKS = FLOCK_CALLS | {"filelock.FileLock", "filelock.SoftFileLock"}
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
        # NFS-safe by design, but a host's own unless its file is on a shared mount
        # (mailman's and hyperkitty's default is the temp directory).
        "flufl.lock.Lock",
    }
)


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
            and (call_name(module, call) or "") in FLOCK_CALLS
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


def opens_a_lock_file(module: PythonModule, scope: ast.AST, call: ast.Call) -> bool:
    """``with path.open("w") as handle: fcntl.flock(handle, …)`` and nothing written to
    it: the file is the lock's own, and the flock() is the finding (one problem, reported
    once)."""
    if "flock" not in module.text and "lockf" not in module.text:
        return False
    handles: set[str] = set()  # the names the opened file is bound to
    locking: set[int] = set()  # the handle's uses that flock() takes
    harmless: set[int] = set()  # ``handle.fileno()``, ``handle.close()``
    for node in ast.walk(scope):
        if isinstance(node, ast.With | ast.AsyncWith):
            handles.update(
                item.optional_vars.id
                for item in node.items
                if item.context_expr is call and isinstance(item.optional_vars, ast.Name)
            )
        elif isinstance(node, ast.Assign) and node.value is call:
            handles.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and (call_name(module, node) or "") in FLOCK_CALLS
        ):
            handle = node.args[0]
            if isinstance(handle, ast.Call) and isinstance(handle.func, ast.Attribute):
                handle = handle.func.value  # handle.fileno()
            locking.add(id(handle))
        elif isinstance(node, ast.Attribute) and node.attr in {"fileno", "close"}:
            harmless.add(id(node.value))
    if not handles:
        return False
    # Where the handle goes: to flock() (or its ``fileno()``), ``close()``, or anything
    # else, which may write data into the file (``json.dump(state, handle)``, ``print(…,
    # file=handle)``): then it is a data file under a lock, and the write stays.
    uses = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Name) and node.id in handles and isinstance(node.ctx, ast.Load)
    ]
    accounted = locking | harmless
    locked = {use.id for use in uses if id(use) in locking}
    written = {use.id for use in uses if id(use) not in accounted}
    return bool(locked - written)


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
