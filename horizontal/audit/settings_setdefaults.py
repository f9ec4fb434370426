"""Environment defaults a settings module sets before it star-imports its base.

``production.py``: ``os.environ.setdefault("CACHE_DEFAULT", "127.0.0.1:6379/2")`` and then
``from .base import *``, where ``config("CACHE_DEFAULT", default="localhost:6379/0")``
builds ``CACHES``: production's cache is the one the importing module names, decided at
its ``setdefault``. When every production module that imports the base directly sets the
same name first, the base's lookups of it are worth that default (placed at the lookup,
the ``setdefault`` related); a base one production module imports without setting it
keeps its own default.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Mapping, Sequence

from horizontal.audit.env_lookups import env_default
from horizontal.audit.findings import Finding, Location
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.settings_services import this_host_finding
from horizontal.audit.settings_star_imports import star_imported_below
from horizontal.audit.source import PythonModule, dotted, string_value
from horizontal.audit.this_host import this_host_addresses

__all__ = ["apply_env_setdefaults", "setdefaults_on_this_host"]

# A variable named for a service's address: ``CACHE_DEFAULT``, ``CELERY_BROKER_URL``.
SERVICE_VARIABLE = lazy_compile(
    r"CACHE|REDIS|BROKER|CELERY|DB_HOST|DATABASE|AMQP|RABBIT|MEMCACHE|ELASTIC|SEARCH|SOLR"
)

Defaults = dict[str, tuple[ast.expr, int]]  # name: (value, line of the setdefault)


def apply_env_setdefaults(
    modules: Sequence[PythonModule],
    children: Mapping[str, list[PythonModule]],
    production: Sequence[PythonModule],
) -> None:
    """Give each base's environment lookups the defaults its production importers set."""
    for base in modules:
        importers = [
            (module, line)
            for module in children.get(base.path, [])
            if module in production
            for line, imported in star_imported_below(module, modules)
            if imported is base
        ]
        if not importers:
            continue
        given = [_set_before(module, line) for module, line in importers]
        names = set(given[0]).intersection(*given[1:])
        module, _ = importers[0]
        for name in names:
            value, line = given[0][name]
            _default_lookups(base, name, value, (module.path, line))


def _set_before(module: PythonModule, star_line: int) -> Defaults:
    """``os.environ.setdefault("X", value)`` at ``module``'s top level above ``star_line``."""
    found: Defaults = {}
    for statement in module.tree.body:
        if statement.lineno >= star_line:
            break
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and dotted(call.func) in {"os.environ.setdefault", "environ.setdefault"}
            and len(call.args) == 2
            and (name := string_value(call.args[0]))
        ):
            found[name] = (call.args[1], statement.lineno)
    return found


def _default_lookups(
    base: PythonModule, name: str, value: ast.expr, place: tuple[str, int]
) -> None:
    for node in ast.walk(base.tree):
        if not (
            isinstance(node, ast.Call)
            and node.args
            and string_value(node.args[0]) == name
            and env_default(node) is not None
        ):
            continue
        default = ast.copy_location(copy.copy(value), node)
        for keyword in node.keywords:
            if keyword.arg in {"default", "fallback"}:
                keyword.value = default
                break
        else:
            node.args[1] = default  # os.getenv("X", d), env.str("X", d)
        base.declared_defaults[node.lineno] = place


def setdefaults_on_this_host(
    module: PythonModule, group: Sequence[PythonModule]
) -> Iterator[Finding]:
    """``os.environ.setdefault("CACHE_DEFAULT", "127.0.0.1:6379/2")`` above a star import,
    where no module of the group reads the name: the package that does decides nothing
    else, and this host's service is what production gets. A sibling that sets the same
    name to this host and then star-imports this module (``staging.py`` over
    ``production.py``) is the same default copied: related here, not a finding of its own."""
    for name, (address, line) in _this_host_setdefaults(module, group).items():
        if any(
            name in _this_host_setdefaults(imported, group) for imported in _bases(module, group)
        ):
            continue  # the module it star-imports sets it too: judged there
        finding = this_host_finding(module, line, name, address)
        copies = tuple(
            Location(other.path, copied[name][1])
            for other in group
            if module in _bases(other, group)
            and name in (copied := _this_host_setdefaults(other, group))
        )
        yield finding._replace(related=copies) if copies else finding


def _bases(module: PythonModule, group: Sequence[PythonModule]) -> list[PythonModule]:
    return [imported for _, imported in star_imported_below(module, group)]


def _this_host_setdefaults(
    module: PythonModule, group: Sequence[PythonModule]
) -> dict[str, tuple[str, int]]:
    """name: (this host's address, line) of each service ``setdefault`` above the first
    star import that no module of ``group`` reads."""
    star_line = next(
        (
            s.lineno
            for s in module.tree.body
            if isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names)
        ),
        0,
    )
    if not star_line:
        return {}
    found: dict[str, tuple[str, int]] = {}
    for name, (value, line) in _set_before(module, star_line).items():
        if not SERVICE_VARIABLE.search(name) or any(_reads(m, name) for m in group):
            continue  # a module of the tree reads it: judged there (apply_env_setdefaults)
        text = string_value(value) or string_value(env_default(value) or value) or ""
        address = next(this_host_addresses(text), None)
        if address is not None:
            found[name] = (address, line)
    return found


def _reads(module: PythonModule, name: str) -> bool:
    """Whether ``module`` names ``name`` other than to set its default."""
    for quoted in (f'"{name}"', f"'{name}'"):
        for line in module.lines:
            if quoted in line and "setdefault(" not in line:
                return True
    return False
