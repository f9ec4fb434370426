"""settings: the deploy checks' single-instance settings, read statically from source.

``check --deploy`` (horizontal.W0xx) sees the settings of the process it runs in. The audit
reads every settings module in the tree instead, including production modules that CI
never imports, and the implicit defaults a module leaves in place (no ``CACHES`` means
``LocMemCache``). Modules named for development or tests are skipped. Which values are
single-box, and which calls make ``SECRET_KEY`` random, is ``horizontal.audit.known``:
the deploy checks read the same catalogue, and W050 calls ``random_secret_key_sites``.
"""

from __future__ import annotations

import ast
import os
import posixpath
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

from horizontal.audit.findings import Finding, Location
from horizontal.audit.known import (
    CATALOGUE,
    ON_DISK_QUEUES,
    PER_INSTANCE_CALLS,
    RANDOM_VALUE_CALLS,
    SingleBox,
    this_host_addresses,
)
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule, call_name, dotted, last_part, string_value

__all__ = [
    "constant_instance_id_sites",
    "find_settings_problems",
    "is_dev_settings",
    "is_settings_path",
    "looks_like_settings",
    "per_instance_cache_options",
    "per_instance_calls_in",
    "random_secret_key_sites",
    "settings_sources",
    "top_level_settings",
]

SETTINGS_FILE = lazy_compile(r"(^|/)(settings[^/]*|[^/]*_settings|settings/[^/]+)\.py$")
DEV_FILE = lazy_compile(
    r"(^|[/_])(dev|develop|development|local|test|tests|testing|ci|debug|demo|example|sample)"
    r"\w*\.py$"
)
SETTINGS_MARKERS = (
    "INSTALLED_APPS",
    "DATABASES",
    "SECRET_KEY",
    "MIDDLEWARE",
    "ALLOWED_HOSTS",
    "DEFAULT_FILE_STORAGE",
    "STORAGES",
    "CACHES",
)
KNOWN_SETTINGS = (*SETTINGS_MARKERS, "ROOT_URLCONF")

# The catalogue's values, by the string settings write them as.
BACKEND_PROBLEMS: dict[str, SingleBox] = {
    entry.path: entry for entry in (*CATALOGUE, *ON_DISK_QUEUES)
}
LOCAL_STORAGE_CLASS = lazy_compile(r"^[\w.]+\.\w*FileSystemStorage$")
# A project's own subclass, named by convention (app.storage.FileSystemStorage).
LOCAL_STORAGE_SUBCLASS = BACKEND_PROBLEMS["django.core.files.storage.FileSystemStorage"]
# Thumbnail generators' own storage settings (easy-thumbnails, sorl-thumbnail, imagekit).
THUMBNAIL_SETTINGS = ("THUMBNAIL_", "IMAGEKIT_", "VERSATILEIMAGEFIELD_")


def is_settings_path(path: str) -> bool:
    return bool(SETTINGS_FILE.search(path))


def looks_like_settings(text: str) -> bool:
    """A module that assigns two or more core Django settings at column 0, whatever its
    name (``docker/config.py``, ``conf/production.py``)."""
    found = sum(1 for name in SETTINGS_MARKERS if f"\n{name} =" in text or f"\n{name}:" in text)
    return found >= 2


def is_dev_settings(path: str) -> bool:
    return bool(DEV_FILE.search(posixpath.basename(path)))


