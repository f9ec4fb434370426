"""Deploy checks for databases, ``horizontal.W030``-``W039``, and the connection budget.

- ``W030``: SQLite (by vendor: SpatiaLite and custom SQLite backends count).
- ``W031``/``W032``: connections reused unchecked; no connect timeout.
- ``I033``: a note with the connections the fleet may open (settings only).
- ``W034``/``I035``: that budget against the server's ``max_connections``.
- ``W036``: horizontal's name and key columns compare inexactly (case, accents,
  trailing spaces), as MySQL/MariaDB's default collations do until
  ``horizontal.0002`` has run.

W034, I035 and W036 talk to a server: they are tagged ``database`` and ask only the
aliases Django passes in ``databases`` (``check --deploy --database ALIAS``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags
from django.db import DatabaseError, connections

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import import_class
from horizontal.conf import conf
from horizontal.db import UnsupportedDatabase, dialect_for

__all__ = [
    "I033",
    "I035",
    "KNOWN_ENGINES",
    "W030",
    "W031",
    "W032",
    "W034",
    "W036",
    "Demand",
    "check_connect_timeout",
    "check_connection_budget",
    "check_connection_budget_note",
    "check_exact_text_columns",
    "check_persistent_connections",
    "check_sqlite",
]

KNOWN_ENGINES = {
    **dict.fromkeys(known.paths(known.SQLITE_ENGINES), "sqlite"),
    "django.db.backends.postgresql": "postgresql",
    "django.db.backends.mysql": "mysql",
    "django.contrib.gis.db.backends.postgis": "postgresql",
    "django.contrib.gis.db.backends.mysql": "mysql",
}
# Vendors with no server to reach: SQLite, Django's placeholder for "no DATABASES", and
# backends we could not import.
SERVERLESS_VENDORS = frozenset({"sqlite", "dummy", "unknown"})

# psycopg_pool.ConnectionPool's min_size when Django's OPTIONS["pool"] is True; max_size
# defaults to min_size.
PSYCOPG_POOL_DEFAULT_SIZE = 4


class Demand(NamedTuple):
    """Connections one database alias may need: instances x processes x per process."""

    instances: int | None
    processes: int | None
    per_process: int

    @property
    def total(self) -> int | None:
        if self.instances is None or self.processes is None:
            return None
        return self.instances * self.processes * self.per_process

    @property
    def missing(self) -> list[str]:
        """The settings that would complete the total."""
        names = []
        if self.instances is None:
            names.append("HORIZONTAL_EXPECTED_INSTANCES")
        if self.processes is None:
            names.append("HORIZONTAL_PROCESSES_PER_INSTANCE (or WEB_CONCURRENCY)")
        return names

    def __str__(self) -> str:
        instances = self.instances or "N"
        processes = self.processes or "P"
        formula = f"{instances} instances x {processes} processes x {self.per_process}"
        return formula if self.total is None else f"{formula} = {self.total}"

    def capacity(self, limit: int) -> str:
        """How much of the fleet ``limit`` connections hold."""
        if self.processes is not None:
            per_instance = self.processes * self.per_process
            return f"{limit // per_instance} instances of {per_instance}"
        return f"{limit // self.per_process} processes of {self.per_process}"


# -- messages ----------------------------------------------------------------------------


def W030(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} is SQLite: each instance writes its own file.",
        hint="Use PostgreSQL or MySQL/MariaDB; a shared volume does not make SQLite safe.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W030",
    )


def W031(alias: str, pooled: bool = False) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} reuses connections unchecked: failovers become errors.",
        hint=(
            "Set CONN_HEALTH_CHECKS = True: without it Django's pool lends its connections "
            "unchecked (psycopg_pool's check is off)."
            if pooled
            else "Set CONN_HEALTH_CHECKS = True, or CONN_MAX_AGE = 0."
        ),
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W031",
    )


def W032(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} has no connect timeout: an outage hangs every worker.",
        hint=(
            "Set OPTIONS['connect_timeout'] = 5 (seconds) so requests fail fast; with "
            "DATABASES from a URL (dj-database-url), add ?connect_timeout=5 to it. "
            "PostgreSQL also takes PGCONNECT_TIMEOUT=5 from the environment; MySQL has no "
            "variable, only connect-timeout in the [client] group of an option file named "
            "by OPTIONS['read_default_file']."
        ),
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W032",
    )


def I033(alias: str, demand: Demand) -> checks.Info:
    return checks.Info(
        f"Database {alias!r} may take {demand} connections.",
        hint=(
            "Keep it below the server's max_connections, with room for a rolling deploy; "
            "'check --deploy --database ALIAS' compares it."
            if demand.total is not None
            else f"Set {' and '.join(demand.missing)} to have it compared with max_connections."
        ),
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.I033",
    )


def W034(alias: str, demand: Demand, limit: int) -> checks.Warning:
    return checks.Warning(
        f"Database {alias!r} may take {demand.total} connections; the server allows {limit}.",
        hint="Lower the pool size or processes, raise max_connections, or add PgBouncer.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W034",
    )


def I035(alias: str, demand: Demand, limit: int) -> checks.Info:
    return checks.Info(
        f"Database {alias!r} allows {limit} connections: {demand.capacity(limit)}.",
        hint="Set HORIZONTAL_EXPECTED_INSTANCES to have the whole fleet compared.",
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.I035",
    )


def W036(alias: str, columns: Sequence[tuple[str, str, str]]) -> checks.Warning:
    listed = ", ".join(f"{table}.{column} ({collation})" for table, column, collation in columns)
    return checks.Warning(
        f"Database {alias!r} compares {len(columns)} of horizontal's key columns inexactly.",
        hint=(
            f"{listed} ignore case, accents or trailing spaces, so 'Foo' and 'foo' are one "
            "lease, job, slot or effect key. Run 'manage.py migrate horizontal' (0002 makes "
            "them byte-exact); a collation changed by hand must go back to utf8mb4_nopad_bin "
            "(MariaDB), utf8mb4_0900_bin (MySQL) or a deterministic one (PostgreSQL)."
        ),
        obj=f"DATABASES[{alias!r}]",
        id="horizontal.W036",
    )


# -- reading DATABASES -------------------------------------------------------------------


def _vendor(alias: str) -> str:
    """``sqlite``, ``postgresql``, ``mysql``... from the ENGINE, without a connection."""
    engine = str(settings.DATABASES[alias].get("ENGINE") or "")
    if engine in KNOWN_ENGINES:
        return KNOWN_ENGINES[engine]
    # A custom or GIS backend: its wrapper class knows its vendor (importing opens nothing).
    wrapper = import_class(f"{engine}.base.DatabaseWrapper")
    return str(getattr(wrapper, "vendor", "unknown"))


def _network_databases() -> list[str]:
    """Aliases of databases reached over the network."""
    return [alias for alias in settings.DATABASES if _vendor(alias) not in SERVERLESS_VENDORS]


def _database_options(alias: str) -> Mapping[str, Any]:
    """``DATABASES[alias]["OPTIONS"]``, or an empty mapping when it has none."""
    options = settings.DATABASES[alias].get("OPTIONS") or {}
    return options if isinstance(options, Mapping) else {}


def _positive_number(value: object) -> bool:
    try:
        return float(value) > 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _persists_unchecked(alias: str) -> bool:
    """Connections kept across requests (``CONN_MAX_AGE``) or in Django's pool
    (``OPTIONS["pool"]``), with no check before reuse: Django passes the pool a check
    only when ``CONN_HEALTH_CHECKS`` is on."""
    config = settings.DATABASES[alias]
    if config.get("CONN_HEALTH_CHECKS"):
        return False
    if _pooled(alias):
        return True
    max_age = config.get("CONN_MAX_AGE", 0)
    return max_age is None or _positive_number(max_age)


def _pooled(alias: str) -> bool:
    return bool(_database_options(alias).get("pool"))


def _has_connect_timeout(alias: str) -> bool:
    options = _database_options(alias)
    if _positive_number(options.get("connect_timeout")):
        return True
    # A libpq service file or a MySQL option file may set it where we cannot see.
    if "service" in options or "read_default_file" in options:
        return True
    vendor = _vendor(alias)
    if vendor == "postgresql":
        return _positive_number(os.environ.get("PGCONNECT_TIMEOUT"))
    return vendor not in ("mysql",)


# -- the connection budget ---------------------------------------------------------------


def _connections_per_process(alias: str) -> int:
    """Most connections one process holds to ``alias``: its pool's size, else one."""
    pool = _database_options(alias).get("pool")
    if not pool:
        return 1
    if isinstance(pool, Mapping):
        size = pool.get("max_size") or pool.get("min_size")
        if isinstance(size, int) and size >= 1:
            return size
    return PSYCOPG_POOL_DEFAULT_SIZE


