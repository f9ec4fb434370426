"""timer-thread, across modules: a looping thread class started by another module's boot code.

``AppConfig.ready()`` that does ``from app.sender import Sender; Sender().start()``, where
``Sender`` is a ``threading.Thread`` whose ``run`` sleeps and wakes in a loop, is a
scheduler in every instance: each one sends the same reminders. ``concurrency.py`` sees a
thread started where its class is defined; this pairs a start in one file with a class in
another, once the whole tree is read (``Scan.finish``). A thread that waits on a queue
serves its own process's work and is not reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit.concurrency import (
    STARTUP_FUNCTIONS,
    looping_thread_starts,
    sleeping_loop,
    thread_subclasses,
)
from horizontal.audit.findings import Finding, Location, line_of
from horizontal.audit.source import PythonModule, class_paths, dotted

__all__ = [
    "BootCall",
    "BootStart",
    "LoopingStarter",
    "boot_calls",
    "boot_starts",
    "boot_thread_findings",
    "looping_starters",
    "looping_threads",
    "may_start",
    "started_through_boot_calls",
]


class BootStart(NamedTuple):
    target: str  # the dotted name the started class is imported by
    built: Location
    started: Location
    function: str


class BootCall(NamedTuple):
    target: str  # the dotted name of the imported function called
    called: Location
    function: str  # the start-up function that calls it


class LoopingStarter(NamedTuple):
    started: Location  # where the looping thread is started
    factory: str
    function: str  # the module-level function that starts it


# A thread, timer or process made (``threading.Thread(``, ``Timer(``, ``Process(``).
THREAD_MADE = ("Thread(", "Timer(", "Process(", "start_new_thread(")


def may_involve_threads(text: str) -> bool:
    """Text test before a parse: threads defined, made or started."""
    return may_start(text) or may_define_threads(text) or any(m in text for m in THREAD_MADE)


def may_call_at_boot(text: str) -> bool:
    """A start-up function (``ready()``, a server hook) that may call a starter."""
    return any(f"def {name}(" in text for name in STARTUP_FUNCTIONS)


def boot_calls(module: PythonModule) -> Iterator[BootCall]:
    """Functions of other modules that a start-up function calls: ``ready()`` doing
    ``from .jobs import start_jobs; start_jobs()``."""
    if module.is_script:
        return
    relative = _relative_imports(module)
    for function_name in STARTUP_FUNCTIONS:
        for function in module.functions.get(function_name, ()):
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                    target = _imported(module, relative, node.func)
                    if target:
                        yield BootCall(target, Location(module.path, node.lineno), function_name)


def looping_starters(module: PythonModule) -> dict[str, list[LoopingStarter]]:
    """Module-level functions that start a looping thread and are not started at boot by
    this module, by each dotted path they may be imported by: each thread they start."""
    found: dict[str, list[LoopingStarter]] = {}
    methods = {
        id(item)
        for node in module.nodes(ast.ClassDef)
        if isinstance(node, ast.ClassDef)
        for item in node.body
    }
    for start in looping_thread_starts(module):
        if start.at_boot or start.function is None or id(start.function) in methods:
            continue
        name = getattr(start.function, "name", "")
        starter = LoopingStarter(Location(module.path, start.call.lineno), start.factory, name)
        for path in class_paths(module.path, name):
            found.setdefault(path, []).append(starter)
    return found


def started_through_boot_calls(
    starters: dict[str, list[LoopingStarter]],
    boot_texts: list[tuple[str, str]],
    lines: dict[str, list[str]],
) -> Iterator[Finding]:
    """A looping thread that another module's start-up code starts through its starter
    (the modules with start-up code are parsed only when a starter exists)."""
    if not starters:
        return
    calls = [
        call
        for name, text in boot_texts
        if (module := PythonModule.parse(name, text)) is not None
        for call in boot_calls(module)
    ]
    seen: set[Location] = set()
    for call in calls:
        for starter in starters.get(call.target, []):
            if starter.started in seen:
                continue
            seen.add(starter.started)
            yield Finding(
                starter.started.path,
                starter.started.line,
                "timer-thread",
                f"{starter.factory} is started by {starter.function}(), which "
                f"{call.function}() calls when the process boots, and loops: every instance "
                "runs its own copy of this work",
                line_of(lines, starter.started.path, starter.started.line).strip(),
                related=(call.called,),
            )


def may_start(text: str) -> bool:
    """Text test before a parse: a start-up function that starts something."""
    return ".start()" in text and any(f"def {name}(" in text for name in STARTUP_FUNCTIONS)


def may_define_threads(text: str) -> bool:
    return "Thread" in text and "class " in text


def looping_threads(module: PythonModule) -> dict[str, Location]:
    """Dotted paths of this module's thread classes whose body loops with a sleep."""
    found: dict[str, Location] = {}
    for name, node in thread_subclasses(module).items():
        if sleeping_loop(module, node):
            for path in class_paths(module.path, name):
                found[path] = Location(module.path, node.lineno)
    return found