def top_level_settings(module: PythonModule) -> dict[str, list[ast.stmt]]:
    """UPPERCASE names assigned at import time (including under if/try), with statements."""
    assigned: dict[str, list[ast.stmt]] = {}
    for node in module.nodes(ast.Assign, ast.AnnAssign, ast.AugAssign):
        assert isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        if module.scope(node).function is not None or module.scope(node).cls is not None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            root = target
            while isinstance(root, ast.Subscript | ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id.isupper():
                assigned.setdefault(root.id, []).append(node)
    return assigned


def find_settings_problems(
    modules: list[PythonModule],
    *,
    uses_cache: bool = True,
    local_storages: frozenset[str] = frozenset(),
) -> Iterator[Finding]:
    """Findings for one settings package (or one settings file) read together, the way
    Python runs it: a value a later statement of the same module replaces, or that every
    production module importing this one with ``*`` replaces, is not production's; the
    same problem set in a base and again in the module that imports it is one finding,
    at the importing module (the one that decides), with the base as a related location.

    ``uses_cache``: whether the project's code calls Django's cache at all; without it
    the implicit ``LocMemCache`` default harms nobody. ``local_storages``: dotted paths of
    the project's own ``FileSystemStorage`` subclasses.
    """
    assigned = [(m, top_level_settings(m)) for m in modules]
    assigned = [(m, a) for m, a in assigned if a]
    if not any(k in a for _, a in assigned for k in KNOWN_SETTINGS):
        return  # a file named *settings* that is not a Django settings module
    children = _star_importers(modules)
    production = [m for m, a in assigned if not _is_dev(m, a, children)]
    # What production sees: development and test modules do not count as "set".
    everything: set[str] = set().union(*(a.keys() for m, a in assigned if m in production))
    found: list[Finding] = []
    for module, settings in assigned:
        if module not in production:
            continue
        replaced = _replaced(module, [c for c in children.get(module.path, []) if c in production])
        for finding in _bad_backends(module, local_storages):
            if not replaced(finding.line):
                found.append(finding)
        for finding in (*_services_on_this_host(module), *_sqlite_by_default(module)):
            if not replaced(finding.line):
                found.append(finding)
        for statement in settings.get("SECRET_KEY", []):
            if not replaced(statement.lineno, "SECRET_KEY"):
                found.extend(_generated_secret_key(module, statement))
        for statement in settings.get("CRONJOBS", []):
            found.append(
                _finding(
                    module,
                    statement.lineno,
                    "CRONJOBS (django-crontab) is installed into the crontab of every host that "
                    "runs 'crontab add'",
                    FIXES["CRONJOBS"],
                )
            )
        if not _star_imports(module):  # the value may well come from the imported module
            found.extend(_implicit_defaults(module, settings, everything, uses_cache))
    yield from _one_per_cause(found, children)


def _is_dev(
    module: PythonModule,
    settings: dict[str, list[ast.stmt]],
    children: dict[str, list[PythonModule]],
) -> bool:
    """A development, test or demo module: named so, or setting ``DEBUG = True`` literally
    (unless a production module star-imports it: then it is a base, overridden there)."""
    if is_dev_settings(module.path):
        return True
    debug = [
        s
        for s in module.tree.body
        if isinstance(s, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "DEBUG" for t in s.targets)
    ]
    if not debug or not (
        isinstance(debug[-1].value, ast.Constant) and debug[-1].value.value is True
    ):
        return False
    return not any(not is_dev_settings(child.path) for child in children.get(module.path, []))


def _star_importers(modules: list[PythonModule]) -> dict[str, list[PythonModule]]:
    """For each module's path, the modules of the group that ``from … import *`` it."""
    by_name = {posixpath.basename(m.path)[: -len(".py")]: m for m in modules}
    importers: dict[str, list[PythonModule]] = {}
    for module in modules:
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                name = (node.module or "__init__").rsplit(".", 1)[-1]
                base = by_name.get(name)
                if base is not None and base is not module:
                    importers.setdefault(base.path, []).append(module)
    return importers


KeyPath = tuple[str, ...]


def _target_path(target: ast.AST) -> KeyPath | None:
    keys: list[str] = []
    while isinstance(target, ast.Subscript):
        key = string_value(target.slice)
        if key is None:
            return None
        keys.insert(0, key)
        target = target.value
    if isinstance(target, ast.Name) and target.id.isupper():
        return (target.id, *keys)
    return None


def _unconditional_paths(module: PythonModule) -> list[tuple[int, KeyPath]]:
    """(line, key path) of each assignment at the top of the module, outside any block."""
    found: list[tuple[int, KeyPath]] = []
    for statement in module.tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        for target in targets:
            path = _target_path(target)
            if path is not None:
                found.append((statement.lineno, path))
    return found


def _value_paths(module: PythonModule) -> dict[int, KeyPath]:
    """For each line inside a settings assignment, the key path its value sits under
    (``STORAGES``, ``default``, ``BACKEND``), the innermost dict key that holds it."""
    lines: dict[int, KeyPath] = {}

    def walk(node: ast.AST, path: KeyPath) -> None:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = string_value(key)
                walk(value, (*path, name) if name is not None else path)
            return
        for child in ast.walk(node):
            if hasattr(child, "lineno"):
                lines.setdefault(child.lineno, path)

    for node in module.nodes(ast.Assign, ast.AnnAssign):
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        if module.scope(node).function is not None or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            path = _target_path(target)
            if path is not None:
                walk(node.value, path)
    return lines


def _replaced(module: PythonModule, children: list[PythonModule]) -> Callable[..., bool]:
    """``replaced(line, path=None)``: whether the setting value on ``line`` of ``module``
    is replaced before production reads it: by a later top-level assignment of it (or of a
    dict holding it) in the module, or in every production module that star-imports it."""
    own = _unconditional_paths(module)
    values = _value_paths(module)
    by_children = [_unconditional_paths(child) for child in children]

    def covers(assignment: KeyPath, value: KeyPath) -> bool:
        return value[: len(assignment)] == assignment

    def replaced(line: int, setting: str | None = None) -> bool:
        path = (setting,) if setting else values.get(line)
        if not path:
            return False
        if any(later > line and covers(p, path) for later, p in own):
            return True
        return bool(by_children) and all(
            any(covers(p, path) for _, p in assignments) for assignments in by_children
        )

    return replaced


def _one_per_cause(
    found: list[Finding], children: dict[str, list[PythonModule]]
) -> Iterator[Finding]:
    """One finding per message: the importing module's (which decides), others related."""
    importers = {path: {c.path for c in kids} for path, kids in children.items()}
    groups: dict[str, list[Finding]] = {}
    for finding in found:
        groups.setdefault(finding.message, []).append(finding)
    for group in groups.values():
        if len(group) == 1 or len({f.path for f in group}) == 1:
            yield from group
            continue
        # The finding in a module that no other module of the group imports decides.
        paths = {g.path for g in group}
        deciders = [f for f in group if not importers.get(f.path, set()) & paths]
        primary = (deciders or group)[0]
        related = tuple(Location(f.path, f.line) for f in group if f is not primary)
        yield primary._replace(related=related)


def _bad_backends(
    module: PythonModule, local_storages: frozenset[str] = frozenset()
) -> Iterator[Finding]:
    """Backend strings that only work on one box, wherever the module puts them.

    Settings are often built in helpers (``config = {...}``; ``def setup_database()``)
    or as a default (``os.getenv("DB_ENGINE") or "...sqlite3"``), so the string itself is
    the evidence, not the statement. Comparisons and static-files storage are not.
    """
    ignored = _static_or_compared(module.tree)
    chosen = _explicitly_chosen(module.tree)
    paths = _value_paths(module) if "THUMBNAIL" in module.text or "IMAGEKIT" in module.text else {}
    for node in ast.walk(module.tree):
        text = string_value(node)
        if text is None or id(node) in ignored:
            continue
        match = BACKEND_PROBLEMS.get(text)
        if match is None and (LOCAL_STORAGE_CLASS.search(text) or text in local_storages):
            match = LOCAL_STORAGE_SUBCLASS
        if match is not None and any(word in text for word in chosen.get(id(node), ())):
            continue  # the operator named this backend (``elif scheme == "sqlite":``)
        if match is None:
            continue
        line = getattr(node, "lineno", 1)
        thumbnails = (paths.get(line) or ("",))[0]
        if match is LOCAL_STORAGE_SUBCLASS and thumbnails.startswith(THUMBNAIL_SETTINGS):
            yield _finding(
                module,
                line,
                f"{thumbnails}: thumbnails are generated into this host's disk: other "
                "instances regenerate them or serve 404",
                FIXES["thumbnails"],
            )
            continue
        yield _finding(module, line, f"{match.setting}: {match.why}", FIXES.get(match.setting, ""))


def _explicitly_chosen(tree: ast.AST) -> dict[int, set[str]]:
    """For each node in the body of an ``if``/``elif`` whose test compares a value with
    string literals (``schema == "sqlite"``, ``url.startswith("sqlite")``), those
    literals: a backend they name was asked for by configuration, not a default."""
    chosen: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        words = {
            word
            for child in ast.walk(node.test)
            if isinstance(child, ast.Compare | ast.Call)
            for literal in ast.walk(child)
            if (word := string_value(literal)) and len(word) >= 4
        }
        if not words:
            continue
        for statement in node.body:
            for child in ast.walk(statement):
                chosen.setdefault(id(child), set()).update(words)
    return chosen


# Where settings name a shared service's address (the deploy checks' W004/W026/W048),
# as key paths; "*" is any alias.
SERVICE_ADDRESSES: tuple[tuple[KeyPathPattern, str], ...] = (
    (("CACHES", "*", "LOCATION"), "CACHES"),
    (("CHANNEL_LAYERS", "*", "CONFIG", "hosts"), "CHANNEL_LAYERS"),
    (("CELERY_BROKER_URL",), "CELERY_BROKER_URL"),
    (("BROKER_URL",), "CELERY_BROKER_URL"),
    (("CELERY_RESULT_BACKEND",), "CELERY_RESULT_BACKEND"),
    (("HUEY", "connection"), "HUEY"),
    (("RQ_QUEUES", "*"), "RQ_QUEUES"),
    (("Q_CLUSTER", "redis"), "Q_CLUSTER"),
    # A whole alias built from a URL: env.cache("CACHE_URL", default=…).
    (("CACHES", "*"), "CACHES"),
)
# A top-level setting whose name says it is a shared service's address (REDIS_URL,
# CELERY_BROKER, DB_HOST, MEMCACHED_LOCATION); not EMAIL_HOST, not this site's URL.
SERVICE_SETTING = lazy_compile(
    r"^(?!EMAIL_)([A-Z0-9]+_)*(REDIS|VALKEY|BROKER|AMQP|RABBIT\w*|MEMCACHED?|CELERY|HUEY|"
    r"CACHE|DATABASE|DB|POSTGRES\w*|PG|MYSQL|MARIADB|ELASTICSEARCH|OPENSEARCH|MONGO\w*)"
    r"(_\w+)?_?(HOST|URL|URI|LOCATION|ADDRESS|SERVER|CONNECTION)S?$|^SESSION_REDIS$"
)
# Celery brokers and result stores kept in files on this host.
FILE_TRANSPORTS = ("filesystem://", "sqla+sqlite:", "db+sqlite:", "sqlite:")
BROKER_SETTINGS = ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")


def _services_on_this_host(module: PythonModule) -> Iterator[Finding]:
    """A cache, channel layer or Celery broker/result store addressed as this host
    (``localhost``, loopback, a unix socket), the literal or an environment default."""
    ignored = _static_or_compared(module.tree)
    chosen = _explicitly_chosen(module.tree)
    names = _module_strings(module)
    seen: set[int] = set()
    for node, path in _strings_with_paths(module):
        if id(node) in ignored:
            continue
        setting = _service_setting(path)
        if setting is None:
            continue
        if _database_setting(setting):
            text, line = _address_text(node, names)
            asked_for = any(word in text for word in chosen.get(id(node), ()))
            if text.lower().startswith(SQLITE_URLS) and not asked_for and line not in seen:
                seen.add(line)
                yield _finding(
                    module,
                    line,
                    f"{setting}: {text.split(':', 1)[0]} URL: SQLite is a file on one host: "
                    "each instance would have its own database",
                    FIXES["DATABASES"],
                )
                continue
        if setting == "DATABASES" and string_value(node) is not None:
            # A literal HOST is read as it stands elsewhere (W030 judges the engine); only
            # a default the environment was meant to replace is judged here.
            continue
        text, line = _address_text(node, names)
        if setting in BROKER_SETTINGS and text.lower().startswith(FILE_TRANSPORTS):
            if line not in seen:
                seen.add(line)
                yield _finding(
                    module,
                    line,
                    f"{setting}: {text.split(':', 1)[0]} keeps the queue in a file on this "
                    "host: workers elsewhere never see it",
                    FIXES["this host"],
                )
            continue
        address = next(this_host_addresses(text), None)
        if address is not None and line not in seen:
            seen.add(line)
            yield _finding(
                module,
                line,
                f"{setting}: {address} is this host: each instance talks to its own server",
                FIXES["this host"],
            )


SQLITE_FILE = (".sqlite3", ".sqlite", ".db")
PATH_CALLS = frozenset({"str", "Path", "join", "fspath"})


def _sqlite_by_default(module: PythonModule) -> Iterator[Finding]:
    """``"ENGINE": "django.db.backends." + backend`` with a ``NAME`` whose default is a
    SQLite file (``fallback=DATA_DIR / "db.sqlite3"``): the engine is chosen at run time
    and, unconfigured, it is SQLite. A literal engine is judged as a backend instead."""
    names = _module_strings(module)
    ignored = _static_or_compared(module.tree)
    literal_engines: set[str] = set()
    sqlite_names: list[tuple[str, int]] = []
    for node, path in _strings_with_paths(module):
        if len(path) != 3 or path[0] != "DATABASES" or id(node) in ignored:
            continue
        if path[2] == "ENGINE":
            engine, _ = _address_text(node, names)
            if not engine.endswith(".x"):  # known whole, not "django.db.backends." + name
                literal_engines.add(path[1])
        elif path[2] == "NAME":
            text, line = _address_text(node, names)
            if text.lower().endswith(SQLITE_FILE):
                sqlite_names.append((path[1], line))
    for alias, line in sqlite_names:
        if alias not in literal_engines:
            yield _finding(
                module,
                line,
                "DATABASES: the engine is chosen at run time and its default NAME is a "
                "SQLite file: unconfigured, each instance has its own database",
                FIXES["DATABASES"],
            )


SQLITE_URLS = ("sqlite:", "spatialite:")


def _database_setting(setting: str) -> bool:
    return setting == "DATABASES" or setting.startswith(("DATABASE", "DB_"))


def _service_setting(path: KeyPath) -> str | None:
    for pattern, setting in SERVICE_ADDRESSES:
        if _matches(path, pattern):
            return setting
    if SERVICE_SETTING.match(path[0]) and (
        len(path) == 1 or path[-1].lower() in {"host", "hosts", "url", "location", "address"}
    ):
        return path[0]
    if path[:1] == ("DATABASES",) and (len(path) == 2 or path[2:] == ("HOST",)):
        return "DATABASES"  # a whole alias built from a URL, or its HOST
    return None


def _env_default(node: ast.AST) -> ast.AST | None:
    """The default of ``os.getenv("X", d)``/``env("X", default=d)``/``config(...)``."""
    if not isinstance(node, ast.Call):
        return None
    for keyword_ in node.keywords:
        if keyword_.arg in {"default", "fallback"}:  # environ/decouple; configparser
            return keyword_.value
    # A positional default only where the second argument is one: os.getenv("X", d),
    # os.environ.get("X", d), getattr(settings, "X", d); configparser's get(section,
    # option) takes an option there.
    function = dotted(node.func) or ""
    positional = function.endswith(("getenv", "environ.get")) or function == "getattr"
    if positional and function == "getattr" and len(node.args) >= 3:
        return node.args[2]
    if positional and len(node.args) >= 2 and string_value(node.args[0]) is not None:
        return node.args[1]
    return None


def _module_strings(module: PythonModule) -> dict[str, tuple[str, int]]:
    """Top-level names bound to a string, or to an environment lookup's string default,
    with the line that decides it: ``REDIS_HOST = os.getenv("REDIS_HOST", "localhost")``."""
    names: dict[str, tuple[str, int]] = {}
    for statement in module.tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name):
            continue
        text, line = _address_text(statement.value, names)
        if text and text != "x":
            names[target.id] = (text, line)
    return names


