"""boot-migrate and boot-reset in a Python program that is an image's entrypoint.

``docker-entrypoint.py`` plays the part of ``docker-entrypoint.sh``: what it runs through
``subprocess`` or ``os.system`` before it hands over to the server, every replica runs
when it starts. Judged like a shell start (``deploy.py``): the commands it runs, read from
their argument lists, and only in a program that goes on to start a server.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterator

from horizontal.audit import deploy
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import dotted, string_value
from horizontal.audit.start_messages import BOOT_MIGRATE

__all__ = [
    "execs_a_server",
    "find_in_python_start",
    "find_migrate_then_serve",
    "is_python_start",
    "may_migrate_then_serve",
]

# docker-entrypoint.py, entrypoint.py, docker_start.py: named for the container's start.
START_PROGRAM = lazy_compile(r"^(docker[-_])?(entrypoint|start|boot)([-_][\w-]*)?\.py$", re.I)
RUNNER_MODULES = ("subprocess.", "os.system", "os.exec", "os.spawn")
RUNNER_FUNCTIONS = frozenset({"run", "call", "check_call", "check_output", "Popen"})
# The program hands over to a server (``os.execvpe("gunicorn", …)``) or names one.
SERVER_HANDOVER = lazy_compile(r"\bos\.exec\w*\(|\b(gunicorn|uwsgi|daphne|uvicorn|hypercorn)\b")


# A console script that ends by becoming the server: ``os.execv(sys.executable, [...,
# "gunicorn.app.wsgiapp", ...])`` (squad's ``squad`` command), whatever its file is named.
EXEC_SERVER = lazy_compile(r"\bos\.exec\w*\(")
SERVER_NAME = lazy_compile(r"\b(gunicorn|uwsgi|daphne|uvicorn|hypercorn)\b")


def is_python_start(name: str) -> bool:
    return bool(START_PROGRAM.match(posixpath.basename(name)))


def execs_a_server(text: str) -> bool:
    """A module that replaces its process with a web server: a start, by what it does."""
    return "os.exec" in text and bool(EXEC_SERVER.search(text) and SERVER_NAME.search(text))


def _command_text(call: ast.Call) -> str:
    """The command a runner call runs, its string parts joined (``["python", "manage.py",
    "migrate"]`` or ``"python manage.py migrate"``)."""
    parts: list[str] = []
    for argument in call.args:
        items = argument.elts if isinstance(argument, ast.List | ast.Tuple) else [argument]
        parts += [text for item in items if (text := string_value(item)) is not None]
    return " ".join(parts)


def find_in_python_start(path: str, text: str) -> Iterator[Finding]:
    if not SERVER_HANDOVER.search(text):
        return  # a program that only migrates is a migration step, judged where it runs
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    lines = text.splitlines()
    for node in ast.walk(tree):
        # sys.argv = ["squad-admin", "migrate"]; manage(): a management command run in
        # this process, by the argument list it sets.
        if isinstance(node, ast.Assign) and _argv_runs_migrate(node):
            source = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
            yield Finding(path, node.lineno, "boot-migrate", BOOT_MIGRATE, source)
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        name = dotted(call.func) or ""
        if not name.startswith(RUNNER_MODULES) and name.rpartition(".")[2] not in RUNNER_FUNCTIONS:
            continue
        command = _command_text(call)
        source = lines[call.lineno - 1].strip() if call.lineno <= len(lines) else ""
        if deploy.runs_migrations(command):
            yield Finding(path, call.lineno, "boot-migrate", BOOT_MIGRATE, source)
        elif deploy.resets_shared_state(command):
            yield Finding(path, call.lineno, "boot-reset", deploy.reset_message(command), source)


def _argv_runs_migrate(node: ast.Assign) -> bool:
    if not isinstance(node.value, ast.List | ast.Tuple):
        return False
    if not any(dotted(target) == "sys.argv" for target in node.targets):
        return False
    words = [string_value(item) for item in node.value.elts]
    return "migrate" in words


# A program that migrates in its own process and then serves there: a product's console
# script (``openslides start``, ``label-studio``) that every replica runs as its start.
# Management commands that are a server, and the in-process servers' entry calls.
SERVING_COMMANDS = frozenset({"runserver", "runserver_plus", "runmodwsgi", "runsslserver"})
SERVING_CALLS = frozenset(
    {
        "uvicorn.run",
        "hypercorn.run",
        "waitress.serve",
        "serve_forever",
        "run_simple",
        "make_server",
        "quickstart",
    }
)
SERVING_NEEDLES = (
    "runserver",
    "runmodwsgi",
    "uvicorn",
    "waitress",
    "serve_forever",
    "run_simple",
    "make_server",
    "quickstart",
)


# ``call_command("migrate"`` or an argument list ``[…, "migrate"]`` for
# ``execute_from_command_line``: migrate run in this process.
MIGRATE_IN_PROCESS = lazy_compile(r"""call_command\(\s*["']migrate["']|["']migrate["']\s*[\],]""")


def may_migrate_then_serve(text: str) -> bool:
    """A test before parsing: the module runs migrate in process and names a server."""
    if '"migrate"' not in text and "'migrate'" not in text:
        return False
    if not any(needle in text for needle in SERVING_NEEDLES):
        return False
    return MIGRATE_IN_PROCESS.search(text) is not None


def find_migrate_then_serve(path: str, text: str) -> Iterator[Finding]:
    """``call_command("migrate")`` in a function that then starts a server in the same
    process (``call_command("runserver", …)``, ``uvicorn.run(…)``), itself or through the
    module's functions it calls: the program every replica runs migrates at each start."""
    if not may_migrate_then_serve(text):
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    # ``from waitress import serve``: the call ``serve(…)`` is ``waitress.serve``.
    imported = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    lines = text.splitlines()
    reported: set[int] = set()
    for function in functions.values():
        migrates, serves = _reached_calls(function, functions, imported)
        for call in migrates:
            if serves and call.lineno not in reported:
                reported.add(call.lineno)
                source = lines[call.lineno - 1].strip() if call.lineno <= len(lines) else ""
                related = tuple(Location(path, s.lineno) for s in serves[:1])
                yield Finding(path, call.lineno, "boot-migrate", BOOT_MIGRATE, source, related)


# Where a call sits: the arms of the ``if``/``match`` statements it is under, from the
# function the search starts in (``(id(if_node), 0)`` for its body, ``1`` for ``else``).
Arms = tuple[tuple[int, int], ...]


def _reached_calls(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
    imported: dict[str, str],
) -> tuple[list[ast.Call], list[ast.Call]]:
    """The migrate calls and the serving calls ``function`` makes on one path, itself or
    through the module-level functions it calls (each followed once): a migrate in one
    arm of an ``if`` and a server in another (``if cmd == "migrate": … elif cmd ==
    "start": …``) are two subcommands, not one start."""
    migrates: list[tuple[ast.Call, Arms]] = []
    serves: list[tuple[ast.Call, Arms]] = []
    seen = {function.name}

    def visit(node: ast.AST, arms: Arms) -> None:
        if isinstance(node, ast.If):
            visit(node.test, arms)
            for arm, block in enumerate((node.body, node.orelse)):
                for inner in block:
                    visit(inner, (*arms, (id(node), arm)))
            return
        if isinstance(node, ast.Match):
            for arm, case in enumerate(node.cases):
                for inner in case.body:
                    visit(inner, (*arms, (id(node), arm)))
            return
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            head, dot, tail = name.partition(".")
            if head not in functions:
                name = imported.get(head, head) + dot + tail
            command = _management_command(node, name)
            if command == "migrate":
                migrates.append((node, arms))
            elif command in SERVING_COMMANDS or any(
                name == call or name.endswith("." + call) for call in SERVING_CALLS
            ):
                serves.append((node, arms))
            elif name in functions and name not in seen:
                seen.add(name)
                for statement in functions[name].body:
                    visit(statement, arms)  # a callee's calls sit where it is called
        for child in ast.iter_child_nodes(node):
            visit(child, arms)

    for statement in function.body:
        visit(statement, ())
    together = [
        (migrate, [serve for serve, there in serves if _one_path(here, there)])
        for migrate, here in migrates
    ]
    return (
        [migrate for migrate, with_server in together if with_server],
        [serve for _, with_server in together for serve in with_server],
    )


def _one_path(first: Arms, second: Arms) -> bool:
    """Two calls can run in one pass: no ``if`` puts them in different arms."""
    chosen = dict(first)
    return all(chosen.get(node, arm) == arm for node, arm in second)


def _management_command(call: ast.Call, name: str) -> str | None:
    """The command ``call_command("migrate")`` or ``execute_from_command_line([…,
    "migrate"])`` runs."""
    if name.rpartition(".")[2] == "call_command" and call.args:
        return string_value(call.args[0])
    if name.rpartition(".")[2] == "execute_from_command_line" and call.args:
        argv = call.args[0]
        if isinstance(argv, ast.List | ast.Tuple) and len(argv.elts) >= 2:
            return string_value(argv.elts[1])
    return None
