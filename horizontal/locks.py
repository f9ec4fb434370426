"""Transaction-scoped locks for short critical sections.

``xact_lock`` takes a lock that COMMIT or ROLLBACK releases and nothing else can: a
PostgreSQL advisory *xact* lock, a row lock on MySQL/MariaDB, SQLite's write lock. No
session-level lock is ever taken, so nothing can leak through a pooled or persistent
connection (``CONN_MAX_AGE``, PgBouncer in transaction mode). Long jobs use leases and
fencing instead: holding a transaction open for minutes blocks vacuum and replication.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext

from django.db import DatabaseError, connections, transaction

from horizontal.conf import conf
from horizontal.db import dialect_for
from horizontal.exceptions import InvalidName

__all__ = ["held_lock_count", "xact_lock"]

# Lock names horizontal takes for itself (the job gate's per-job overlap locks): a user
# lock so named would make claims wait on it, or wait on them.
RESERVED_PREFIX = "horizontal:"


@contextmanager
def xact_lock(name: str, *, nowait: bool = False, using: str | None = None) -> Iterator[bool]:
    """Hold the lock ``name`` until the enclosing transaction ends.

    Opens ``transaction.atomic(using)``; inside an outer atomic block it joins it (a
    savepoint), and the lock then lasts until the *outer* transaction ends, which is the
    point. Yields True once locked; with ``nowait=True`` yields False at once when another
    transaction holds it::

        with xact_lock("rebuild-search-index", nowait=True) as locked:
            if not locked:
                return
            rebuild()

    Names starting with ``horizontal:`` are horizontal's own (``InvalidName``).
    """
    if isinstance(name, str) and name.casefold().startswith(RESERVED_PREFIX):
        raise InvalidName(
            f"lock name {name!r} is reserved: names starting with {RESERVED_PREFIX!r} are "
            "horizontal's own (the job gate's locks)"
        )
    using = using or conf.DATABASE
    connection = connections[using]
    dialect = dialect_for(connection)
    with ExitStack() as transaction_scope:
        try:
            with dialect.no_lock_wait(connection) if nowait else nullcontext():
                transaction_scope.enter_context(transaction.atomic(using=using))
                with connection.cursor() as cursor:
                    locked = dialect.xact_lock(cursor, name, nowait)
        except DatabaseError as exc:
            # SQLite in IMMEDIATE mode: the BEGIN itself found the database locked.
            if not (nowait and dialect.is_busy(exc)):
                raise
            locked = False
        yield locked


def held_lock_count(using: str | None = None) -> int:
    """How many transaction-scoped locks other sessions hold right now (leak checks).

    PostgreSQL: exact. MySQL/MariaDB: other sessions' open transactions on this database
    that hold row locks, as InnoDB last reported them (its view may lag by 0.1 s).
    SQLite: always 0, since it cannot see other connections' transactions.
    """
    using = using or conf.DATABASE
    connection = connections[using]
    with connection.cursor() as cursor:
        return dialect_for(connection).held_lock_count(cursor)
