"""Text matching for the scanner: regular expressions compiled on first use, not at
import, and ``find_all`` (``str.find`` repeated, cheaper than a regex on whole files).

The scanner loads only when a run needs it (``manage.py audit``, and ``check --deploy``
inside ``check_code``), and most of its patterns serve file kinds (Dockerfiles,
crontabs, Procfiles) that a given run never meets: compiling them up front would be
waste.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any


class LazyPattern:
    """Stands in for ``re.compile(pattern, flags)`` and compiles at the first call."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return getattr(compiled, name)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` deferred until the pattern is first used."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]


def find_all(text: str, needle: str) -> Iterator[int]:
    """Every position of ``needle`` in ``text``."""
    position = text.find(needle)
    while position != -1:
        yield position
        position = text.find(needle, position + 1)
