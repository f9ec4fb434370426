"""horizontal.fleet: real gunicorn instances record themselves; ``manage.py fleet`` names the drift.

Instances of testproject share one SQLite database and write their registry row every
second (``HORIZONTAL_FLEET_INTERVAL=1``). Different ``SECRET_KEY``s, then different
releases, make ``manage.py fleet`` exit 1 naming the field; the same settings exit 0. A
stopped instance deletes its row; a killed one stops being live after three intervals.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from django.test import override_settings

from horizontal import fleet
from horizontal.conf import conf
from horizontal.models import Instance
from tests.support.databases import ScratchDatabase
from tests.support.processes import Instance as Web
from tests.support.processes import manage, spawn, start_gunicorn


@pytest.fixture
def database(monitoring_db: ScratchDatabase) -> ScratchDatabase:
    return monitoring_db


def web(db: ScratchDatabase, name: str, key: str, release: str) -> Web:
    return start_gunicorn(
        {
            **db.env,
            "HORIZONTAL_INSTANCE_ID": name,
            "HORIZONTAL_FLEET_INTERVAL": "1",
            "DJANGO_SECRET_KEY": key,
            "HORIZONTAL_RELEASE": release,
        }
    )


def registered(db: ScratchDatabase) -> set[str]:
    return {row[0] for row in db.query("SELECT instance_id FROM horizontal_instance")}


def wait_for(db: ScratchDatabase, names: set[str], timeout: float = 10, exact: bool = True) -> None:
    def done() -> bool:
        rows = registered(db)
        return rows == names if exact else names <= rows

    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done(), registered(db)


def fleet_json(db: ScratchDatabase) -> tuple[int, dict[str, object]]:
    done = manage(
        "fleet", "--format", "json", env={**db.env, "HORIZONTAL_FLEET_INTERVAL": "1"}, check=False
    )
    return done.returncode, json.loads(done.stdout)


@pytest.mark.multiprocess
def test_fleet_names_a_secret_key_then_a_release_drift_and_passes_when_all_agree(
    database: ScratchDatabase,
) -> None:
    key_one, key_two = "key-one-" + "x" * 50, "key-two-" + "y" * 50
    fleet_env = {**database.env, "HORIZONTAL_FLEET_INTERVAL": "1"}
    runner = None
    with ThreadPoolExecutor(3) as pool:  # started side by side: each start takes seconds
        a, b, c = pool.map(
            lambda args: web(database, *args),
            [("web-a", key_one, "r1"), ("web-b", key_one, "r1"), ("web-c", key_two, "r1")],
        )
    try:
        # Another SECRET_KEY: named, with who has which (a keyed hash, never the key).
        wait_for(database, {"web-a", "web-b", "web-c"})
        done = manage("fleet", env=fleet_env, check=False)
        print(done.stdout, done.stderr)
        assert done.returncode == 1
        assert re.search(
            r"^drift: secret_key differs: \w+ on web-a, web-b; \w+ on web-c$", done.stderr, re.M
        )
        assert "release" not in done.stderr
        assert "key-one" not in done.stdout + done.stderr
        assert "key-two" not in done.stdout + done.stderr
        assert "3 live instance(s)" in done.stdout

        # web-c killed (master, then its worker): its row stops counting after three
        # intervals. Meanwhile a runjob of another release records itself.
        pid = database.query("SELECT pid FROM horizontal_instance WHERE instance_id = 'web-c'")[0][
            0
        ]
        c.stop(signal.SIGKILL)
        os.kill(int(pid), signal.SIGKILL)
        killed_at = time.monotonic()
        runner = spawn(
            "runjob",
            "probe_ok",
            "--slot",
            "2026-01-01T00:00:00Z",
            env={
                **fleet_env,
                "HORIZONTAL_INSTANCE_ID": "runjob-r2",
                "HORIZONTAL_MONITORING_DEMO": "1",
                "MONITORING_JOB_SECONDS": "60",
                "DJANGO_SECRET_KEY": key_one,
                "HORIZONTAL_RELEASE": "r2",
            },
        )
        # (Its first write deletes web-c's row if web-c is stale by then.)
        wait_for(database, {"web-a", "web-b", "runjob-r2"}, exact=False)
        time.sleep(max(0.0, killed_at + fleet.STALE_AFTER_INTERVALS * 1 + 0.5 - time.monotonic()))
        code, report = fleet_json(database)
        assert code == 1
        live = {row["instance"]: row for row in report["instances"]}  # type: ignore[attr-defined]
        assert {name: row["kind"] for name, row in live.items()} == {
            "web-a": "web", "web-b": "web", "runjob-r2": "runjob"
        }  # fmt: skip
        assert live["web-a"]["release"] == "r1"
        assert live["web-a"]["versions"]["horizontal"] == "0.1.0.dev0"
        assert report["drift"] == [
            {"field": "release", "values": {"r1": ["web-a", "web-b"], "r2": ["runjob-r2"]}}
        ]

        # The runjob stopped (SIGTERM: it hands its claim back and exits): its row goes
        # at once. Two instances with the same settings: exit 0.
        runner.send_signal(signal.SIGTERM)
        runner.communicate(timeout=30)
        assert "runjob-r2" not in registered(database)
        code, report = fleet_json(database)
        assert (code, report["drift"]) == (0, []), report
        assert sorted(row["instance"] for row in report["instances"]) == ["web-a", "web-b"]  # type: ignore[attr-defined]
    finally:
        if runner is not None and runner.poll() is None:
            runner.kill()
            runner.communicate()
        for instance in (a, b, c):
            instance.stop()


@pytest.mark.django_db
def test_one_write_per_interval_is_one_update_and_the_first_also_prunes_the_stale() -> None:
    alias = conf.DATABASE
    Instance.objects.using(alias).all().delete()
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connections[alias]) as first:
        assert fleet.record("test", interval=1) is True
    with CaptureQueriesContext(connections[alias]) as refresh:
        assert fleet.record("test", interval=1) is False
    print(f"first write: {len(first)} statements; each refresh: {len(refresh)}")
    assert len(refresh) == 1 and refresh[0]["sql"].upper().startswith("UPDATE")
    # First: the UPDATE that found nothing, the prune (one DELETE of the stale rows),
    # the INSERT.
    assert first[0]["sql"].upper().startswith("UPDATE")
    assert first[-1]["sql"].upper().startswith("INSERT")
    assert len(first) <= 4


def test_the_fingerprint_keys_the_secret_and_drops_credentials() -> None:
    with override_settings(
        SECRET_KEY="s" * 60,
        CACHES={
            "default": {
                "BACKEND": "django_redis.cache.RedisCache",
                "LOCATION": "redis://user:hunter2@cache.example:6380/1",
            }
        },
    ):
        one = fleet.settings_fingerprint()
    with override_settings(SECRET_KEY="t" * 60):
        other = fleet.settings_fingerprint()
    assert one["secret_key"] != other["secret_key"] and len(one["secret_key"]) == 16
    assert "s" * 10 not in json.dumps(one)
    assert json.loads(one["caches"]) == {"default": "RedisCache redis://cache.example:6380/1"}
    assert "hunter2" not in json.dumps(one)


@pytest.mark.django_db
def test_the_admin_lists_the_fleet_read_only_and_warns_of_drift(admin_client) -> None:  # type: ignore[no-untyped-def]
    alias = conf.DATABASE
    Instance.objects.using(alias).all().delete()
    with override_settings(HORIZONTAL_RELEASE="r1"):
        fleet.record("web", interval=30)
    other = Instance.objects.using(alias).get()
    other.pk, other.settings = "web-other", {**other.settings, "release": "r2"}
    other.save(using=alias)
    response = admin_client.get("/admin/horizontal/instance/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "web-other" in text
    assert "Release differs: r1 on " in text and "r2 on web-other" in text  # capfirst
    assert admin_client.get("/admin/horizontal/instance/add/").status_code == 403


@pytest.mark.multiprocess
def test_release_records_itself_while_it_runs_and_leaves_when_done(
    database: ScratchDatabase,
) -> None:
    release = f"fleet-{os.getpid()}-{time.monotonic_ns()}"
    deploy = spawn(
        "release",
        "--skip-migrate",
        env={
            **database.env,
            "HORIZONTAL_INSTANCE_ID": "deploy-1",
            "HORIZONTAL_FLEET_INTERVAL": "1",
            "HORIZONTAL_RELEASE": release,
            # Each once-per-release hook waits after its claim: the release is seen running.
            "HORIZONTAL_DEBUG_FAILPOINTS": "1",
            "HORIZONTAL_FAILPOINTS": "after_claim=sleep:2",
        },
    )
    try:
        wait_for(database, {"deploy-1"}, timeout=30, exact=False)
        [(kind, seen_release)] = database.query(
            "SELECT kind, release FROM horizontal_instance WHERE instance_id = 'deploy-1'"
        )
        assert (kind, seen_release) == ("release", release)
        out, err = deploy.communicate(timeout=120)
    finally:
        if deploy.poll() is None:
            deploy.kill()
            deploy.communicate()
    assert deploy.returncode == 0, out + err
    assert f"release {release}: " in out and " hook(s) done" in out, out
    assert "deploy-1" not in registered(database)  # a normal exit deletes its own row
