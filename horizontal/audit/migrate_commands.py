"""Project commands and Python programs that run ``migrate``: started by a replica, they
are ``migrate``.

``runner.Scan`` notes each such command as it reads the tree; ``starts.py`` rewrites the
start lines that run one as ``manage.py migrate`` for the start rules of ``deploy.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from horizontal.audit.patterns import lazy_compile

__all__ = [
    "MAKEFILE_NAMES",
    "as_alias_migrate",
    "as_make_migrate",
    "as_migrate",
    "make_targets_that_migrate",
    "manage_aliases",
    "migrate_wrapper",
    "program_migrates",
    "python_programs",
]

# A project command that runs migrate (``call_command("migrate")`` or a subclass of
# migrate's Command), takes no lock and runs on every instance (not only the first):
# started by every replica, it is migrate.
COMMAND_MODULE = lazy_compile(r"(^|/)management/commands/(?P<command>\w+)\.py$")
RUNS_MIGRATE = lazy_compile(
    r"call_command\(\s*[\"']migrate[\"']|commands\.migrate\s+import\s+Command\b"
)
TAKES_LOCK = lazy_compile(r"lock", re.I)
# ``if env.index is None or env.index == 0:`` (cfenv), ``CF_INSTANCE_INDEX == "0"``: only
# the first instance migrates.
FIRST_INSTANCE_ONLY = lazy_compile(r"(instance_index|\.index)\b[^=\n]*==\s*[\"']?0\b", re.I)


def migrate_wrapper(path: str, text: str) -> tuple[str, int] | None:
    """The command name and the line that migrates, when ``path`` is a project command
    that migrates with no lock of its own on every instance (a migrate override is
    migrate itself)."""
    command = COMMAND_MODULE.search(path)
    if command is None or command["command"] == "migrate" or "migrate" not in text:
        return None
    migrates = RUNS_MIGRATE.search(text)
    if migrates is None or TAKES_LOCK.search(text) or FIRST_INSTANCE_ONLY.search(text):
        return None
    return command["command"], text.count("\n", 0, migrates.start()) + 1


def as_migrate(line: str, commands: Iterable[str]) -> str | None:
    """``line`` with a run of one of ``commands`` (``manage.py post_upgrade``,
    ``nautobot-server post_upgrade``) written as ``manage.py migrate``; None if none runs."""
    rewritten = line
    for command in commands:
        if command in rewritten:
            rewritten = re.sub(rf"\S+(\s+-\S+)*\s+{command}\b", "manage.py migrate", rewritten)
    return rewritten if rewritten != line else None


# ``python jms start``, ``"$python_bin" -m app.install``, ``/venv/bin/python3 -u boot.py``:
# a Python program a start line runs (the interpreter by name or by a variable named for
# it; its flags before the program skipped).
PYTHON = r"(?:\bpython[\d.]*|\$\{?\w*python\w*\}?|(?<!\S)\S*/python[\d.]*)"
PYTHON_PROGRAM = lazy_compile(
    rf"[\"']?(?P<python>{PYTHON})[\"']?(?:\s+-(?!m\s)\w+)*\s+"
    r"(?:-m\s+(?P<module>[\w.]+)|(?P<path>[\w./-]+))",
    re.I,
)
# ``sh -c "python app.py"``: a quoted command, where quoted text elsewhere is prose
# (``Run "python -m app.install" to set up``).
QUOTED_COMMAND = lazy_compile(r"-c\s*$")


def python_programs(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(program, whether it is a module name) for each ``python …`` run in ``lines``."""
    for line in lines:
        if line.lstrip().startswith("#"):
            continue
        for match in PYTHON_PROGRAM.finditer(line):
            if _in_prose(line, match.start("python")):
                continue
            if match["module"]:
                yield match["module"], True
            elif not match["path"].startswith("-"):
                yield match["path"], False


def _in_prose(line: str, start: int) -> bool:
    """Inside a double-quoted string that no ``-c`` hands to a shell, and more than a
    quoted interpreter (``"$python_bin" -m app``)."""
    quotes = [i for i in range(start) if line[i] == '"' and (i == 0 or line[i - 1] != "\\")]
    if len(quotes) % 2 == 0:
        return False
    opening = quotes[-1]
    quoted_interpreter = opening == start - 1 and line[_interpreter_end(line, start)] == '"'
    return not quoted_interpreter and not QUOTED_COMMAND.search(line[:opening])


def _interpreter_end(line: str, start: int) -> int:
    """Where the interpreter's name that starts at ``start`` ends."""
    end = start
    while end < len(line) and (line[end].isalnum() or line[end] in "_.${}/"):
        end += 1
    return min(end, len(line) - 1)