def boot_starts(module: PythonModule) -> Iterator[BootStart]:
    """``X().start()`` or ``self.x = X(); self.x.start()`` in a start-up function, where
    ``X`` is imported from another module."""
    if module.is_script:
        return
    relative = _relative_imports(module)
    for function_name in STARTUP_FUNCTIONS:
        for function in module.functions.get(function_name, ()):
            built: dict[str, tuple[str, int]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    target = _imported(module, relative, node.value.func)
                    for name in filter(None, map(dotted, node.targets)):
                        if target:
                            built[name] = (target, node.lineno)
            for node in ast.walk(function):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "start"
                ):
                    continue
                receiver = node.func.value
                if isinstance(receiver, ast.Call):
                    target, line = _imported(module, relative, receiver.func), receiver.lineno
                else:
                    target, line = built.get(dotted(receiver) or "", (None, 0))
                if target:
                    yield BootStart(
                        target,
                        Location(module.path, line),
                        Location(module.path, node.lineno),
                        function_name,
                    )


def boot_thread_findings(
    starts: list[BootStart], threads: dict[str, Location], lines: dict[str, list[str]]
) -> Iterator[Finding]:
    for start in starts:
        defined = threads.get(start.target)
        if defined is None:
            continue
        class_name = start.target.rsplit(".", 1)[-1]
        yield Finding(
            start.started.path,
            start.started.line,
            "timer-thread",
            f"{class_name} is started in {start.function}() and loops on a timer: every "
            "instance runs its own copy of this periodic work",
            line_of(lines, start.started.path, start.started.line).strip(),
            related=tuple(dict.fromkeys(r for r in (start.built, defined) if r.line)),
        )


def _relative_imports(module: PythonModule) -> dict[str, str]:
    """``from .sender import Sender`` in ``app/apps.py``: ``Sender`` → ``app.sender.Sender``
    (``PythonModule.imports`` keeps absolute imports only)."""
    package = module.path[: -len(".py")].split("/")[:-1]
    names: dict[str, str] = {}
    for node in module.nodes(ast.ImportFrom):
        assert isinstance(node, ast.ImportFrom)
        if not node.level or node.level > len(package) + 1:
            continue
        base = package[: len(package) - node.level + 1]
        origin = ".".join([*base, *(node.module.split(".") if node.module else [])])
        for alias in node.names:
            names[alias.asname or alias.name] = f"{origin}.{alias.name}"
    return names


def _imported(module: PythonModule, relative: dict[str, str], func: ast.expr) -> str | None:
    """The dotted name ``func`` is imported by, or None for a name of this module."""
    name = dotted(func)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head in relative:
        return f"{relative[head]}.{rest}" if rest else relative[head]
    qualified = module.qualify(func)
    return qualified if qualified and head in module.imports else None
