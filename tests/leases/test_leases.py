"""horizontal.leases on each real database (SQLite file, PostgreSQL, MariaDB)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connections, transaction

from horizontal import leases
from horizontal.exceptions import FencedOut, InvalidName, LeaseLost, TransactionRefused
from horizontal.models import Lease as LeaseRow
from tests.support.pgbouncer import PgBouncer, assert_handed_on_clean

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")


def test_acquire_is_exclusive_until_expiry(db_alias: str) -> None:
    first = leases.acquire("report", ttl=0.6, owner="a")
    assert first is not None and first.token == 1
    assert leases.acquire("report", ttl=0.6, owner="b") is None
    time.sleep(0.7)
    second = leases.acquire("report", ttl=0.6, owner="b")
    assert second is not None and second.token == 2
    assert first.renew() is False
    assert not first.valid


def test_release_expires_but_keeps_the_row_so_tokens_keep_rising(db_alias: str) -> None:
    tokens = []
    for _ in range(5):
        lease = leases.acquire("nightly", ttl=30, owner="a")
        assert lease is not None
        tokens.append(lease.token)
        assert lease.release() is True
    assert tokens == [1, 2, 3, 4, 5]
    row = LeaseRow.objects.using(db_alias).get(name="nightly")
    assert row.token == 5


def test_renew_extends_only_for_the_current_holder(db_alias: str) -> None:
    lease = leases.acquire("renewed", ttl=0.8, owner="a")
    assert lease is not None
    for _ in range(3):
        time.sleep(0.4)
        assert lease.renew() is True
    assert leases.acquire("renewed", ttl=0.8, owner="b") is None
    lease.check()


def test_validity_counts_from_the_send_time_of_the_last_renewal(db_alias: str) -> None:
    lease = leases.acquire("deadline", ttl=3, renew_deadline=0.3, owner="a")
    assert lease is not None
    lease.check()
    time.sleep(0.35)
    # The database still has the lease (ttl 3 s) but the holder may not assume so.
    with pytest.raises(LeaseLost):
        lease.check()
    assert lease.renew() is True
    lease.check()


def test_keep_alive_renews_in_the_background(db_alias: str) -> None:
    lease = leases.acquire("kept", ttl=0.9, owner="a")
    assert lease is not None
    with lease.keep_alive():
        time.sleep(1.5)
        lease.check()
        assert leases.acquire("kept", ttl=0.9, owner="b") is None
    lease.release()
    assert leases.acquire("kept", ttl=0.9, owner="b") is not None


def test_fence_writes_for_the_holder_and_refuses_a_stale_token(db_alias: str) -> None:
    LeaseRow.objects.using(db_alias).create(
        name="target",
        owner="-",
        token=0,
        expires_at="2000-01-01T00:00:00Z",
        acquired_at="2000-01-01T00:00:00Z",
    )
    old = leases.acquire("fenced", ttl=0.5, owner="old")
    assert old is not None
    target = LeaseRow.objects.using(db_alias).filter(name="target")
    assert old.fence(target, owner="old") == 1
    time.sleep(0.6)
    new = leases.acquire("fenced", ttl=5, owner="new")
    assert new is not None and new.token == old.token + 1
    # The zombie skips its local check (as a paused process would have) and still loses.
    old.validity.renewed(time.monotonic())
    with pytest.raises(FencedOut):
        old.fence(target, owner="zombie")
    assert new.fence(target, owner="new") == 1
    assert target.get().owner == "new"


def test_lease_statements_refuse_to_run_inside_the_callers_transaction(db_alias: str) -> None:
    with transaction.atomic(using=db_alias), pytest.raises(TransactionRefused):
        leases.acquire("inside", ttl=5)


def test_renew_deadline_must_be_shorter_than_ttl(db_alias: str) -> None:
    with pytest.raises(ValueError):
        leases.acquire("bad", ttl=5, renew_deadline=5)


def test_expiry_uses_the_database_clock_not_the_transaction_start(db_alias: str) -> None:
    # An old transaction on another connection must not make a fresh lease look expired:
    # acquire/renew compute expiry inside their own statement.
    lease = leases.acquire("clock", ttl=1.5, owner="a")
    assert lease is not None
    time.sleep(0.5)
    assert lease.renew()
    with connections[db_alias].cursor() as cursor:
        from horizontal.db import dialect_for

        now = dialect_for(connections[db_alias]).db_now(cursor)
    row = LeaseRow.objects.using(db_alias).get(name="clock")
    assert 1.2 < (row.expires_at - now).total_seconds() <= 1.5


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("nul\x00name", "control character"),  # PostgreSQL: DataError
        ("bad-\udcff", "not UTF-8"),  # non-UTF-8 bytes, as Python decodes them
        ("x" * 201, "at most 200"),  # PostgreSQL, MariaDB: an error; SQLite: stored
        ("", "empty"),
    ],
)
def test_hardening_10_a_name_no_database_stores_is_refused_the_same_everywhere(
    db_alias: str, name: str, reason: str
) -> None:

    with pytest.raises(InvalidName, match=reason):
        leases.acquire(name, ttl=5)
    if name:  # an empty owner means the default, this instance's id
        with pytest.raises(InvalidName, match=reason):
            leases.acquire("fine", ttl=5, owner=name)
    assert not LeaseRow.objects.using(db_alias).exists()
    assert leases.acquire("x" * 200, ttl=5) is not None  # the column's width is allowed


@pytest.mark.parametrize("ttl", [1e12, float("inf"), float("nan"), 0, -1, 1e-6])
def test_hardening_10_a_ttl_out_of_range_is_a_value_error_on_every_vendor(
    db_alias: str, ttl: float
) -> None:
    # 1e12 s: MySQL's datetime overflowed, SQLite stored NULL and the lease looked free.
    with pytest.raises(ValueError, match="ttl must be between"):
        leases.acquire("huge", ttl=ttl)
    assert not LeaseRow.objects.using(db_alias).filter(name="huge").exists()


def test_hardening_20_lease_statements_leave_nothing_on_pooled_server_connections(
    pgbouncer: PgBouncer, settings: Any
) -> None:
    """Acquire, renew, fence, release and a refused acquire through PgBouncer (transaction
    mode): tokens rise as on a direct connection, and every server connection of the pool
    is handed on clean."""
    settings.HORIZONTAL_DATABASE = "pgbouncer"
    LeaseRow.objects.using("pgbouncer").create(
        name="pooled-target",
        owner="-",
        token=0,
        expires_at="2000-01-01T00:00:00Z",
        acquired_at="2000-01-01T00:00:00Z",
    )
    target = LeaseRow.objects.using("pgbouncer").filter(name="pooled-target")
    for expected in range(1, 9):  # more uses than psycopg's default prepare threshold (5)
        lease = leases.acquire("pooled", ttl=30, owner="a")
        assert lease is not None and lease.token == expected
        assert leases.acquire("pooled", ttl=30, owner="b") is None
        assert lease.renew() is True
        with transaction.atomic(using="pgbouncer"):
            assert lease.fence(target, owner=f"a{expected}") == 1
        assert lease.release() is True
    assert_handed_on_clean(pgbouncer)


def test_hardening_20_a_prepare_threshold_prepares_no_lease_statement_django_would_not(
    pgbouncer: PgBouncer, settings: Any
) -> None:
    """OPTIONS ``prepare_threshold`` without ``server_side_binding`` prepares none of
    Django's queries (its cursors bind on the client), so such a project works behind
    PgBouncer 1.18 in transaction mode; horizontal's statements must not prepare either,
    or the next client of the server connection fails on ``_pg3_0 already exists``."""
    settings.HORIZONTAL_DATABASE = "pgbouncer"
    alias = connections["pgbouncer"]
    options = alias.settings_dict["OPTIONS"]
    alias.close()
    options["prepare_threshold"] = 0  # prepare from the first use
    try:
        for expected in range(1, 6):
            lease = leases.acquire("prepared", ttl=30, owner="a")
            assert lease is not None and lease.token == expected
            assert lease.renew() is True
            assert lease.release() is True
            assert LeaseRow.objects.using("pgbouncer").get(name="prepared").token == expected
        assert alias.connection.prepare_threshold == 0  # the setting reached the driver
        assert_handed_on_clean(pgbouncer)
    finally:
        alias.close()
        del options["prepare_threshold"]


def _fenced_target(db_alias: str) -> object:
    """A row in another table for a lease to fence writes to."""
    from horizontal.models import JobRun

    JobRun.objects.using(db_alias).create(
        job="target",
        slot="x",
        status="succeeded",
        owner="-",
        trigger="manual",
        claimed_at="2000-01-01T00:00:00Z",
        heartbeat_at="2000-01-01T00:00:00Z",
        expires_at="2000-01-01T00:00:00Z",
    )
    return JobRun.objects.using(db_alias).filter(job="target")


def test_hardening_05_a_fenced_transaction_blocks_neither_renewals_nor_acquires(
    db_alias: str,
) -> None:
    import threading

    if connections[db_alias].vendor == "sqlite":
        pytest.skip("SQLite's one write lock blocks every other writer (docs/jobs.md)")
    target = _fenced_target(db_alias)
    lease = leases.acquire("long-fence", ttl=1.5, owner="a")
    assert lease is not None
    results: dict[str, object] = {}

    def elsewhere(name: str, call: object) -> None:
        started = time.monotonic()
        try:
            results[name] = call()  # type: ignore[operator]
        finally:
            results[f"{name}_seconds"] = time.monotonic() - started
            connections[db_alias].close()

    with transaction.atomic(using=db_alias):
        assert lease.fence(target, owner="a") == 1  # type: ignore[arg-type]
        # The holder's renewal (its heartbeat's connection) does not wait for the fence.
        renewal = threading.Thread(target=elsewhere, args=("renewed", lease.renew))
        renewal.start()
        renewal.join(10)
        # Past the TTL, the lease expired inside the open transaction, which stays busy (an
        # idle one would be ended by the server after the TTL: hardening_06).
        deadline = time.monotonic() + 1.6
        with connections[db_alias].cursor() as cursor:
            while time.monotonic() < deadline:
                cursor.execute("SELECT 1")
                time.sleep(0.1)
        taker = threading.Thread(
            target=elsewhere,
            args=("taken", lambda: leases.acquire("long-fence", ttl=5, owner="b")),
        )
        taker.start()
        taker.join(10)
    # Not held up by the fence: a renewal that waited for it would give up at the 1 s lock
    # bound, unrenewed. (Its time includes opening the thread's own connection, which
    # took up to 0.6 s on a slow two-core VM while the other suite ran.)
    assert results["renewed"] is True and results["renewed_seconds"] < 1.0, results
    # Locked by the fence: held, answered within the 1 s bound, not after the commit.
    assert results["taken"] is None and results["taken_seconds"] < 1.8, results
    taken = leases.acquire("long-fence", ttl=5, owner="b")
    assert taken is not None and taken.token == lease.token + 1


def _idle_bound(db_alias: str) -> str:
    sql = {
        "postgresql": "SHOW idle_in_transaction_session_timeout",
        "mysql": "SELECT @@session.idle_transaction_timeout",
    }[connections[db_alias].vendor]
    with connections[db_alias].cursor() as cursor:
        cursor.execute(sql)
        return str(cursor.fetchone()[0])


def test_hardening_06_a_fence_bounds_its_transaction_and_leaves_the_session_as_it_was(
    db_alias: str,
) -> None:
    if connections[db_alias].vendor == "sqlite":
        pytest.skip("SQLite has no server to end an idle transaction")
    target = _fenced_target(db_alias)
    lease = leases.acquire("bounded", ttl=7, owner="a")
    assert lease is not None
    before = _idle_bound(db_alias)
    with transaction.atomic(using=db_alias):
        lease.fence(target, owner="a")  # type: ignore[arg-type]
        assert _idle_bound(db_alias) in ("7s", "7"), "the fence bounds an idle transaction"
    assert _idle_bound(db_alias) == before, "left on the session after a commit"
    with pytest.raises(RuntimeError), transaction.atomic(using=db_alias):
        lease.fence(target, owner="a")  # type: ignore[arg-type]
        raise RuntimeError("rolled back")
    assert _idle_bound(db_alias) == before, "left on the session after a rollback"


@pytest.mark.parametrize(
    "name", ["xact:x", "XACT:x", "horizontal:scheduler", "horizontal:migrate", "Horizontal:mine"]
)
def test_hardening_11_reserved_lease_names_are_refused(db_alias: str, name: str) -> None:
    # xact_lock("x") locks the lease row "xact:x" (MySQL/MariaDB, SQLite), and the
    # scheduler and migrate_locked hold "horizontal:…": a user lease so named would
    # exclude them, or be excluded, or bump their tokens.
    with pytest.raises(InvalidName, match="is reserved"):
        leases.acquire(name, ttl=30, owner="user")
    assert not LeaseRow.objects.using(db_alias).filter(name=name).exists()


def test_horizontal_own_leases_are_validated_like_any_other(db_alias: str) -> None:
    # acquire_reserved skips only the reserved-name rule, not the rule every vendor needs.
    with pytest.raises(InvalidName, match="control character"):
        leases.acquire_reserved("horizontal:nul\x00", ttl=30)
    with pytest.raises(ValueError, match="ttl must be between"):
        leases.acquire_reserved("horizontal:huge", ttl=1e12)
    assert not LeaseRow.objects.using(db_alias).exists()


def test_on_sqlite_a_contended_acquire_answers_at_once_and_leaves_the_busy_timeout(
    db_alias: str,
) -> None:
    import sqlite3

    if connections[db_alias].vendor != "sqlite":
        pytest.skip("SQLite's file-wide write lock")
    held = leases.acquire("queue-free", ttl=30, owner="a")
    assert held is not None
    connection = connections[db_alias]
    connection.ensure_connection()
    busy_before = connection.connection.execute("PRAGMA busy_timeout").fetchone()[0]
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the file's write lock
        started = time.monotonic()
        # Held and unexpired: answered by a read, which the writer does not block.
        assert leases.acquire("queue-free", ttl=30, owner="b") is None
        # Free: the write meets the lock and answers "held" instead of queueing.
        assert leases.acquire("free-but-busy", ttl=30, owner="b") is None
        assert time.monotonic() - started < busy_before / 1000 / 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert connection.connection.execute("PRAGMA busy_timeout").fetchone()[0] == busy_before
    taken = leases.acquire("free-but-busy", ttl=30, owner="b")
    assert taken is not None and taken.token == 1
