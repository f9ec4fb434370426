"""``manage.py release`` in real processes: four deploy steps at once on an empty database.

Each migration is applied once, each once-per-release hook runs once (the hooks append a
line to a file per run: duplicates would show), every process exits 0 and the late ones
say who ran each hook; a failing hook fails the command and the next ``release`` of the
same id runs it again, once. On SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support.databases import VENDORS, ScratchDatabase
from tests.support.processes import manage, spawn

pytestmark = pytest.mark.multiprocess

REPLICAS = 4
ONCE_HOOKS = ("open_house_account", "announce_release")
PROCESS_HOOK = "warm_account_count"


@pytest.fixture(params=VENDORS)
def empty_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    database = ScratchDatabase(request.param).create(migrate=False)
    yield database
    database.drop()


def hook_runs(log: Path, release: str) -> Counter[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    return Counter(hook for hook, rel, _ in (line.split() for line in lines) if rel == release)


def test_four_releases_at_once_migrate_once_run_each_hook_once_and_a_failed_hook_reruns_once(
    empty_db: ScratchDatabase, tmp_path: Path
) -> None:
    log = tmp_path / "hooks.log"
    env = {**empty_db.env, "RELEASE_HOOK_LOG": str(log), "HORIZONTAL_RELEASE": "r1"}
    started = time.monotonic()
    replicas = [
        spawn("release", env={**env, "HORIZONTAL_INSTANCE_ID": f"deploy-{i}"})
        for i in range(REPLICAS)
    ]
    results = [(replica, *replica.communicate(timeout=180)) for replica in replicas]
    wall = time.monotonic() - started
    codes = [replica.returncode for replica, _, _ in results]
    runs = hook_runs(log, "r1")
    print(
        f"{empty_db.vendor}: {REPLICAS} releases at once in {wall:.1f} s, exit codes {codes}, "
        f"hook runs {dict(runs)}"
    )
    assert codes == [0] * REPLICAS, [out + err for _, out, err in results]
    applied = empty_db.query("SELECT app, name, count(*) FROM django_migrations GROUP BY app, name")
    assert all(count == 1 for _, _, count in applied), applied
    assert {("billing", "0001_initial"), ("horizontal", "0003_fence_keys")} <= {
        (app, name) for app, name, _ in applied
    }
    # One process applied the migrations; the others found nothing left to apply.
    outputs = [out for _, out, _ in results]
    assert sum("Applying billing.0001_initial" in out for out in outputs) == 1, outputs
    assert sum("No migrations to apply" in out for out in outputs) == REPLICAS - 1, outputs
    # Once per release for the fleet; the per-process hook in every process.
    assert runs == {**dict.fromkeys(ONCE_HOOKS, 1), PROCESS_HOOK: REPLICAS}
    rows = empty_db.query(
        "SELECT job, status, token, owner FROM horizontal_jobrun WHERE slot = 'r1' ORDER BY job"
    )
    assert [(job, status, token) for job, status, token, _ in rows] == [
        ("horizontal:release:announce_release", "succeeded", 1),
        ("horizontal:release:open_house_account", "succeeded", 1),
    ]
    assert empty_db.query("SELECT count(*) FROM horizontal_effect") == [(1,)]
    # The late ones say who ran each hook: the instance, the token, when.
    for job, _, _, owner in rows:
        ran_it = [out for _, out, _ in results if f"{job}@r1: succeeded on {owner}" in out]
        told = [out for _, out, _ in results if f"{job}@r1: already succeeded on {owner} at" in out]
        assert len(ran_it) == 1 and len(told) == REPLICAS - 1, [out for _, out, _ in results]
        assert all("(token 1, attempt 1" in out for out in told)

    # A failing hook fails the command and is on record; the next release re-runs it once.
    env2 = {**env, "HORIZONTAL_RELEASE": "r2"}
    failed = manage("release", env={**env2, "RELEASE_HOOK_FAIL": "announce_release"}, check=False)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "announce_release@r2: failed (token 1)" in failed.stderr
    recorded = "SELECT status, token FROM horizontal_jobrun WHERE job = %s AND slot = 'r2'"
    assert empty_db.query(recorded, ("horizontal:release:announce_release",)) == [("failed", 1)]
    rerun = manage("release", env=env2)
    assert "announce_release@r2: succeeded on" in rerun.stdout, rerun.stdout
    assert "open_house_account@r2: already succeeded" in rerun.stdout
    assert empty_db.query(recorded, ("horizontal:release:announce_release",)) == [("succeeded", 2)]
    assert hook_runs(log, "r2") == {
        "open_house_account": 1,
        "announce_release": 2,  # the failed attempt and its one re-run
        PROCESS_HOOK: 1,  # the failed release stopped before it
    }
