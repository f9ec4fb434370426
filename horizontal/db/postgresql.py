"""PostgreSQL: ``clock_timestamp()`` for time, advisory xact locks for critical sections."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError

from horizontal.db.base import Dialect, lock_key

# deadlock_detected, serialization_failure
_RETRYABLE_SQLSTATES = {"40P01", "40001"}


class PostgreSQLDialect(Dialect):
    vendor = "postgresql"
    # clock_timestamp(), not now(): now() is the start of the transaction, which inside a
    # long transaction (ATOMIC_REQUESTS, a test case) is already in the past.
    NOW = "clock_timestamp()"
    SHARE_LOCK = "FOR SHARE"

    def later(self) -> str:
        return "(clock_timestamp() + %s * interval '1 millisecond')"

    def is_retryable(self, exc: DatabaseError) -> bool:
        return getattr(exc.__cause__, "sqlstate", None) in _RETRYABLE_SQLSTATES

    def xact_lock(self, cursor: Any, name: str, nowait: bool) -> bool:
        fn = "pg_try_advisory_xact_lock" if nowait else "pg_advisory_xact_lock"
        cursor.execute(f"SELECT {fn}(%s)", [lock_key(name)])
        value = cursor.fetchone()[0]
        return True if value is None or value == "" else bool(value)

    def held_lock_count(self, cursor: Any) -> int:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [],
        )
        return int(cursor.fetchone()[0])