def _address_text(node: ast.AST, names: dict[str, tuple[str, int]]) -> tuple[str, int]:
    """The address ``node`` gives when the environment sets nothing, with the line that
    decides it (the default's own line when it comes from a name bound elsewhere):
    f-strings and ``+`` are joined with unknown pieces as ``x``."""
    line = getattr(node, "lineno", 1)
    text = string_value(node)
    if text is not None:
        return text, line
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    default = _env_default(node)
    if default is not None:
        return _address_text(default, names)
    if isinstance(node, ast.FormattedValue):
        return _address_text(node.value, names)
    parts: list[ast.AST] = []
    separator = ""
    if isinstance(node, ast.JoinedStr):
        parts = list(node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
        parts, separator = [node.left, node.right], "/" if isinstance(node.op, ast.Div) else ""
    elif isinstance(node, ast.Call) and last_part(dotted(node.func)) in PATH_CALLS:
        parts, separator = list(node.args), "/"  # str(DATA_DIR / "db.sqlite3"), join(...)
    if not parts:
        return "x", line
    pieces = [_address_text(part, names) for part in parts]
    joined = separator.join(piece for piece, _ in pieces)
    # The piece that brings this host decides; else the expression's own line.
    for piece, piece_line in pieces:
        if piece.endswith("://"):
            continue  # a bare scheme is no address (redis:// alone would mean localhost)
        if next(this_host_addresses(piece), None) is not None:
            return joined, piece_line
    return joined, line


KeyPathPattern = tuple[str, ...]


def _matches(path: KeyPath, pattern: KeyPathPattern) -> bool:
    return len(path) >= len(pattern) and all(
        want in ("*", have) for want, have in zip(pattern, path, strict=False)
    )


def _strings_with_paths(module: PythonModule) -> Iterator[tuple[ast.AST, KeyPath]]:
    """Each string constant inside a top-level settings assignment, with its key path."""

    def walk(node: ast.AST, path: KeyPath) -> Iterator[tuple[ast.AST, KeyPath]]:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = string_value(key)
                yield from walk(value, (*path, name) if name is not None else path)
            return
        if string_value(node) is not None or isinstance(node, ast.Name):
            yield node, path
            return
        if _env_default(node) is not None:
            yield node, path  # os.getenv("X", default): judged by its default
            return
        if isinstance(node, ast.JoinedStr | ast.BinOp):
            yield node, path  # a string built at run time: judged whole (_address_text)
            return
        for child in ast.iter_child_nodes(node):
            yield from walk(child, path)

    for node in module.nodes(ast.Assign, ast.AnnAssign):
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        if module.scope(node).function is not None or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            path = _target_path(target)
            if path is not None:
                yield from walk(node.value, path)


def _static_or_compared(tree: ast.AST) -> set[int]:
    ignored: set[int] = set()
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            parts = [node]
        elif isinstance(node, ast.If | ast.IfExp) and _is_debug(node.test):
            # Chosen only when DEBUG is on: a development value, not production's.
            parts = list(node.body) if isinstance(node, ast.If) else [node.body]
        elif isinstance(node, ast.Dict):
            parts = [
                v
                for k, v in zip(node.keys, node.values, strict=True)
                if string_value(k) == "staticfiles"
            ]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "STATICFILES_STORAGE" for t in node.targets
        ):
            parts = [node.value]
        for part in parts:
            ignored.update(id(child) for child in ast.walk(part))
    return ignored


