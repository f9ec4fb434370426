"""The only place that knows a database vendor's SQL.

``dialect_for(connection)`` returns the statements for that connection's vendor. Every
statement computes and compares time with the database clock *inside the statement*
(``clock_timestamp()``, ``UTC_TIMESTAMP(6)``, SQLite's ``'now'``), never the client's
clock and never PostgreSQL's ``now()`` (the start of the transaction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from horizontal.db.base import Claim, Dialect, UnsupportedDatabase

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["Claim", "Dialect", "UnsupportedDatabase", "dialect_for"]

_DIALECTS: dict[str, Dialect] = {}


def dialect_for(connection: BaseDatabaseWrapper) -> Dialect:
    vendor = connection.vendor
    dialect = _DIALECTS.get(vendor)
    if dialect is None:
        if vendor == "postgresql":
            from horizontal.db.postgresql import PostgreSQLDialect as cls
        elif vendor == "mysql":
            from horizontal.db.mysql import MySQLDialect as cls  # type: ignore[assignment]
        elif vendor == "sqlite":
            from horizontal.db.sqlite import SQLiteDialect as cls  # type: ignore[assignment]
        else:
            raise UnsupportedDatabase(
                f"horizontal supports PostgreSQL, MySQL/MariaDB and SQLite, not {vendor!r}."
            )
        dialect = _DIALECTS[vendor] = cls()
    return dialect