def _count(read: Callable[[], int | None]) -> int | None:
    """A ``horizontal.conf`` count, or ``None`` when it is unusable (E001/E002 say why)."""
    try:
        value = read()
    except (TypeError, ValueError):
        return None
    return value if value is not None and value >= 1 else None


def _demand(alias: str) -> Demand:
    return Demand(
        instances=_count(lambda: conf.EXPECTED_INSTANCES),
        processes=_count(lambda: conf.PROCESSES_PER_INSTANCE),
        per_process=_connections_per_process(alias),
    )


def _server_connection_limit(alias: str) -> int | None:
    """The server's ``max_connections`` for ordinary roles; ``None`` if it cannot say."""
    connection = connections[alias]
    try:
        dialect = dialect_for(connection)
        with connection.cursor() as cursor:
            return dialect.connection_limit(cursor)
    except (DatabaseError, UnsupportedDatabase):
        # An unreachable server is the readiness probe's business, not a check's.
        return None


# -- byte-exact columns -----------------------------------------------------------------


def _exact_text_columns() -> list[tuple[str, str]]:
    """(table, column) of every column horizontal needs to compare byte for byte."""
    # Here, not at the top: importing this module must not need the app registry.
    from horizontal.models import ExactCharField

    return [
        (model._meta.db_table, field.column)
        for model in apps.get_app_config("horizontal").get_models()
        for field in model._meta.concrete_fields
        if isinstance(field, ExactCharField)
    ]


