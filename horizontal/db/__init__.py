"""The only place that knows a database vendor's SQL, and how to run it safely.

``dialect_for(connection)`` returns the statements for that connection's vendor;
``run_statement`` runs one of them in a transaction of its own, with retries. Every
statement computes and compares time with the database clock *inside the statement*
(``clock_timestamp()``, ``UTC_TIMESTAMP(6)``, SQLite's ``'now'``), never the client's
clock and never PostgreSQL's ``now()`` (the start of the transaction).

``db/`` imports nothing from horizontal above it but ``horizontal.exceptions``.
"""

from __future__ import annotations

from horizontal.db.base import Dialect
from horizontal.db.dialects import dialect_for
from horizontal.db.shared import (
    ROW_LOCK_WAIT,
    Claim,
    ClaimRequest,
    Control,
    Cursor,
    RowLocked,
    UnsupportedDatabase,
    milliseconds,
)
from horizontal.db.statements import db_now, ping, run_statement

__all__ = [
    "ROW_LOCK_WAIT",
    "Claim",
    "ClaimRequest",
    "Control",
    "Cursor",
    "Dialect",
    "RowLocked",
    "UnsupportedDatabase",
    "db_now",
    "dialect_for",
    "milliseconds",
    "ping",
    "run_statement",
]
