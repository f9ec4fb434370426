"""horizontal/models.py: names and keys compare byte for byte on every vendor.

Lease names, job names, slots and effect keys that differ only in case, an accent or a
trailing space are different rows. MariaDB's default collation (``utf8mb4_general_ci``,
the server default the ``mysql`` test database is created with) would fold them into
one; ``ExactCharField`` gives those columns a binary NO PAD collation there, and
``horizontal.0002`` gives it to the columns of an existing install.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections, transaction

from horizontal import leases
from horizontal.jobs import Run, job, registry, run_job
from horizontal.jobs.report import OutcomeStatus
from horizontal.models import Effect, JobRun
from tests.support.databases import VENDORS, ScratchDatabase
from tests.support.processes import manage

in_process = pytest.mark.django_db(transaction=True, databases="__all__")

# One spelling and its look-alikes: case, an accent, a trailing space.
LOOK_ALIKES = {
    "lease": ["Foo", "foo", "föo", "foo "],
    "job": ["Export", "export", "éxport"],
    "slot": ["release-A", "release-a", "release-á", "release-a "],
    "effect": ["refund:AbC123", "refund:abc123", "refund:àbc123", "refund:abc123 "],
}
EXACT_COLUMNS = [
    ("horizontal_effect", "key"),
    ("horizontal_jobrun", "job"),
    ("horizontal_jobrun", "slot"),
    ("horizontal_lease", "name"),
]


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


@pytest.fixture
def alias(db_alias: str) -> str:
    """``db_alias``; on MariaDB a database created as a new install's is: server default."""
    if connections[db_alias].vendor == "mysql":
        with connections[db_alias].cursor() as cursor:
            cursor.execute("SELECT @@collation_database, @@collation_server")
            database, server = cursor.fetchone()
        assert database == server
        assert not database.endswith("_bin"), database
    return db_alias


def noop(run: Run) -> None:
    pass


@in_process
def test_hardening_01_leases_differing_in_case_accent_or_trailing_space_do_not_exclude(
    alias: str,
) -> None:
    names = LOOK_ALIKES["lease"]
    taken = [leases.acquire(name, ttl=30, owner=f"owner-{i}") for i, name in enumerate(names)]
    assert [lease.token if lease else None for lease in taken] == [1] * len(names)


@in_process
def test_hardening_01_jobs_differing_in_case_or_accent_have_their_own_gate_rows(
    alias: str,
) -> None:
    names = LOOK_ALIKES["job"]
    for name in names:
        job(name)(noop)
    outcomes = [outcome for name in names for outcome in run_job(name, slot="nightly")]
    assert [o.status for o in outcomes] == [OutcomeStatus.SUCCEEDED] * len(names), outcomes
    rows = JobRun.objects.using(alias).filter(slot="nightly").values_list("job", flat=True)
    assert sorted(rows) == sorted(names)


@in_process
def test_hardening_01_slots_differing_in_case_accent_or_trailing_space_do_not_collide(
    alias: str,
) -> None:
    job("release_hook")(noop)
    slots = LOOK_ALIKES["slot"]
    outcomes = [outcome for slot in slots for outcome in run_job("release_hook", slot=slot)]
    assert [(o.status, o.token) for o in outcomes] == [(OutcomeStatus.SUCCEEDED, 1)] * len(slots)
    rows = JobRun.objects.using(alias).filter(job="release_hook")
    assert sorted(rows.values_list("slot", flat=True)) == sorted(slots)
    assert rows.filter(slot="release-a").count() == 1  # a lookup finds its own row only


@in_process
def test_hardening_01_effect_keys_compare_byte_exactly(alias: str) -> None:
    applied: list[bool] = []

    def refunds(run: Run) -> None:
        for key in LOOK_ALIKES["effect"]:
            with transaction.atomic(using=run.using):
                applied.append(run.effect(key))

    job("refunds")(refunds)
    [outcome] = run_job("refunds", slot="day-1")
    assert outcome.status == OutcomeStatus.SUCCEEDED, outcome
    assert applied == [True] * len(LOOK_ALIKES["effect"])
    keys = Effect.objects.using(alias).values_list("key", flat=True)
    assert sorted(keys) == sorted(LOOK_ALIKES["effect"])


def mysql_collations(database: ScratchDatabase) -> list[str]:
    rows = database.query(
        "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
        " AND (TABLE_NAME, COLUMN_NAME) IN ((%s, %s), (%s, %s), (%s, %s), (%s, %s))"
        " ORDER BY TABLE_NAME, COLUMN_NAME",
        tuple(name for pair in EXACT_COLUMNS for name in pair),
    )
    return [str(collation) for (collation,) in rows]


INSERT_LEASE = (
    "INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)"
    " VALUES (%s, 'a', %s, '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
)


@pytest.mark.multiprocess
@pytest.mark.parametrize("vendor", VENDORS)
def test_hardening_01_the_migration_makes_an_existing_install_exact(vendor: str) -> None:
    # An install from before 0002, on a database with the server's default collation.
    database = ScratchDatabase(vendor).create(migrate=False)
    try:
        manage("migrate", "horizontal", "0001", "-v0", env=database.env)
        database.query(INSERT_LEASE, ("Foo", 7))
        if vendor == "mysql":
            [(default,)] = database.query(
                "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA"
                " WHERE SCHEMA_NAME = DATABASE()"
            )
            assert mysql_collations(database) == [default] * 4
            assert default == "utf8mb4_general_ci"  # MariaDB's default for utf8mb4
            check = manage("check", "--deploy", "--database", "default", env=database.env)
            assert "horizontal.W036" in check.stderr, check.stderr
        manage("migrate", "-v0", env=database.env)
        database.query(INSERT_LEASE, ("foo", 1))
        rows = database.query("SELECT name, token FROM horizontal_lease ORDER BY token")
        assert rows == [("foo", 1), ("Foo", 7)]
        if vendor == "mysql":
            assert mysql_collations(database) == ["utf8mb4_nopad_bin"] * 4
            check = manage("check", "--deploy", "--database", "default", env=database.env)
            assert "horizontal.W036" not in check.stderr, check.stderr
    finally:
        database.drop()


def test_the_json_check_skips_a_database_it_cannot_reach(django_db_blocker: Any) -> None:
    # Django 6.1 runs model checks against every alias; SQLite's JSON support is asked of
    # the file, and a folder that does not exist at check time (CI) made `check` crash.
    from horizontal.models import Instance

    field = Instance._meta.get_field("settings")
    alias = "unreachable_sqlite"
    connections.settings[alias] = {
        **connections.settings["default"],
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": "/nonexistent-folder/analytics.sqlite3",
    }
    try:
        with django_db_blocker.unblock():
            assert field.check(databases=[alias]) == []
            # A database that answers is still checked, and supports JSON.
            assert field.check(databases=["default"]) == []
        # Migrations see Django's own field: no migration for the subclass.
        assert field.deconstruct()[1] == "django.db.models.JSONField"
    finally:
        connections[alias].close()
        del connections.settings[alias]
