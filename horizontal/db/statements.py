"""How horizontal runs its own statements safely: alone, committed, retried when it may be.

Lease, gate and clock statements all go through ``run_statement``: each commits in a
transaction of its own, is re-run after a deadlock, lock timeout or broken connection,
and refuses to run inside the caller's transaction, or on a connection that Django does
not autocommit (``AUTOCOMMIT: False``), where nothing would ever commit it. A statement
made of several (a lock, then the statement the lock serialises) runs with
``atomic=True``: all of them in one transaction, re-run as a whole.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from collections.abc import Callable
from contextlib import ExitStack, suppress
from typing import TYPE_CHECKING, TypeVar

from django.db import DatabaseError, Error, connections, transaction

from horizontal.db.base import Dialect
from horizontal.db.dialects import dialect_for
from horizontal.db.shared import Cursor
from horizontal.exceptions import TransactionRefused

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["db_now", "ping", "run_statement"]

logger = logging.getLogger("horizontal.db")

T = TypeVar("T")

_RETRIES = 8


def run_statement(
    using: str,
    statement: Callable[[Cursor, Dialect], T],
    *,
    atomic: bool = False,
    after_commit: Callable[[], None] | None = None,
) -> T:
    """Run one lease or gate statement in its own transaction, retrying transient errors.

    Refuses to run inside the caller's transaction: there it would be invisible to other
    instances until the caller commits, and would hold row locks for as long.
    ``atomic``: ``statement`` runs several statements that must share one transaction
    (``BEGIN`` … ``COMMIT``; without it each commits on its own, autocommit).
    ``after_commit`` runs once the statement has committed, before its result is
    returned; a ``DatabaseError`` it raises is handled like one of the statement's own.
    (The gate's failpoint that loses a committed claim's reply: ``db`` cannot import
    ``failpoints``.)
    """
    connection = connections[using]
    if connection.in_atomic_block:
        raise TransactionRefused(
            "horizontal lease and job-gate statements commit on their own and cannot run "
            "inside transaction.atomic() (or ATOMIC_REQUESTS): call this outside the "
            "transaction."
        )
    if not _autocommits(connection):
        # Every statement would open a transaction nothing commits: the lease or claim
        # stays invisible to other instances and vanishes when the connection closes.
        # Committing here would also commit whatever else the caller has pending.
        raise TransactionRefused(
            f"DATABASES[{using!r}] has AUTOCOMMIT = False: horizontal's lease and job-gate "
            "statements must commit on their own. Leave AUTOCOMMIT on (Django's default) "
            "for HORIZONTAL_DATABASE, or point HORIZONTAL_DATABASE at an alias that has it."
        )
    for attempt in range(_RETRIES):
        raw: object = None  # the driver connection this attempt ran on
        try:
            dialect = dialect_for(connection)
            with ExitStack() as stack:
                if atomic:
                    stack.enter_context(transaction.atomic(using=using, durable=True))
                cursor = stack.enter_context(dialect.cursor(connection))
                raw = connection.connection
                result = statement(cursor, dialect)
            if after_commit is not None:
                after_commit()
            return result
        except DatabaseError as exc:
            retryable = dialect_for(connection).is_retryable(exc)
            if connection.connection is None:
                # Closed by the failed rollback of an atomic run: it was broken. (Never
                # connected at all: the server is down, which a retry here will not fix.)
                broken = raw is not None
            elif raw is not None and connection.connection is not raw:
                # The failed rollback closed it, and Django's end of the atomic block
                # (autocommit back on) connected afresh: the one we ran on was broken.
                broken = True
            else:
                broken = not connection.is_usable()
                if broken:
                    # A driver whose socket already died may refuse to close it (PyMySQL:
                    # "Already closed"); Django forgets the connection either way.
                    with suppress(Error):
                        connection.close()
            if attempt + 1 == _RETRIES or not (retryable or broken):
                raise
            logger.info("retrying after %s: %s", type(exc).__name__, exc)
            time.sleep(min(0.5, 0.01 * 2**attempt) * (0.5 + random.random()))
    raise AssertionError("unreachable")


def _autocommits(connection: BaseDatabaseWrapper) -> bool:
    """Django autocommits the connection (read without connecting, if not yet connected)."""
    if connection.connection is not None:
        return bool(connection.autocommit)  # also after transaction.set_autocommit(False)
    return bool(connection.settings_dict.get("AUTOCOMMIT", True))


def db_now(using: str) -> dt.datetime:
    """The database's current instant (UTC): the clock every slot and expiry is read from."""
    return run_statement(using, lambda cursor, dialect: dialect.db_now(cursor))


def ping(using: str) -> None:
    """One round trip to the server behind ``using``, once, without retries.

    For readiness probes: it connects if needed (honouring ``CONN_MAX_AGE`` like the end
    of a request does: a connection that is obsolete or unusable is closed first and
    after), and raises the driver's error as it comes. A broken connection is closed so
    the next ping connects afresh.
    """
    connection = connections[using]
    connection.close_if_unusable_or_obsolete()
    try:
        with connection.cursor() as cursor:
            if connection.vendor in {"postgresql", "mysql", "sqlite"}:
                cursor.execute("SELECT 1")
                cursor.fetchone()
            elif not connection.is_usable():
                raise DatabaseError(f"{connection.vendor} connection is not usable")
    except BaseException:
        with suppress(Exception):
            connection.close()
        raise
    connection.close_if_unusable_or_obsolete()
