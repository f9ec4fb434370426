"""Files a host writes for itself by design: no other instance reads them, none is lost.

Devices and ``/etc``; an empty file made (a touch); pid files, logs, a probe's liveness
file; a profiler's report and a writer named for debugging; a credential or certificate
written from configuration (the same on every instance); a copy of a remote dataset that
a function named for refreshing fetches over HTTP (every instance can fetch its own).
``files.py`` asks these before it reports a write to the local disk.
"""

from __future__ import annotations

import ast
import re

from horizontal.audit.file_calls import mode_given
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    call_name,
    dotted,
    keyword,
    last_part,
    string_value,
)

__all__ = [
    "called_name",
    "is_harmless_target",
    "materializes_configuration",
    "refreshes_a_remote_copy",
    "relative_literal",
    "runs_a_profiler",
    "touched_files",
]

# Devices and kernel files; ``/etc/`` is this host's own configuration (a syslog or
# agent config written for the process beside it), per host by design.
HARMLESS_TARGETS = ("/dev/", "/proc/", "/sys/", "/etc/")
# os.devnull, also imported bare (from os import devnull), and the standard streams.
HARMLESS_NAMES = frozenset({"os.devnull", "devnull", "sys.stdout", "sys.stderr"})
PID_OR_LOG = lazy_compile(r"((^|_)(pid|log)s?(_?(file|path))?$|\.(pid|log)$)", re.I)
# A file an exec probe reads in the same container (``liveness_file``, ``/tmp/healthy``).
PROBE_FILE = lazy_compile(
    r"(^|[/_.-])(liveness|readiness|heartbeat|healthy|health_?check|alive)"
    r"(_?(file|path|probe))?(\.\w+)?$",
    re.I,
)
# A profiler's report of this process (``profiler_output_path``, ``profile_file_path``).
PROFILER_OUTPUT = lazy_compile(r"profiler|profiling|(^|_)profile_file", re.I)
# A writer named for debugging (``_save_debug_image``): output for a developer to look at.
DEBUG_OUTPUT = lazy_compile(r"(^|_)debug(_|$)", re.I)


# ``update()`` of a threat feed: downloads a dataset and keeps a local copy of it.
REFRESHER_NAME = lazy_compile(r"update|download|refresh|fetch|sync|pull", re.I)
HTTP_GETS = frozenset(
    {
        "requests.get",
        "requests.post",  # a query API (GraphQL) answers a POST
        "requests.request",
        "httpx.get",
        "httpx.post",
        "urllib.request.urlopen",
        "urllib.request.urlretrieve",
        "urlopen",
        "urlretrieve",
    }
)


def refreshes_a_remote_copy(module: PythonModule, function: FunctionNode) -> bool:
    """A function named for refreshing (``update``, ``download_dataset``) that fetches
    over HTTP and writes what it got: a copy of a remote dataset, which every instance
    can fetch for itself (and refreshes on its own schedule), not a file only this host
    has. A view saving an upload or a generated report is not such a function."""
    if not REFRESHER_NAME.search(function.name):
        return False
    return any(
        isinstance(node, ast.Call) and call_name(module, node) in HTTP_GETS
        for node in ast.walk(function)
    )


# ``gcp_key_json_path``, ``cert_target_path``, ``ca_bundle``: a credential or certificate
# file a process needs beside it.
CONFIGURATION_FILE = lazy_compile(
    r"(^|_)(key|cert|certificate|credentials?|ca_?bundle|bundle)(_json)?(_target)?"
    r"(_file|_path)?$",
    re.I,
)


def materializes_configuration(module: PythonModule, target: ast.AST, scope: ast.AST) -> bool:
    """A credential or certificate file written from configuration (an environment
    variable, a setting, a download of a public bundle) and made nowhere at random: every
    instance writes the same file for its own process, so none is missing on another."""
    from horizontal.audit.known import RANDOM_VALUE_CALLS

    if not CONFIGURATION_FILE.search(last_part(dotted(target) or "")):
        return False
    return not any(
        isinstance(node, ast.Call) and called_name(module, node) in RANDOM_VALUE_CALLS
        for node in ast.walk(scope)
    )


