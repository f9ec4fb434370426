"""Project commands that run ``migrate``: started by a replica, they are ``migrate``.

``runner.Scan`` notes each such command as it reads the tree; ``starts.py`` rewrites the
start lines that run one as ``manage.py migrate`` for the start rules of ``deploy.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from horizontal.audit.patterns import lazy_compile

__all__ = ["as_migrate", "migrate_wrapper"]

# A project command that runs migrate (``call_command("migrate")`` or a subclass of
# migrate's Command) and takes no lock: started by every replica, it is migrate.
COMMAND_MODULE = lazy_compile(r"(^|/)management/commands/(?P<command>\w+)\.py$")
RUNS_MIGRATE = lazy_compile(
    r"call_command\(\s*[\"']migrate[\"']|commands\.migrate\s+import\s+Command\b"
)
TAKES_LOCK = lazy_compile(r"lock", re.I)


def migrate_wrapper(path: str, text: str) -> tuple[str, int] | None:
    """The command name and the line that migrates, when ``path`` is a project command
    that migrates with no lock of its own (a migrate override is migrate itself)."""
    command = COMMAND_MODULE.search(path)
    if command is None or command["command"] == "migrate" or "migrate" not in text:
        return None
    migrates = RUNS_MIGRATE.search(text)
    if migrates is None or TAKES_LOCK.search(text):
        return None
    return command["command"], text.count("\n", 0, migrates.start()) + 1


def as_migrate(line: str, commands: Iterable[str]) -> str | None:
    """``line`` with a run of one of ``commands`` (``manage.py post_upgrade``,
    ``nautobot-server post_upgrade``) written as ``manage.py migrate``; None if none runs."""
    rewritten = line
    for command in commands:
        if command in rewritten:
            rewritten = re.sub(rf"\S+(\s+--?\S+)*\s+{command}\b", "manage.py migrate", rewritten)
    return rewritten if rewritten != line else None
