"""Which ``Dialect`` a Django connection gets: one shared instance per vendor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from horizontal.db.base import Dialect
from horizontal.db.shared import UnsupportedDatabase

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["dialect_for"]

_DIALECTS: dict[str, Dialect] = {}


def dialect_for(connection: BaseDatabaseWrapper) -> Dialect:
    vendor = connection.vendor
    dialect = _DIALECTS.get(vendor)
    if dialect is None:
        # Imported on first use: a project on one vendor never loads the others' modules.
        cls: type[Dialect]
        if vendor == "postgresql":
            from horizontal.db.postgresql import PostgreSQLDialect as cls
        elif vendor == "mysql":
            from horizontal.db.mysql import MySQLDialect as cls
        elif vendor == "sqlite":
            from horizontal.db.sqlite import SQLiteDialect as cls
        else:
            raise UnsupportedDatabase(
                f"horizontal supports PostgreSQL, MySQL/MariaDB and SQLite, not {vendor!r}."
            )
        dialect = _DIALECTS[vendor] = cls()
    return dialect
