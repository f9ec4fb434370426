"""``manage.py runscheduler`` as real processes, outside the chaos suite.

The chaos suite (tests/chaos) runs under one Django version only; these run under every
supported version: two schedulers elect one leader, each slot runs once, and SIGTERM
ends both cleanly with the lease handed back.
"""

from __future__ import annotations

import signal

import pytest

from tests.chaos.harness import CHAOS_ENV, Cluster, as_utc
from tests.support.databases import ScratchDatabase

pytestmark = pytest.mark.multiprocess


@pytest.fixture(params=["sqlite", "postgresql"])
def scheduler_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    database = ScratchDatabase(request.param, extra_env=CHAOS_ENV).create()
    yield database
    database.drop()


def test_two_schedulers_one_leader_each_slot_once(scheduler_db: ScratchDatabase) -> None:
    cluster = Cluster(scheduler_db, workers=2)
    try:
        cluster.wait_for_slots(4, timeout=60)
        leader = cluster.leader()
    finally:
        for worker in cluster.workers:
            worker.process.send_signal(signal.SIGTERM)
        for worker in cluster.workers:
            worker.process.wait(30)
    metrics = cluster.metrics(stuck=0)
    assert (metrics.duplicates, metrics.lost, metrics.token_regressions) == (0, 0, 0)
    assert [w.process.returncode for w in cluster.workers] == [0, 0]
    # Only the leader ran slots, and it handed the lease back on the way out.
    runners = scheduler_db.query("SELECT DISTINCT owner FROM chaos_tickeffect")
    assert runners == [(leader.name,)]
    assert "leader: stepped down (token 1)" in leader.output()
    ((token, expires_at),) = scheduler_db.query(
        "SELECT token, expires_at FROM horizontal_lease WHERE name = 'horizontal:scheduler'"
    )
    assert token == 1
    assert as_utc(expires_at) <= cluster.db_now(), "the lease was not released"
