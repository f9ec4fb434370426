"""W109, across modules: a shared service's address whose default a project helper decides.

``'HOST': CONFIG.DB_HOST`` in settings, with ``CONFIG``'s defaults in ``conf.py``
(``{"DB_HOST": "127.0.0.1", …}``), or ``"LOCATION": parse_redis_connection()`` whose
body falls back to ``os.getenv("REDIS_HOST", "localhost")``: the settings module holds no
address, the helper does, and production gets it when nothing is set. Reported where the
default is written, with the settings line that uses it related. Paired once the whole
tree is read (``Scan.finish``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit.env_lookups import env_default
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.prefilter import SQLITE_TABLE_NEEDLES
from horizontal.audit.settings_rules import FIXES
from horizontal.audit.settings_services import SERVICE_SETTING
from horizontal.audit.source import PythonModule, class_paths, dotted, string_value
from horizontal.audit.this_host import this_host_addresses, without_password

__all__ = ["HelperUses", "HostDefault", "helper_findings", "host_defaults", "uses_of_helpers"]

THIS_HOST_NEEDLES = ("localhost", "127.0.0.1", "::1")
# ... and a database helper's table of engines (the prefilter parses such a module too).
HELPER_NEEDLES = (*THIS_HOST_NEEDLES, *SQLITE_TABLE_NEEDLES)
# Names a settings module reads the environment through: not a project helper.
ENVIRONMENT_READERS = frozenset({"os", "environ", "env", "config", "getenv"})


class HostDefault(NamedTuple):
    name: str  # the config key (DB_HOST) or the dotted helper function
    address: str  # the address, or SQLITE for a database helper's SQLite fallback
    at: Location
    source: str


# A database helper whose engine falls back to SQLite (OpenShift's django-ex template:
# ``engine = engines.get(os.getenv("DATABASE_ENGINE"), engines["sqlite"])`` in
# ``database.config()``, which settings call for ``DATABASES["default"]``).
SQLITE = "SQLite"
SQLITE_KEYS = frozenset({"sqlite", "sqlite3"})


class HelperUses(NamedTuple):
    """What settings modules read through helpers: config keys and helper calls."""

    keys: dict[str, Location]
    calls: dict[str, Location]


def may_hold_host_defaults(text: str) -> bool:
    return any(needle in text for needle in HELPER_NEEDLES)


def host_defaults(module: PythonModule) -> Iterator[HostDefault]:
    """Defaults dict entries (``"DB_HOST": "127.0.0.1"``) and helper functions whose env
    lookup falls back to this host, in one module (a module with a ``#!`` line too: what
    settings import from it is what production gets)."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name, text = string_value(key), string_value(value)
                if name and text and SERVICE_SETTING.match(name) and _this_host(text):
                    yield HostDefault(name, text, _at(module, value), module.line(value.lineno))
    for functions in module.functions.values():
        for function in functions:
            fallback = _sqlite_fallback(function)
            if fallback is not None:
                at = _at(module, fallback)
                for name in class_paths(module.path, function.name):
                    yield HostDefault(name, SQLITE, at, module.line(at.line))
                continue
            for node in ast.walk(function):
                default = env_default(node)
                text = string_value(default) if default is not None else None
                if text and _this_host(text) and not _not_a_shared_service(node):
                    at = _at(module, node)
                    for name in class_paths(module.path, function.name):
                        yield HostDefault(name, text, at, module.line(at.line))
                    break


def _sqlite_fallback(function: ast.AST) -> ast.AST | None:
    """In a function that returns a database alias (a dict with an ``"ENGINE"`` key), the
    first place it picks SQLite from its table of engines (``engines["sqlite"]``)."""
    returns_alias = any(
        isinstance(node, ast.Return)
        and isinstance(node.value, ast.Dict)
        and "ENGINE" in {string_value(k) for k in node.value.keys}
        for node in ast.walk(function)
    )
    if not returns_alias:
        return None
    # Only as a default: ``engines.get(os.getenv("DATABASE_ENGINE"), engines["sqlite"])``
    # or ``os.getenv(…) or engines["sqlite"]``; an explicit choice of SQLite is not one.
    defaults: list[ast.AST] = []
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and len(node.args) == 2
        ):
            defaults.append(node.args[1])
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            defaults.append(node.values[-1])
    picks = [
        node
        for node in defaults
        if isinstance(node, ast.Subscript) and string_value(node.slice) in SQLITE_KEYS
    ]
    return min(picks, key=lambda node: getattr(node, "lineno", 0), default=None)