def _inexact_text_columns(alias: str) -> list[tuple[str, str, str]]:
    """Those columns on ``alias`` that do not compare byte for byte, with their collation."""
    connection = connections[alias]
    try:
        dialect = dialect_for(connection)
        with connection.cursor() as cursor:
            return dialect.inexact_text_columns(cursor, _exact_text_columns())
    except (DatabaseError, UnsupportedDatabase):
        return []  # unreachable: the readiness probe's business


# -- checks ------------------------------------------------------------------------------


@register(TAG, deploy=True)
def check_sqlite(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W030(alias) for alias in settings.DATABASES if _vendor(alias) == "sqlite"]


@register(TAG, deploy=True)
def check_persistent_connections(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [
        W031(alias, pooled=_pooled(alias))
        for alias in _network_databases()
        if _persists_unchecked(alias)
    ]


@register(TAG, deploy=True)
def check_connect_timeout(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W032(alias) for alias in _network_databases() if not _has_connect_timeout(alias)]


@register(TAG, deploy=True)
def check_connection_budget_note(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [I033(alias, _demand(alias)) for alias in _network_databases()]


def _server_aliases(databases: Sequence[str] | None) -> list[str]:
    """The aliases ``check --database`` named that are configured server databases: the
    database-tagged checks query only these (SQLite has no server to ask)."""
    return [
        alias
        for alias in databases or ()
        if alias in settings.DATABASES and _vendor(alias) != "sqlite"
    ]


@register(Tags.database, TAG, deploy=True)
def check_connection_budget(
    app_configs: Iterable[AppConfig] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for alias in _server_aliases(databases):
        limit = _server_connection_limit(alias)
        if limit is None:
            continue
        demand = _demand(alias)
        if demand.total is None:
            messages.append(I035(alias, demand, limit))
        elif demand.total > limit:
            messages.append(W034(alias, demand, limit))
    return messages


@register(Tags.database, TAG, deploy=True)
def check_exact_text_columns(
    app_configs: Iterable[AppConfig] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    # SQLite columns are BINARY unless declared otherwise, and Django declares none.
    for alias in _server_aliases(databases):
        columns = _inexact_text_columns(alias)
        if columns:
            messages.append(W036(alias, columns))
    return messages
