"""horizontal.leases on each real database (SQLite file, PostgreSQL, MariaDB)."""

from __future__ import annotations

import time

import pytest
from django.db import connections, transaction

from horizontal import leases
from horizontal.exceptions import FencedOut, LeaseLost, TransactionRefused
from horizontal.models import Lease as LeaseRow

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
    "name", ["xact:x", "XACT:x", "horizontal:scheduler", "horizontal:migrate", "Horizontal:mine"]
)
def test_hardening_11_reserved_lease_names_are_refused(db_alias: str, name: str) -> None:
    # xact_lock("x") locks the lease row "xact:x" (MySQL/MariaDB, SQLite), and the
    # scheduler and migrate_locked hold "horizontal:…": a user lease so named would
    # exclude them, or be excluded, or bump their tokens.
    with pytest.raises(ValueError, match="is reserved"):
        leases.acquire(name, ttl=30, owner="user")
    assert not LeaseRow.objects.using(db_alias).filter(name=name).exists()