# ``env.str("SENTRY_ENVIRONMENT", default="localhost")``: the name of a deployment a
# report is filed under, not an address.
ENVIRONMENT_NAME = lazy_compile(r"(^|_)ENV(IRONMENT)?(_NAME)?$", re.I)


# ``os.getenv("SMTP_SERVER_HOST", "localhost")``: a mail relay on this host delivers
# what each instance hands it; the settings rules leave ``EMAIL_HOST`` alone too.
MAIL_SERVER = lazy_compile(r"^(EMAIL|SMTP|MAIL)_", re.I)


def _not_a_shared_service(lookup: ast.AST) -> bool:
    """A lookup of an environment's name, or of a mail relay's address: no shared
    service's address."""
    if not isinstance(lookup, ast.Call) or not lookup.args:
        return False
    variable = string_value(lookup.args[0]) or ""
    return bool(ENVIRONMENT_NAME.search(variable) or MAIL_SERVER.search(variable))


def uses_of_helpers(module: PythonModule) -> HelperUses:
    """In a settings module, at import time: ``X.KEY`` / ``X["KEY"]`` of a config object
    (KEY named like a service address) and calls of functions imported from elsewhere."""
    keys: dict[str, Location] = {}
    calls: dict[str, Location] = {}
    relative = _relative_imports(module)
    for statement in module.tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            key = _config_key(node)
            if key and SERVICE_SETTING.match(key):
                keys.setdefault(key, _at(module, node))
            if isinstance(node, ast.Call):
                name = dotted(node.func) or ""
                head, _, rest = name.partition(".")
                qualified = module.qualify(node.func)
                if head in relative:  # never decouple's ``config``: a module of the tree
                    target = f"{relative[head]}.{rest}" if rest else relative[head]
                    calls.setdefault(target, _at(module, node))
                elif head in module.imports and qualified and head not in ENVIRONMENT_READERS:
                    calls.setdefault(qualified, _at(module, node))
    return HelperUses(keys, calls)


def _relative_imports(module: PythonModule) -> dict[str, str]:
    """``from . import database`` in ``backend/app/settings.py``: ``database`` is
    ``backend.app.database``, by the module's own path."""
    found: dict[str, str] = {}
    package = module.path.rsplit("/", 1)[0].replace("/", ".") if "/" in module.path else ""
    depth = len(package.split(".")) if package else 0
    for node in module.tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.level) or node.level - 1 >= depth:
            continue  # (above the tree's top: nothing of it)
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        prefix = ".".join(p for p in (base, node.module or "") if p)
        for alias in node.names:
            if alias.name != "*":
                found[alias.asname or alias.name] = f"{prefix}.{alias.name}".lstrip(".")
    return found


def helper_findings(defaults: list[HostDefault], uses: list[HelperUses]) -> Iterator[Finding]:
    keys: dict[str, Location] = {}
    calls: dict[str, Location] = {}
    for use in uses:
        for name, at in use.keys.items():
            keys.setdefault(name, at)
        for name, at in use.calls.items():
            calls.setdefault(name, at)
    seen: set[tuple[str, int]] = set()
    for default in defaults:
        used_at = keys.get(default.name) or calls.get(default.name)
        place = (default.at.path, default.at.line)
        if used_at is None or place in seen:
            continue
        seen.add(place)
        what = default.name.rsplit(".", 1)[-1]
        if default.address == SQLITE:
            message = (
                f"{what}() falls back to SQLite, the database the settings get from here "
                "when nothing is set: SQLite is a file on one host, each instance its own"
            )
            fix = FIXES["DATABASES"]
        else:
            message = (
                f"{what}: {without_password(default.address)} is this host, the default the "
                "settings get from here: each instance talks to its own server"
            )
            fix = FIXES["this host"]
        yield Finding(
            default.at.path,
            default.at.line,
            "settings",
            message,
            default.source,
            related=(used_at,),
            fix_text=fix,
        )


def _config_key(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr.isupper():
        owner = dotted(node.value) or ""
        if owner.split(".", 1)[0] not in ENVIRONMENT_READERS | {"settings", "self"}:
            return node.attr
    if isinstance(node, ast.Subscript):
        owner = dotted(node.value) or ""
        if owner.split(".")[-1] not in ENVIRONMENT_READERS:
            return string_value(node.slice)
    return None


def _this_host(text: str) -> bool:
    return bool(text.strip()) and any(True for _ in this_host_addresses(text))


def _at(module: PythonModule, node: ast.AST) -> Location:
    return Location(module.path, int(getattr(node, "lineno", 1)))
