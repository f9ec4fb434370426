"""``manage.py migrate_locked`` in real processes, on empty and on migrated databases.

What a fleet does when every replica's entrypoint migrates: exactly one process applies
each migration, the others wait for it and find nothing to apply, and every process
exits 0 - on SQLite, PostgreSQL and MariaDB. Its bootstrap of the lease table never
unapplies a later horizontal migration, sends no ``post_migrate`` before the project's
tables exist, and its output is ``migrate``'s.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import horizontal
from tests.support.databases import ScratchDatabase
from tests.support.processes import manage, spawn

pytestmark = pytest.mark.multiprocess

REPLICAS = 4


@pytest.fixture(params=["sqlite", "postgresql", "mysql"])
def empty_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    database = ScratchDatabase(request.param).create(migrate=False)
    yield database
    database.drop()


def test_every_replica_migrates_at_once_and_each_migration_is_applied_once(
    empty_db: ScratchDatabase,
) -> None:
    replicas = [spawn("migrate_locked", "--wait", "120", env=empty_db.env) for _ in range(REPLICAS)]
    outputs = []
    for replica in replicas:
        out, _ = replica.communicate(timeout=180)
        outputs.append(out)
        assert replica.returncode == 0, out
    applied = empty_db.query("SELECT app, name, count(*) FROM django_migrations GROUP BY app, name")
    assert all(count == 1 for _, _, count in applied), applied
    # Every migration the project has is applied: nothing left for a plain migrate.
    check = manage("migrate", "--check", env=empty_db.env, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    # One process applied billing's migrations; the others found nothing to do.
    appliers = [out for out in outputs if "Applying billing.0001" in out]
    assert len(appliers) == 1, outputs
    assert sum("No migrations to apply" in out for out in outputs) == REPLICAS - 1, outputs


def test_a_replica_gives_up_after_wait_while_another_holds_the_lock(
    empty_db: ScratchDatabase,
) -> None:
    manage("migrate_locked", "-v0", env=empty_db.env)
    holder = spawn(
        "shell",
        "-v0",
        "-c",
        "import time; from horizontal import leases; "
        "lease = leases.acquire_reserved('horizontal:migrate', owner='stuck-migrator'); "
        "print('held', flush=True); time.sleep(30)",
        env=empty_db.env,
    )
    try:
        assert holder.stdout is not None and "held" in holder.stdout.readline()
        waiter = manage("migrate_locked", "--wait", "2", env=empty_db.env, check=False)
    finally:
        holder.kill()
        holder.wait()
    assert waiter.returncode == 1
    assert "stuck-migrator" in waiter.stdout and "stuck-migrator" in waiter.stderr


def test_a_killed_migrator_releases_the_lock_within_one_ttl(empty_db: ScratchDatabase) -> None:
    manage("migrate_locked", "-v0", env=empty_db.env)
    env = {**empty_db.env, "HORIZONTAL_LEASE_TTL": "3"}
    holder = spawn(
        "shell",
        "-v0",
        "-c",
        "import time; from horizontal import leases; "
        "lease = leases.acquire_reserved('horizontal:migrate', owner='killed-migrator'); "
        "lease.keep_alive().__enter__(); print('held', flush=True); time.sleep(60)",
        env=env,
    )
    assert holder.stdout is not None and "held" in holder.stdout.readline()
    holder.kill()  # SIGKILL: no release, the heartbeat stops with the process
    holder.wait()
    started = time.monotonic()
    waiter = manage("migrate_locked", "--wait", "30", env=env)
    assert "waiting for killed-migrator" in waiter.stdout
    assert time.monotonic() - started < 3 + 5  # the TTL, a poll, and process start-up


# -- the bootstrap of the lease table --------------------------------------------------

LOCK = "horizontal:migrate"
HORIZONTAL_MIGRATIONS = "SELECT id, name, applied FROM django_migrations WHERE app = 'horizontal'"
INSERT_LEASE = (
    "INSERT INTO horizontal_lease (name, owner, token, expires_at, acquired_at)"
    " VALUES (%s, 'a', %s, '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
)


def test_hardening_04_migrate_locked_leaves_a_later_horizontal_migration_applied(
    empty_db: ScratchDatabase,
) -> None:
    manage("migrate_locked", "-v0", env=empty_db.env)
    recorded = sorted(empty_db.query(HORIZONTAL_MIGRATIONS), key=lambda row: row[1])
    # Every horizontal migration on disk, in order: none unapplied, none left out.
    on_disk = sorted(
        path.stem
        for path in (Path(horizontal.__file__).parent / "migrations").glob(
            "[0-9][0-9][0-9][0-9]_*.py"
        )
    )
    assert on_disk[:3] == ["0001_initial", "0002_exact_text_columns", "0003_fence_keys"]
    assert [name for _, name, _ in recorded] == on_disk
    empty_db.query(INSERT_LEASE, ("Foo", 7))
    empty_db.query(INSERT_LEASE, ("foo", 8))  # two rows only while 0002 holds
    again = manage("migrate_locked", env=empty_db.env)
    assert "Unapplying" not in again.stdout and "Applying" not in again.stdout, again.stdout
    assert "No migrations to apply" in again.stdout
    # The same records (ids and times): 0002 was neither unapplied nor applied again.
    assert sorted(empty_db.query(HORIZONTAL_MIGRATIONS), key=lambda row: row[1]) == recorded
    rows = empty_db.query("SELECT name, token FROM horizontal_lease WHERE name <> %s", (LOCK,))
    assert sorted(rows) == [("Foo", 7), ("foo", 8)]


MIGRATION_OF_LOCK_TABLE = "  Applying horizontal.0001_initial... OK"
BOOTSTRAP_HEADING = "Creating the migration lock's table:"  # the one line horizontal adds
PROJECT_WITH_POST_MIGRATE = {"DJANGO_SETTINGS_MODULE": "tests.leases.default_groups_settings"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def plain_and_locked(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]]:
    """``migrate`` and ``migrate_locked`` of a project with a ``post_migrate`` handler that
    queries auth_group, each on a fresh database of its own."""
    plain_db = ScratchDatabase(request.param, PROJECT_WITH_POST_MIGRATE).create(migrate=False)
    locked_db = ScratchDatabase(request.param, PROJECT_WITH_POST_MIGRATE).create(migrate=False)
    try:
        plain = manage("migrate", env=plain_db.env, check=False)
        locked = manage("migrate_locked", env=locked_db.env, check=False)
        assert locked_db.query("SELECT name FROM auth_group") == [("editors",)]
        yield plain, locked
    finally:
        plain_db.drop()
        locked_db.drop()


def test_hardening_14_a_fresh_database_bootstraps_without_a_false_collision(
    plain_and_locked: tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]],
) -> None:
    plain, locked = plain_and_locked
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert locked.returncode == 0, locked.stdout + locked.stderr
    output = locked.stdout + locked.stderr
    assert "collided" not in output and "retry" not in output, output


def test_hardening_14_migrate_locked_prints_what_migrate_prints(
    plain_and_locked: tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]],
) -> None:
    plain, locked = plain_and_locked
    plain_lines = plain.stdout.splitlines()
    assert MIGRATION_OF_LOCK_TABLE in plain_lines, plain.stdout
    # The lock table's migration comes first, under a heading of its own, because the
    # lock lives in it; every other line is migrate's, in migrate's order.
    expected = [
        BOOTSTRAP_HEADING,
        MIGRATION_OF_LOCK_TABLE,
        *(line for line in plain_lines if line != MIGRATION_OF_LOCK_TABLE),
    ]
    assert locked.stdout.splitlines() == expected


def test_hardening_11_migrate_locked_stops_before_the_next_migration_once_its_lease_is_lost(
    empty_db: ScratchDatabase,
) -> None:
    # The heartbeat could not renew (paused by a failpoint), so the lease expired and
    # another instance could take it, while migrate went on applying migration after
    # migration. Now it stops before the next one and exits non-zero, naming the cause.
    env = {
        **empty_db.env,
        "HORIZONTAL_LEASE_TTL": "1",
        "HORIZONTAL_DEBUG_FAILPOINTS": "1",
        "HORIZONTAL_FAILPOINTS": "before_renew=sleep:6,before_migration=sleep:0.4",
    }
    lost = manage("migrate_locked", env=env, check=False)
    assert lost.returncode == 1, lost.stdout + lost.stderr
    assert "lost horizontal:migrate while migrating" in lost.stderr, lost.stderr
    assert "run migrate_locked again" in lost.stderr
    assert "Traceback" not in lost.stderr
    # It stopped early: migrations are left, and each applied one is recorded once.
    check = manage("migrate", "--check", env=empty_db.env, check=False)
    assert check.returncode != 0, "every migration ran although the lease was lost"
    applied = empty_db.query("SELECT app, name, count(*) FROM django_migrations GROUP BY app, name")
    assert all(count == 1 for _, _, count in applied), applied
    # Recoverable: the next migrate_locked finishes the job.
    manage("migrate_locked", env=empty_db.env)
    assert manage("migrate", "--check", env=empty_db.env, check=False).returncode == 0
