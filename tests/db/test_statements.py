"""``horizontal.db.statements``: each statement alone in its transaction, retried if it may be."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.db import OperationalError, connections, transaction

from horizontal import db
from horizontal.db import Cursor, Dialect, db_now, run_statement
from horizontal.exceptions import TransactionRefused

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")


def test_db_now_is_the_database_clock_in_utc(db_alias: str) -> None:
    now = db_now(db_alias)
    assert now.tzinfo is not None and now.utcoffset() == dt.timedelta(0)
    # The servers run on this machine: their clock is ours, give or take the round trip.
    assert abs(now.timestamp() - time.time()) < 5


def test_a_statement_inside_the_callers_transaction_is_refused_unrun(db_alias: str) -> None:
    ran: list[str] = []

    def statement(cursor: Cursor, dialect: Dialect) -> None:
        ran.append(dialect.vendor)

    with transaction.atomic(using=db_alias), pytest.raises(TransactionRefused):
        run_statement(db_alias, statement)
    assert ran == []
    run_statement(db_alias, statement)
    assert ran == [connections[db_alias].vendor]


@pytest.mark.parametrize("db_alias", ["default"], indirect=True)
def test_a_retryable_error_is_retried_and_any_other_raised_at_once(db_alias: str) -> None:
    # On SQLite "database is locked" is the retryable error (the busy timeout ran out).
    calls: list[int] = []

    def busy_once(cursor: Cursor, dialect: Dialect) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return "done"

    assert run_statement(db_alias, busy_once) == "done"
    assert len(calls) == 2

    def broken(cursor: Cursor, dialect: Dialect) -> None:
        calls.append(1)
        raise OperationalError("no such table: nowhere")

    calls.clear()
    with pytest.raises(OperationalError, match="no such table"):
        run_statement(db_alias, broken)
    assert len(calls) == 1


def test_the_db_package_re_exports_the_statement_runner() -> None:
    from horizontal.db import statements

    assert db.run_statement is statements.run_statement
    assert db.db_now is statements.db_now


def test_hardening_11_a_connection_without_autocommit_is_refused_not_left_uncommitted(
    db_alias: str,
) -> None:
    # With DATABASES[...]["AUTOCOMMIT"] = False every statement opens a transaction that
    # only an explicit commit ends: a lease taken there was invisible to every other
    # instance, then rolled back when the connection closed. Committing for the caller
    # would commit whatever else it has pending, so the statement is refused instead.
    from horizontal import leases
    from horizontal.models import Lease as LeaseRow

    connection = connections[db_alias]
    connection.close()
    connection.settings_dict["AUTOCOMMIT"] = False
    try:
        with pytest.raises(TransactionRefused, match="AUTOCOMMIT"):
            leases.acquire("autocommit-off", ttl=30, owner="a")
    finally:
        connection.close()
        connection.settings_dict["AUTOCOMMIT"] = True
    # Nothing half-done was left behind, and the lease is free for anyone.
    assert not LeaseRow.objects.using(db_alias).filter(name="autocommit-off").exists()
    lease = leases.acquire("autocommit-off", ttl=30, owner="b")
    assert lease is not None and lease.token == 1


def _kill_session(alias: str) -> None:
    """End the alias's own server session from another connection: a dropped connection."""
    settings = connections[alias].settings_dict
    with connections[alias].cursor() as cursor:
        if connections[alias].vendor == "postgresql":
            cursor.execute("SELECT pg_backend_pid()")
        else:
            cursor.execute("SELECT CONNECTION_ID()")
        session = cursor.fetchone()[0]
    if connections[alias].vendor == "postgresql":
        import psycopg

        with psycopg.connect(
            host=settings["HOST"],
            port=int(settings["PORT"] or 5432),
            user=settings["USER"],
            dbname="postgres",
            autocommit=True,
        ) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", [session])
    else:
        import pymysql

        killer = pymysql.connect(
            host=settings["HOST"], port=int(settings["PORT"] or 3306), user=settings["USER"]
        )
        try:
            killer.cursor().execute(f"KILL {int(session)}")
        finally:
            killer.close()


@pytest.mark.parametrize("atomic", [False, True])
@pytest.mark.parametrize("alias", ["postgresql", "mysql"])
def test_hardening_11_a_connection_lost_inside_an_atomic_statement_is_retried(
    alias: str, atomic: bool
) -> None:
    # Inside atomic=True (every overlap="skip" claim) Django's end of the failed block
    # reconnected at once (set_autocommit(True) after the failed rollback), so the fresh
    # connection looked usable, the loss was not taken for one, and the error was raised.
    calls: list[int] = []

    def dropped_once(cursor: Cursor, dialect: Dialect) -> int:
        calls.append(1)
        if len(calls) == 1:
            _kill_session(alias)
        cursor.execute("SELECT 1", [])
        return len(calls)

    assert run_statement(alias, dropped_once, atomic=atomic) == 2


@pytest.mark.parametrize("db_alias", ["postgresql"], indirect=True)
def test_a_lost_race_for_a_new_leases_first_row_is_read_as_held(db_alias: str) -> None:
    # The race itself is F18's (tests/chaos/test_contention.py): two inserts of a new
    # lease pass ON CONFLICT (name) together, and the second hits the (name, token)
    # index. Here the server raises the same error, on a scratch table whose index has
    # that name, and the dialect must read it as "another acquire won", and no other.
    dialect = db.dialect_for(connections[db_alias])
    errors = {}
    with connections[db_alias].cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE race (name text, token int, other int)")
        cursor.execute("CREATE UNIQUE INDEX horizontal_lease_name_token ON race (name, token)")
        cursor.execute("CREATE UNIQUE INDEX race_other ON race (other)")
        cursor.execute("INSERT INTO race VALUES ('contended', 1, 1)")
        for label, row in {"name_token": "('contended', 1, 2)", "other": "('x', 1, 1)"}.items():
            try:
                with transaction.atomic(using=db_alias):
                    cursor.execute(f"INSERT INTO race VALUES {row}")
            except Exception as exc:  # Django's IntegrityError around psycopg's
                errors[label] = exc
        cursor.execute("DROP TABLE race")
    assert dialect.lost_first_insert(errors["name_token"])
    assert dialect.lost_first_insert(errors["name_token"].__cause__)
    assert not dialect.lost_first_insert(errors["other"])
    assert not dialect.lost_first_insert(OperationalError("server closed the connection"))
