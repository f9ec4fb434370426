"""``manage.py migrate_locked`` from four real processes at once on an empty database.

What a fleet does when every replica's entrypoint migrates: exactly one process applies
each migration, the others wait for it and find nothing to apply, and every process
exits 0 - on SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import time

import pytest

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
        "lease = leases.acquire('horizontal:migrate', owner='stuck-migrator'); "
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
        "lease = leases.acquire('horizontal:migrate', owner='killed-migrator'); "
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
