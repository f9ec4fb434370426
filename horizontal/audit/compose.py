"""boot-migrate in a compose file that is a production stack.

A compose file is a development stack as often as not, so it is not scanned like a start
script. One that serves with a production server, sets no development flag and is not
named for development (``docker-compose.dev.yml``), and whose service command runs
``migrate`` before the server, starts N migrations when the service is scaled to N.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from horizontal.audit import deploy
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile

__all__ = ["find_compose_migrations"]

COMMAND_KEY = lazy_compile(r"^(\s*)(command|entrypoint):\s*(.*)$")
DEV_COMPOSE_NAME = lazy_compile(
    r"[._-](dev|develop|development|local|test|tests|testing|ci|debug|demo|example|sample)"
    r"[._-]",
    re.I,
)
# A development flag the stack sets (``DEBUG: "True"``, ``DEV_ENV: 'True'``) or a server
# that reloads on code changes: the stack is a developer's.
DEV_FLAG = lazy_compile(
    r"\b(DEBUG|DEV_ENV|DEVELOPMENT|DJANGO_DEBUG)\b[\"']?\s*[:=]\s*[\"']?(true|1|yes|on)\b"
    r"|--reload\b|\bwatch\b",
    re.I,
)


def find_compose_migrations(path: str, lines: list[str]) -> Iterator[Finding]:
    if DEV_COMPOSE_NAME.search(f".{posixpath.basename(path)}"):
        return
    text = "\n".join(lines)
    if DEV_FLAG.search(text) or deploy.DEV_SERVER.search(text):
        return
    for start, block in _commands(lines):
        command = " ".join(line.strip() for line in block)
        if not (deploy.runs_migrations(command) and deploy.PRODUCTION_SERVER.search(command)):
            continue
        offset = next((i for i, line in enumerate(block) if "migrate" in line), 0)
        number = start + offset
        yield Finding(
            path,
            number,
            "boot-migrate",
            "the service's command runs migrate every time a container starts: scaled "
            "to N, N replicas race to apply migrations",
            lines[number - 1].strip(),
        )


def _commands(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each ``command:`` value, with the lines indented
    under it (a folded ``>`` scalar, a quoted string over several lines, a list)."""
    for index, line in enumerate(lines):
        match = COMMAND_KEY.match(line)
        if match is None:
            continue
        indent = len(match.group(1))
        block = [match.group(3)]
        for following in lines[index + 1 :]:
            stripped = following.strip()
            if stripped and len(following) - len(following.lstrip()) <= indent:
                break
            block.append(following)
        yield index + 1, block