def program_migrates(text: str) -> int | None:
    """The line where a Python program runs migrate with no lock of its own, or None."""
    if "migrate" not in text:
        return None
    migrates = RUNS_MIGRATE.search(text)
    if migrates is None or TAKES_LOCK.search(text) or FIRST_INSTANCE_ONLY.search(text):
        return None
    return text.count("\n", 0, migrates.start()) + 1


def as_migrate_program(line: str, programs: Iterable[str]) -> str | None:
    """``line`` with the run of one of ``programs`` written as ``manage.py migrate``; None
    if none runs. Only after an interpreter: a program named ``install`` is not ``pip
    install``."""
    run = {program for program, _ in python_programs([line])}
    rewritten = line
    for program in (p for p in programs if p in run):
        rewritten = re.sub(
            rf"[\"']?{PYTHON}[\"']?(\s+-(?!m\s)\S+)*\s+(-m\s+)?{re.escape(program)}(?![\w./-])",
            "manage.py migrate",
            rewritten,
            flags=re.I,
        )
    return rewritten if rewritten != line else None


# ``mrs = mrs.manage:main`` (setup.py's ``console_scripts``, pyproject's ``[project.scripts]``):
# the project's manage.py installed under its own name, so ``mrs migrate`` is migrate.
MANAGE_ENTRY_POINT = lazy_compile(r"""["']?([\w-]+)["']?\s*=\s*["']?(?:[\w.]+\.)?manage:main\b""")


def manage_aliases(files: Iterable[tuple[str, str]]) -> dict[str, tuple[str, int]]:
    """The console scripts that are the project's ``manage.py``, by name, to where the
    packaging file declares them (path, line)."""
    found: dict[str, tuple[str, int]] = {}
    for path, text in files:
        if "manage:main" not in text:
            continue
        for match in MANAGE_ENTRY_POINT.finditer(text):
            found.setdefault(match.group(1), (path, text.count("\n", 0, match.start()) + 1))
    return found


def as_alias_migrate(line: str, aliases: Iterable[str]) -> str | None:
    """``line`` with ``mrs migrate`` (an alias of manage.py) written as ``manage.py
    migrate``; None if none runs."""
    rewritten = line
    for alias in aliases:
        if alias in rewritten:
            rewritten = re.sub(
                rf"(?<![\w./-]){re.escape(alias)}((?:\s+--?\S+)*\s+migrate\b)",
                r"manage.py\1",
                rewritten,
            )
    return rewritten if rewritten != line else None


# GNU make reads these names in a directory (``make -C /app target``), or an included ``.mk``.
MAKEFILE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
# A Makefile rule's first line: ``server-migrate:`` or ``server-init: server-migrate seed``
# (not a variable, ``X := y``); its recipe is the tab-indented lines below it.
MAKE_RULE = lazy_compile(r"^(?P<target>[\w.-]+)\s*:(?![:=])(?P<prerequisites>[^=#]*)")
# A recipe line that runs migrate: ``$(PYTHON) manage.py migrate``, ``django-admin migrate``,
# ``$(MANAGE) migrate``.
RECIPE_MIGRATES = lazy_compile(
    r"(\bmanage(\.py)?|\bdjango-admin|\$[({]\w*MANAGE\w*[)}])[\"']?(\s+-\S+)*\s+migrate\b"
)


def make_targets_that_migrate(text: str) -> dict[str, int]:
    """The targets of a Makefile whose recipe runs migrate with no lock, or that need one
    that does (``server-init: server-migrate``), to the line that migrates."""
    prerequisites: dict[str, list[str]] = {}
    migrates: dict[str, int] = {}
    target: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("\t"):
            if (
                target
                and target not in migrates
                and RECIPE_MIGRATES.search(line)
                and not TAKES_LOCK.search(line)
            ):
                migrates[target] = number
            continue
        rule = MAKE_RULE.match(line)
        target = rule["target"] if rule else None
        if rule:
            prerequisites[rule["target"]] = rule["prerequisites"].split()
    changed = True
    while changed:  # a target needing one that migrates migrates too
        changed = False
        for name, needs in prerequisites.items():
            needed = next((migrates[n] for n in needs if n in migrates), None)
            if name not in migrates and needed is not None:
                migrates[name] = needed
                changed = True
    return migrates


def as_make_migrate(line: str, targets: Iterable[str]) -> str | None:
    """``line`` with ``make server-migrate -C /app`` (a target that migrates) written as
    ``manage.py migrate``; None if it runs none."""
    if line.lstrip().startswith("#"):
        return None
    for target in targets:
        run = re.search(rf"(?<![\w./$-])make\b[^;&|#]*?\s{re.escape(target)}(?![\w.-])", line)
        if run is not None:
            return line[: run.start()] + "manage.py migrate" + line[run.end() :]
    return None
