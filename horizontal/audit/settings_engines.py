"""``DATABASES`` whose engine is chosen at run time (``"django.db.backends." + name``):
SQLite when its name, or its ``NAME``, defaults to it. Below the settings readers; a
literal engine is judged as a backend by ``settings_rules.bad_backends``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from horizontal.audit.env_lookups import env_default
from horizontal.audit.findings import Finding, Location
from horizontal.audit.settings_branches import static_or_compared
from horizontal.audit.settings_rules import FIXES, SQLITE_FILE, _finding
from horizontal.audit.settings_values import address_text, module_strings, strings_with_paths
from horizontal.audit.source import PythonModule, string_value

__all__ = ["sqlite_by_default"]

# An engine whose dotted path or bare name ends so is SQLite (SpatiaLite its GIS form).
SQLITE_BACKENDS = ("sqlite3", "spatialite")


def sqlite_by_default(module: PythonModule) -> Iterator[Finding]:
    """``"ENGINE": "django.db.backends." + backend`` with a ``NAME`` whose default is a
    SQLite file (``fallback=DATA_DIR / "db.sqlite3"``): the engine is chosen at run time
    and, unconfigured, it is SQLite. A literal engine is judged as a backend instead."""
    names = module_strings(module)
    ignored = static_or_compared(module.tree)
    literal_engines: set[str] = set()
    sqlite_engines: list[tuple[str, int, int]] = []  # alias, decided at, ENGINE's line
    sqlite_names: list[tuple[str, int]] = []
    for node, path in strings_with_paths(module):
        if len(path) != 3 or path[0] != "DATABASES" or id(node) in ignored:
            continue
        if path[2] == "ENGINE":
            engine, line = address_text(node, names)
            # A literal, or an environment default written in place (``env.str(
            # "DB_ENGINE", default="…sqlite3")``), is judged as a backend elsewhere.
            default = env_default(node)
            in_place = string_value(node) or (default is not None and string_value(default))
            # Built at run time: ``"django.db.backends." + name``; a name bound to a whole
            # engine (``"ENGINE": DB_ENGINE``) is judged as a backend too.
            built = not in_place and not isinstance(node, ast.Name | ast.Attribute)
            if built and engine.endswith(SQLITE_BACKENDS):
                # ``"django.db.backends." + db_backend``, its name defaulting to SQLite:
                # decided where the name's default is written.
                decided = [
                    names[n.id][1]
                    for n in ast.walk(node)
                    if isinstance(n, ast.Name)
                    and n.id in names
                    and names[n.id][0].endswith(SQLITE_BACKENDS)
                ]
                sqlite_engines.append((path[1], decided[0] if decided else line, line))
            elif not engine.endswith(".x"):  # known whole, not "django.db.backends." + name
                literal_engines.add(path[1])
        elif path[2] == "NAME":
            text, line = address_text(node, names)
            if text.lower().endswith(SQLITE_FILE):
                sqlite_names.append((path[1], line))
    for _, line, engine_line in sqlite_engines:
        finding = _finding(
            module,
            line,
            "DATABASES: the engine is chosen at run time and defaults to SQLite: "
            "unconfigured, each instance has its own database",
            FIXES["DATABASES"],
        )
        related = (Location(module.path, engine_line),) if engine_line != line else ()
        yield finding._replace(related=related)
    chosen = literal_engines | {alias for alias, _, _ in sqlite_engines}
    for alias, line in sqlite_names:
        if alias not in chosen:
            yield _finding(
                module,
                line,
                "DATABASES: the engine is chosen at run time and its default NAME is a "
                "SQLite file: unconfigured, each instance has its own database",
                FIXES["DATABASES"],
            )
