"""Which project modules import which: a module that only commands and scripts import runs
only where an operator runs them.

Read from the text of every Python file (a regex over its import statements, no parse),
so modules the prefilter never parses count as importers too. A module Django or a task
runner finds by its name (``views.py``, ``tasks.py``, ``models.py``, ...) may run in
request code without any import, and is never judged command-only.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from horizontal.audit.patterns import lazy_compile

__all__ = ["command_only_modules", "found_by_name", "imported_names"]

# One import statement, matched at the start of its line (found with str.find: a regex
# anchored at every line start of every file costs more than the rest of this module).
IMPORT_FROM = lazy_compile(r"[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")
IMPORT = lazy_compile(r"[ \t]*import[ \t]+([\w.][\w., \t]*)")
# Modules Django, Celery or a plugin system load by name (autodiscovery, a dotted path
# in settings or a URLconf): they may run in request code without an import.
FOUND_BY_NAME = frozenset(
    {
        "views",
        "urls",
        "models",
        "admin",
        "apps",
        "tasks",
        "signals",
        "receivers",
        "handlers",
        "middleware",
        "consumers",
        "routing",
        "api",
        "serializers",
        "forms",
        "wsgi",
        "asgi",
        "celery",
        "jobs",
        "context_processors",
        "schema",
        "hooks",
        "wagtail_hooks",
        "__init__",
    }
)


def _dotted(name: str) -> str:
    return name[: -len(".py")].replace("/", ".")


def imported_names(name: str, text: str) -> set[str]:
    """Dotted names this file imports (``a.b`` and, for ``from a import b``, ``a.b``
    too), relative imports resolved against the file's own package."""
    package = _dotted(name).rsplit(".", 1)[0] if "/" in name else ""
    found: set[str] = set()
    froms: list[re.Match[str]] = []
    plain: list[re.Match[str]] = []
    position = text.find("import")
    last_line = -1
    while position != -1:
        line = text.rfind("\n", 0, position) + 1
        if line != last_line:
            last_line = line
            if (match := IMPORT_FROM.match(text, line)) is not None:
                froms.append(match)
            elif (match := IMPORT.match(text, line)) is not None:
                plain.append(match)
        position = text.find("import", position + 6)
    for match in froms:
        source, names = match.group(1), match.group(2)
        dots = len(source) - len(source.lstrip("."))
        base = source.lstrip(".")
        if dots:
            parts = package.split(".") if package else []
            parent = ".".join(parts[: len(parts) - (dots - 1)]) if dots - 1 <= len(parts) else ""
            base = ".".join(p for p in (parent, base) if p)
        if base:
            found.add(base)
        for imported in names.strip("()").replace("\n", " ").split(","):
            word = imported.split("#", 1)[0].strip().split(" as ", 1)[0].strip()
            if word and word != "*" and word.isidentifier():
                found.add(f"{base}.{word}" if base else word)
    for match in plain:
        for imported in match.group(1).split(","):
            word = imported.strip().split(" as ", 1)[0].strip()
            if word:
                found.add(word)
    return found


def found_by_name(name: str) -> bool:
    """A module Django, Celery or a plugin system loads by its name (never command-only)."""
    return (
        posixpath.basename(name).removesuffix(".py") in FOUND_BY_NAME
        or "/templatetags/" in f"/{name}"
    )


def command_only_modules(imports: dict[str, set[str]], by_hand: Iterable[str]) -> set[str]:
    """Files that some project module imports and that only commands, scripts or other
    such files import (``by_hand``: commands and scripts, by file name)."""
    hand = set(by_hand)
    # A dotted name is matched by its tail: the tree may be scanned from above the
    # import root (``src/argus/...`` imported as ``argus...``).
    # A tail several files share is charged to each of them.
    by_suffix: dict[str, set[str]] = {}
    for name in imports:
        parts = _dotted(name).removesuffix(".__init__").split(".")
        for start in range(len(parts)):
            by_suffix.setdefault(".".join(parts[start:]), set()).add(name)
    importers: dict[str, set[str]] = {}
    for name, targets in imports.items():
        for target in targets:
            for found in by_suffix.get(target, ()):
                if found != name:
                    importers.setdefault(found, set()).add(name)
    candidates = {name for name in importers if name not in hand and not found_by_name(name)}
    only: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name in candidates - only:
            if all(i in hand or i in only for i in importers[name]):
                only.add(name)
                changed = True
    return only
