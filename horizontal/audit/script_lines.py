"""Lines of scripts and configuration files as their reader takes them: backslash
continuations joined and comments dropped (``logical_lines``), and for a shell script
without string and heredoc bodies or lines that only assign (``shell_lines``). Read by
every rule on non-Python files (``deploy.py``, ``dockerfiles.py``, ``web_servers.py``,
``manifests.py``, ``starts.py``, ``cron_jobs.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.shell_branches import without_string_bodies

__all__ = ["Line", "ini_lines", "logical_lines", "shell_lines"]


class Line(NamedTuple):
    number: int
    text: str
    # The stripped physical lines a continued line joins (``CMD make static \``,
    # ``    && python manage.py migrate \``): where in it a command is.
    parts: tuple[str, ...] = ()


def logical_lines(text: str) -> list[Line]:
    """Lines with backslash continuations joined and comments dropped."""
    lines: list[Line] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending:
            start = number
            # "#" and ";" start comments (shell; ini); ";;" ends a shell case arm.
            comment = stripped.startswith("#") or (
                stripped.startswith(";") and not stripped.startswith(";;")
            )
            if not stripped or comment:
                continue
        pending.append(stripped.rstrip("\\"))
        if not stripped.endswith("\\"):
            lines.append(Line(start, " ".join(pending), tuple(pending)))
            pending = []
    if pending:
        lines.append(Line(start, " ".join(pending), tuple(pending)))
    return lines


def ini_lines(text: str) -> list[Line]:
    """An ini file's logical lines: a value continued on lines indented deeper than its
    key (supervisor's ``command = celery\n    -A app beat``, as configparser reads it)
    joins its key's line; keys indented alike stay apart."""
    raws = text.splitlines()
    lines: list[Line] = []
    for line in logical_lines(text):
        indent = _indent(raws[line.number - 1])
        key = lines[-1] if lines else None
        if key is not None and "=" in key.text and indent > _indent(raws[key.number - 1]):
            joined = f"{key.text} {line.text}"
            lines[-1] = Line(key.number, joined, (*key.parts, *line.parts))
        else:
            lines.append(line)
    return lines


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip(" \t"))


def shell_lines(text: str) -> list[Line]:
    """A shell script's logical lines, without what only prints or names a command: the
    bodies of multi-line strings and of heredocs (``shell_branches.without_string_bodies``)
    and lines that only assign variables (``BEAT_COMMAND='celery-beat'``; an assignment
    that runs a command, ``KEY=$(openssl rand -hex 32)``, is kept)."""
    lines = logical_lines("\n".join(without_string_bodies(text.splitlines())))
    return [line for line in lines if not _only_assigns(line.text)]


# NAME=value [NAME=value …], with export/local/readonly: no command on the line.
ASSIGNMENTS_ONLY = lazy_compile(
    r"^(?:(?:export|local|readonly)\s+)?(?:[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|[^\s'\"]*)\s*)+;?$"
)


def _only_assigns(text: str) -> bool:
    return bool(ASSIGNMENTS_ONLY.match(text)) and "$(" not in text and "`" not in text