def _star_imports(module: PythonModule) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in module.tree.body
    )


def _is_debug(test: ast.AST) -> bool:
    return isinstance(test, ast.Name) and test.id == "DEBUG"


def _random_value_line(
    module: PythonModule,
    statement: ast.AST,
    calls: frozenset[str] = RANDOM_VALUE_CALLS,
    depth: int = 0,
) -> int | None:
    """The line of the first call in ``statement`` that makes a fresh random value,
    following calls to the module's own functions (``SECRET_KEY = _load_or_create()``)
    two levels deep; for such a call, the line of the call in ``statement``."""
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(module, node)
        if name is None and isinstance(node.func, ast.Attribute):
            name = node.func.attr  # random.SystemRandom().choice: the receiver is a call
        if last_part(name) in calls:
            return node.lineno
        if depth < 2 and isinstance(node.func, ast.Name):
            for function in module.functions.get(node.func.id, []):
                if module.scope(function).function is None and _random_value_line(
                    module, function, calls, depth + 1
                ):
                    return node.lineno
    return None


def _first_call(tree: ast.AST, calls: frozenset[str]) -> str | None:
    """The last name of the first call in ``tree`` that is one of ``calls``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            target = node.func
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in calls:
                return str(name)
    return None


def per_instance_calls_in(function: object) -> str | None:
    """The first call in ``function``'s own source whose value differs per instance
    (hostname, pid, random), or None; None too when the source cannot be read."""
    import inspect
    import textwrap

    try:
        source = textwrap.dedent(inspect.getsource(function))  # type: ignore[arg-type]
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    return _first_call(tree, PER_INSTANCE_CALLS)


def _generated_secret_key(module: PythonModule, statement: ast.stmt) -> Iterator[Finding]:
    line = _random_value_line(module, statement)
    if line is not None:
        yield _finding(
            module,
            line,
            "SECRET_KEY is generated at start-up: each instance signs sessions, CSRF and "
            "reset tokens with a different key",
            FIXES["SECRET_KEY"],
        )


# -- the deploy check's view: one imported settings module and what it imports ------------


def settings_sources(module_name: str) -> list[tuple[PythonModule, str]]:
    """The parsed source of the imported settings module ``module_name`` and of every
    module it takes settings from (``from .base import *``, ``from X import NAME``), to
    any depth, each with its module name; the module itself first. Nothing is imported."""
    found: list[tuple[PythonModule, str]] = []
    seen: set[str] = set()
    pending = [module_name]
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        loaded = sys.modules.get(name)
        module = _imported_source(loaded)
        if module is None:
            continue
        found.append((module, name))
        package = getattr(loaded, "__package__", None) or name.rpartition(".")[0]
        pending.extend(_settings_imports(module, package, names=None))
    return found


CACHE_NAMESPACE_OPTIONS = ("KEY_PREFIX", "VERSION", "KEY_FUNCTION")


def per_instance_cache_options(module_name: str) -> dict[tuple[str, str], str]:
    """``{(alias, option): "uuid4()"}`` for each cache ``KEY_PREFIX``/``VERSION`` in the
    settings source whose value comes from a per-instance call, directly or through a
    module-level name; alias ``"*"`` when the dict is not written inside ``CACHES``."""
    found: dict[tuple[str, str], str] = {}
    for module, _name in settings_sources(module_name):
        if "KEY_PREFIX" not in module.text and "VERSION" not in module.text:
            continue
        per_instance_names = _per_instance_names(module)
        parents: dict[int, str] = {}
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    alias = string_value(key)
                    if isinstance(value, ast.Dict) and alias is not None:
                        parents[id(value)] = alias
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    option = string_value(key)
                    if option not in CACHE_NAMESPACE_OPTIONS:
                        continue
                    why = _per_instance_expression(value, per_instance_names)
                    if why is not None:
                        found.setdefault((parents.get(id(node), "*"), option), why)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    keys = _subscript_keys(target)
                    if len(keys) >= 2 and keys[-1] in CACHE_NAMESPACE_OPTIONS:
                        why = _per_instance_expression(node.value, per_instance_names)
                        if why is not None:
                            found.setdefault((keys[-2], keys[-1]), why)
    return found


def _subscript_keys(target: ast.AST) -> list[str]:
    keys: list[str] = []
    while isinstance(target, ast.Subscript):
        key = string_value(target.slice)
        keys.insert(0, key if key is not None else "?")
        target = target.value
    return keys


def _per_instance_names(module: PythonModule) -> dict[str, str]:
    """Module-level names assigned from a per-instance call: ``HOST = socket.gethostname()``."""
    names: dict[str, str] = {}
    for node in module.tree.body:
        if isinstance(node, ast.Assign):
            call = _first_call(node.value, PER_INSTANCE_CALLS)
            if call is not None:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = f"{call}()"
    return names


def _per_instance_expression(value: ast.AST, names: dict[str, str]) -> str | None:
    call = _first_call(value, PER_INSTANCE_CALLS)
    if call is not None:
        return f"{call}()"
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
    return None


def constant_instance_id_sites(module_name: str) -> list[tuple[str, str]]:
    """(``path:line``, the literal) for each ``HORIZONTAL_INSTANCE_ID`` the settings source
    sets to a string constant, or whose environment lookup falls back to one
    (``os.environ.get("POD", "web")``): a value every instance shares."""
    found: list[tuple[str, str]] = []
    for module, _name in settings_sources(module_name):
        for statement in top_level_settings(module).get("HORIZONTAL_INSTANCE_ID", []):
            value = getattr(statement, "value", None)
            if value is None:
                continue
            literal = _constant_text(value)
            if literal is None:
                for node in ast.walk(value):
                    if isinstance(node, ast.Call) and len(node.args) >= 2:
                        literal = _constant_text(node.args[1])
                    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
                        literal = _constant_text(node.values[-1])
                    if literal is not None:
                        break
            if literal is not None:
                found.append((f"{module.path}:{statement.lineno}", literal))
    return found


def _constant_text(node: ast.AST) -> str | None:
    """A string (or number) constant, or an f-string/concatenation of constants only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int) and node.value != "":
        return str(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_text(node.left), _constant_text(node.right)
        return left + right if left is not None and right is not None else None
    return None


def random_secret_key_sites(module_name: str) -> list[str]:
    """``path:line`` of each random ``SECRET_KEY`` in the imported settings module
    ``module_name`` and in the modules it takes its settings from (``from .base import *``,
    ``from X import SECRET_KEY``), followed to any depth.

    The same rule as the audit's (``_random_value_line``), for ``check --deploy``
    (horizontal.W050): it reads the source of modules this process has imported, never
    imports one, and leaves out nothing for looking like development settings, since the
    module being checked is the one deployed.
    """
    return list(_sites(module_name, seen=set()))


def _sites(module_name: str, seen: set[str]) -> Iterator[str]:
    if module_name in seen:
        return
    seen.add(module_name)
    loaded = sys.modules.get(module_name)
    module = _imported_source(loaded)
    if module is None:
        return
    statements = top_level_settings(module).get("SECRET_KEY", [])
    for statement in sorted(statements, key=lambda node: node.lineno):
        line = _random_value_line(module, statement)
        if line is not None:
            yield f"{module.path}:{line}"
    # A package's __init__ is its own package; a plain module's is its parent's.
    package = getattr(loaded, "__package__", None) or module_name.rpartition(".")[0]
    for imported in _settings_imports(module, package, names=("*", "SECRET_KEY")):
        yield from _sites(imported, seen)


def _imported_source(loaded: ModuleType | None) -> PythonModule | None:
    filename = getattr(loaded, "__file__", None)
    if not isinstance(filename, str) or not filename.endswith(".py"):
        return None
    try:
        return _parsed(filename, os.stat(filename).st_mtime)
    except OSError:
        return None


@cache
def _parsed(filename: str, mtime: float) -> PythonModule | None:
    # Keyed by mtime so that an edited module (runserver's reloads) is read again.
    try:
        text = Path(filename).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return PythonModule.parse(filename, text)


def _settings_imports(
    module: PythonModule, package: str, names: tuple[str, ...] | None
) -> Iterator[str]:
    """Modules a settings module pulls settings from: ``*`` or one of ``names`` (any
    UPPERCASE name when ``names`` is None)."""
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if names is None:
            if not any(a.name == "*" or a.name.isupper() for a in node.names):
                continue
        elif not any(alias.name in names for alias in node.names):
            continue
        if node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            yield f"{base}.{node.module}" if node.module else base
        elif node.module:
            yield node.module


def _implicit_defaults(
    module: PythonModule,
    settings: dict[str, list[ast.stmt]],
    everything: set[str],
    uses_cache: bool,
) -> Iterator[Finding]:
    if uses_cache and "INSTALLED_APPS" in settings and "CACHES" not in everything:
        line = settings["INSTALLED_APPS"][0].lineno
        yield _finding(
            module,
            line,
            "CACHES is not set, so Django uses LocMemCache: a per-process cache on every instance",
            FIXES["CACHES"],
        )
    if "MEDIA_ROOT" in settings and not everything & {"STORAGES", "DEFAULT_FILE_STORAGE"}:
        line = settings["MEDIA_ROOT"][0].lineno
        yield _finding(
            module,
            line,
            "MEDIA_ROOT with no STORAGES['default']: uploads go to FileSystemStorage on one "
            "host's disk",
            FIXES["STORAGES['default']"],
        )


def _finding(module: PythonModule, line: int, message: str, fix: str = "") -> Finding:
    return Finding(module.path, line, "settings", message, module.line(line), fix_text=fix)


# The fix for each setting the audit reports, by the name the catalogue gives it.
FIXES: dict[str, str] = {
    "CACHES": "Point CACHES['default'] at the shared Redis (django.core.cache.backends.redis."
    "RedisCache or django-redis) or Memcached; a per-instance alias goes in "
    "HORIZONTAL_LOCAL_CACHES (horizontal.W001-W005).",
    "SESSION_ENGINE": "SESSION_ENGINE = 'horizontal.sessions' (Redis, see docs/sessions.md) or "
    "'django.contrib.sessions.backends.db' (horizontal.W010).",
    "STORAGES['default']": "STORAGES = horizontal.storage.storages_from_env() with "
    "AWS_STORAGE_BUCKET_NAME set, or STORAGES['default'] = {'BACKEND': "
    "'horizontal.storage.S3Storage'} (horizontal.W060).",
    "DATABASES": "Use PostgreSQL or MySQL/MariaDB shared by every instance; make the SQLite "
    "default a development-only branch (horizontal.W030).",
    "CHANNEL_LAYERS": "Use channels_redis.core.RedisChannelLayer on the shared Redis "
    "(horizontal.W040).",
    "TASKS": "Use a worker-backed TASKS backend (e.g. django-tasks-db), or TASKS = {} if "
    "nothing enqueues tasks (horizontal.W041/W042).",
    "INSTALLED_APPS": "Register the work with @job and call 'manage.py runjob NAME' from one "
    "scheduler, or run the scheduler in exactly one process (horizontal.W043/W044).",
    "DJANGO_CRON_LOCK_BACKEND": "Have cron call 'manage.py runjob NAME' (one run per slot) "
    "instead of runcrons (horizontal.W045/W046).",
    "LOGGING": "Log to stdout/stderr (logging.StreamHandler) and let the platform collect "
    "every instance's logs (horizontal.W051).",
    "EMAIL_BACKEND": "Use the SMTP backend or your provider's (horizontal.W052).",
    "SECRET_KEY": "Read SECRET_KEY from the environment or a secret store, the same on every "
    "instance, and fail at start-up when it is missing (horizontal.W050).",
    "this host": "Point it at the server every instance shares; a sidecar proxy on "
    "localhost that forwards to it is the exception (say so with an inline ignore).",
    "HUEY": "Use RedisHuey (or PriorityRedisHuey) on the Redis every instance shares "
    "(horizontal.W048 checks its address).",
    "thumbnails": "Store thumbnails in the shared storage: set the generator's storage "
    "setting to horizontal.storage.S3Storage (or leave it to the default storage).",
    "CRONJOBS": "Register each job with @job and have one scheduler call 'manage.py runjob "
    "NAME' instead of 'crontab add' on every host.",
}