def is_harmless_target(target: ast.AST, function: FunctionNode | None = None) -> bool:
    if function is not None and DEBUG_OUTPUT.search(function.name):
        return True
    text = string_value(target) or _literal_bound_to(target, function) or ""
    # A name bound to a literal path is judged by the path, not by what it is called
    # (``log_file = "/app/home_page_counters.json"`` is a data file).
    name = "" if text and isinstance(target, ast.Name) else dotted(target) or ""
    if text.startswith(HARMLESS_TARGETS) or name in HARMLESS_NAMES:
        return True
    # A pid file or a log this process appends to, a profiler's report, a probe's file:
    # this host's own, read by no request. (A lock file is not: other requests look for it.)
    short = last_part(name)
    return bool(
        PID_OR_LOG.search(text)
        or PID_OR_LOG.search(short)
        or PROFILER_OUTPUT.search(short)
        or PROBE_FILE.search(text or short)
    )


def runs_a_profiler(function: FunctionNode) -> bool:
    """``profiler.stop()`` then the report written: the profile of this process's request."""
    return any(
        isinstance(node, ast.Name) and PROFILER_OUTPUT.search(node.id)
        for node in ast.walk(function)
    )


def relative_literal(target: ast.AST) -> bool:
    """A literal path relative to the working directory (``"schema.csv"``): what a module
    writes there when it runs is the output of a script run by hand in its folder, not of
    a module the application imports (that would write wherever the server was started)."""
    text = string_value(target) or ""
    return bool(text) and not text.startswith(("/", "~", "\\")) and ":" not in text


def _literal_bound_to(target: ast.AST, function: FunctionNode | None) -> str | None:
    """The string a local name is bound to in ``function`` when every assignment of it
    there is one and the same literal; else None."""
    if not isinstance(target, ast.Name) or function is None:
        return None
    values = {
        string_value(node.value)
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == target.id for t in node.targets)
    }
    found = values.pop() if len(values) == 1 else None
    return found if isinstance(found, str) else None


def called_name(module: PythonModule, call: ast.Call) -> str:
    """The last name of what ``call`` calls (``SystemRandom().choice``: ``choice``)."""
    return last_part(call_name(module, call) or getattr(call.func, "attr", ""))


# Modes that make a file without emptying it: ``open(path, "a").close()`` is a touch.
TOUCH_MODES = frozenset({"a", "ab", "a+", "x", "xb"})
# Tests of whether a path exists: a file made empty and tested so is a flag.
EXISTENCE_TESTS = frozenset({"exists", "isfile", "lexists", "is_file"})


def touched_files(module: PythonModule) -> set[int]:
    """The ``open()`` calls (by ``id()``) of ``open(path, "a").close()``: an empty file
    made and no data written, as ``Path.touch()`` makes one (a log or lock file readied for
    its writer, which is judged where it writes). Not ``"w"``, which empties a file, nor a
    file whose existence the module tests elsewhere than in the touch's own guard
    (``if not os.path.exists(log): open(log, "a").close()``): a flag other instances do not
    see (``os.path.exists(FLAG)`` in another request)."""
    if ").close()" not in module.text:
        return set()
    touched: dict[int, str] = {}
    # The whole tree: a test of existence sits on lines the prefilter does not index.
    for call in ast.walk(module.tree):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "close"
            and not call.args
        ):
            continue
        opened = call.func.value
        if (
            isinstance(opened, ast.Call)
            and dotted(opened.func) in {"open", "io.open"}
            and (path := opened.args[0] if opened.args else keyword(opened, "file")) is not None
            and (mode_given(opened, 1) or "r") in TOUCH_MODES
        ):
            touched[id(opened)] = ast.dump(path)
    if not touched:
        return set()
    guards: set[int] = set()  # the existence tests of the touches' own ``if``
    for node in ast.walk(module.tree):
        if isinstance(node, ast.If) and any(
            id(child) in touched for statement in node.body for child in ast.walk(statement)
        ):
            guards.update(id(child) for child in ast.walk(node.test))
    tested: set[str] = set()
    for call in ast.walk(module.tree):
        if (
            isinstance(call, ast.Call)
            and id(call) not in guards
            and last_part(dotted(call.func)) in EXISTENCE_TESTS
        ):
            tested.update(ast.dump(node) for node in (*call.args, call.func))
            if isinstance(call.func, ast.Attribute):  # ``Path(FLAG).exists()``
                tested.update(ast.dump(n) for n in ast.walk(call.func.value))
    return {key for key, path in touched.items() if path not in tested}
