"""Project commands that sleep between runs, and the supervisor programs that restart them.

A command that sleeps and then works (``sleep(interval)``, then prune rows) is a periodic
job when a supervisor program restarts it (``autorestart=true``) or it loops by itself. A
supervisor beside the web server runs in every container of the image, so every replica
runs the job.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit import deploy
from horizontal.audit.file_kinds import text_detector
from horizontal.audit.findings import Finding, Location
from horizontal.audit.migrate_commands import COMMAND_MODULE
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_names import (
    ENTRYPOINT_NAME,
    named_like_a_start,
    run_once_or_by_a_developer,
)

__all__ = ["SleepingCommand", "repeating_programs", "sleeping_command"]


# ``sleep(interval)`` (``time.sleep``, ``from time import sleep``) in a command's code.
SLEEPS = lazy_compile(r"\bsleep\(")
LOOPS_FOREVER = lazy_compile(r"^\s*while\s+(True|1)\s*:", re.M)


class SleepingCommand(NamedTuple):
    name: str
    path: str
    line: int  # where it sleeps
    loops: bool  # ``while True``: it repeats by itself, restarted or not


def sleeping_command(path: str, text: str) -> SleepingCommand | None:
    """``path`` as a project command that waits between runs (``sleep(interval)``): run
    by a supervisor that restarts it, or looping by itself, it repeats forever."""
    command = COMMAND_MODULE.search(path)
    if command is None or "sleep(" not in text:
        return None
    sleeps = SLEEPS.search(text)
    if sleeps is None:
        return None
    line = text.count("\n", 0, sleeps.start()) + 1
    return SleepingCommand(command["command"], path, line, bool(LOOPS_FOREVER.search(text)))


# A supervisor program's ``command=`` running a project command (``manage.py NAME``).
SUPERVISED_COMMAND = lazy_compile(r"^\s*command\s*=.*\b(?:manage\.py|django-admin)\s+(\w+)")
PROGRAM_SECTION = lazy_compile(r"^\s*\[program:")
RESTARTS = lazy_compile(r"^\s*autorestart\s*=\s*true\b", re.I)


def repeating_programs(
    texts: dict[str, list[str]],
    sleeping: dict[str, SleepingCommand],
) -> Iterator[Finding]:
    """A supervisor program beside the web server that runs a project command which sleeps
    and then works (restarted by ``autorestart=true``, or looping by itself) is a periodic
    job in every container of the image: every replica runs it."""
    if not sleeping:
        return
    for path, lines in texts.items():
        if text_detector(path) is deploy.find_in_shell:
            yield from _backgrounded_in_a_start(path, lines, sleeping)
            continue
        if text_detector(path) is not deploy.find_in_server_config:
            continue
        sections = _program_sections(lines)
        if not any(deploy.SERVER.search(line) for section in sections for _, line in section):
            continue  # the scheduler host's own supervisor: one of it
        for section in sections:
            restarts = any(RESTARTS.match(line) for _, line in section)
            for number, line in section:
                run = SUPERVISED_COMMAND.match(line)
                if run is None or run.group(1) not in sleeping:
                    continue
                command = sleeping[run.group(1)]
                if restarts or command.loops:
                    yield _every_replica(path, number, line, command, "supervisor")


def _every_replica(
    path: str, number: int, line: str, command: SleepingCommand, starter: str
) -> Finding:
    return Finding(
        path,
        number,
        "scheduler",
        f"{command.name} sleeps and runs again, in every container this {starter} starts: "
        "every replica runs the job",
        line.strip(),
        related=(Location(command.path, command.line),),
        fix_text="Run it as a scheduled job that one instance claims (a horizontal @job "
        "with runjob), or in one container only.",
    )


# ``./manage.py run_file_uploader &`` / ``run-one-constantly ./manage.py …``: a project
# command a start script leaves running beside the server, or restarts whenever it ends.
BACKGROUND_COMMAND = lazy_compile(
    r"^\s*(run-one-constantly\s+)?\S*(?:manage\.py|django-admin)\s+(\w+)[^&|;]*(&)?\s*$"
)
# The script goes on to the server: ``exec "$@"`` (the image's CMD) or a server's start.
EXECS_ON = lazy_compile(r"^\s*exec\s+\"\$@\"")


def _backgrounded_in_a_start(
    path: str, lines: list[str], sleeping: dict[str, SleepingCommand]
) -> Iterator[Finding]:
    """A replica's start script that leaves a sleeping command running in the background
    (``&``), or restarts it forever (``run-one-constantly``), before the server: every
    container runs the job."""
    name = posixpath.basename(path)
    # ``docker/entrypoints/prod.sh``: a start by its name or its folder's.
    if not (named_like_a_start(name) or ENTRYPOINT_NAME.search(posixpath.dirname(path))):
        return
    if run_once_or_by_a_developer(name) or not any(
        EXECS_ON.match(line) or deploy.SERVER.search(line) for line in lines
    ):
        return
    for number, line in enumerate(lines, start=1):
        run = BACKGROUND_COMMAND.match(line)
        if run is None or run.group(2) not in sleeping or not (run.group(1) or run.group(3)):
            continue
        command = sleeping[run.group(2)]
        if run.group(1) or command.loops:
            yield _every_replica(path, number, line, command, "start script")


def _program_sections(lines: list[str]) -> list[list[tuple[int, str]]]:
    """A supervisor config's ``[program:…]`` sections, as (line number, text) lists."""
    sections: list[list[tuple[int, str]]] = []
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("["):
            sections.append([])
            if not PROGRAM_SECTION.match(line):
                continue
        if sections:
            sections[-1].append((number, line))
    return sections
