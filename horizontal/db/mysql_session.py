"""MySQL/MariaDB session variables that bound a wait or a fenced transaction, put back after.

Both are session-wide on the server, and Django reuses the session: whatever is set here
is put back, so that the next statement of the connection sees the session's own value.

- ``session_lock_wait``: MySQL has no per-statement ``innodb_lock_wait_timeout`` (MariaDB
  has ``SET STATEMENT``, used in ``mysql.py``): set it on the session for one statement.
- ``bound_idle_transaction``: on MariaDB a fence sets ``idle_transaction_timeout`` to the
  grant's TTL, so a holder paused inside its fenced transaction loses its connection, and
  its lock, when its claim runs out; ``_IdleRestore`` puts the previous value back when
  that transaction ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, cast

from django.db import DatabaseError

from horizontal.db.shared import Cursor, scalar

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["bound_idle_transaction", "session_lock_wait"]


@contextmanager
def session_lock_wait(cursor: Cursor, seconds: int) -> Iterator[None]:
    """MySQL: ``innodb_lock_wait_timeout`` is ``seconds`` inside the block, then what it was."""
    cursor.execute(
        "SET @horizontal_lock_wait = @@session.innodb_lock_wait_timeout,"
        " SESSION innodb_lock_wait_timeout = %s",
        [seconds],
    )
    try:
        yield
    finally:
        with suppress(DatabaseError):
            cursor.execute("SET SESSION innodb_lock_wait_timeout = @horizontal_lock_wait", [])


def bound_idle_transaction(cursor: Cursor, connection: BaseDatabaseWrapper, bound_ms: int) -> None:
    """MariaDB: end this connection if its transaction sits idle past ``bound_ms``.

    The variable is session-wide, so the previous value is put back before the next
    statement that runs outside this transaction (an execute wrapper), or at commit.
    MySQL has no such variable: there a paused holder's lock lasts until its
    connection dies (``wait_timeout``); claims still do not wait for it.
    """
    if not cast(Any, connection).mysql_is_mariadb:
        return
    seconds = max(1, math.ceil(bound_ms / 1000))
    restore = getattr(connection, "_horizontal_idle_restore", None)
    if restore is None:
        cursor.execute("SELECT @@session.idle_transaction_timeout", [])
        previous = int(scalar(cursor))
        if 0 < previous <= seconds:
            return  # the session already bounds it as tightly
        restore = _IdleRestore(connection, previous)
        connection._horizontal_idle_restore = restore  # type: ignore[attr-defined]
        connection.execute_wrappers.append(restore.before_statement)
        from django.db import transaction

        transaction.on_commit(restore.now, using=connection.alias, robust=True)
    cursor.execute("SET SESSION idle_transaction_timeout = %s", [seconds])


class _IdleRestore:
    """Puts a MariaDB session's ``idle_transaction_timeout`` back after a fenced transaction.

    Django has no rollback hook, so this also runs as an execute wrapper: before the first
    statement outside the transaction, which is before any later transaction can begin.
    """

    def __init__(self, connection: BaseDatabaseWrapper, previous: int) -> None:
        self.connection = connection
        self.previous = previous
        self.raw = connection.connection  # the session the variable was set on

    def now(self) -> None:
        connection = self.connection
        if getattr(connection, "_horizontal_idle_restore", None) is not self:
            return
        del connection._horizontal_idle_restore  # type: ignore[attr-defined]
        with suppress(ValueError):
            connection.execute_wrappers.remove(self.before_statement)
        if connection.connection is self.raw and self.raw is not None:
            with suppress(Exception), self.raw.cursor() as cursor:
                cursor.execute(f"SET SESSION idle_transaction_timeout = {self.previous:d}")

    def before_statement(
        self,
        execute: Callable[..., Any],
        sql: str,
        params: Any,
        many: bool,
        context: dict[str, Any],
    ) -> Any:
        if not self.connection.in_atomic_block:
            self.now()
        return execute(sql, params, many, context)
