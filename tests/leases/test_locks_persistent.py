"""RELIABILITY F10: persistent connections, 1000 requests, 30% raising inside a lock: K = 0.

Real gunicorn workers of testproject keep their database connections for good
(``CONN_MAX_AGE=None``). Every request takes ``xact_lock`` and bumps a counter; three
requests in ten raise inside the lock. Afterwards no lock is held (K = 0), another
process takes the lock at once, and the counter equals the number of requests that
committed: a raised request released its lock and rolled its write back.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.chaos.harness import CHAOS_ENV
from tests.support.databases import ScratchDatabase
from tests.support.processes import gunicorn_instances, manage

pytestmark = pytest.mark.multiprocess

REQUESTS = 1000
WORKERS_PER_INSTANCE = 2

AFTERWARDS = """
from horizontal.locks import held_lock_count, xact_lock
with xact_lock("f10-counter", nowait=True) as locked:
    print("taken" if locked else "held elsewhere")
print("held", held_lock_count())
"""


@pytest.fixture(params=["sqlite", "postgresql", "mysql", "pgbouncer"])
def persistent_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    vendor = "postgresql" if request.param == "pgbouncer" else request.param
    database = ScratchDatabase(vendor, extra_env=dict(CHAOS_ENV)).create()
    # The processes keep their connections for good; the test's own reads do not.
    # pgbouncer: kept for good to PgBouncer, which pools per transaction behind them.
    url = (
        request.getfixturevalue("pgbouncer").url(database.name)
        if request.param == "pgbouncer"
        else database.url
    )
    database.extra_env["DATABASE_URL"] = url + "?conn_max_age=none"
    database.query(
        "INSERT INTO chaos_sharedcounter (id, value, last_slot, last_token) VALUES (2, 0, '', 0)"
    )
    yield database
    database.drop()


def call(url: str) -> tuple[int, tuple[int, int]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    if status not in (200, 409):
        # Django's debug page: the exception's value is the line worth reporting.
        value = re.search(rb'class="exception_value">([^<]*)', body)
        raise AssertionError(f"{url} answered {status}: {value[1] if value else body[:500]!r}")
    answer = json.loads(body)
    return status, (answer["worker"], answer["connection"])


def test_f10_no_lock_leaks_through_persistent_connections(persistent_db: ScratchDatabase) -> None:
    with gunicorn_instances(2, persistent_db.env, workers=WORKERS_PER_INSTANCE) as instances:
        urls = [
            f"{instances[i % 2].url}/chaos/locked-increment/?fail={int(i % 10 < 3)}"
            for i in range(REQUESTS)
        ]
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(call, urls))
        afterwards = manage("shell", "-c", AFTERWARDS, env=persistent_db.env).stdout
    statuses = [status for status, _ in results]
    assert statuses.count(409) == REQUESTS * 3 // 10
    assert statuses.count(200) == REQUESTS - REQUESTS * 3 // 10
    # The premise: connections persisted (one per worker process, reused by every request).
    connections = {connection for _, connection in results}
    assert len(connections) <= 2 * WORKERS_PER_INSTANCE
    # K = 0: nothing held, and another process takes the lock without waiting.
    assert "taken" in afterwards and "held 0" in afterwards, afterwards
    committed = persistent_db.query("SELECT value FROM chaos_sharedcounter WHERE id = 2")
    assert committed == [(statuses.count(200),)]
