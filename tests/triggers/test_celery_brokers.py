"""T1 of RELIABILITY.md: two Celery beats and three workers, on Redis and on RabbitMQ.

Real ``celery beat`` and ``celery worker`` processes (solo pool, so SIGKILL takes the
whole worker) on the machine's brokers, against a scratch PostgreSQL database. Both beats
send four entries every second: ``horizontal.run_job`` for the jobs ``celery_fast``
(every second) and ``celery_slow`` (every 4 s, a 2.5 s body), and the plain periodic tasks
``triggers.plain_tick`` under ``@once_per_slot(every=1)`` and ``triggers.plain_slow``
under ``@once_per_slot(every=4)`` (a 2.5 s body). One worker is killed with SIGKILL inside
a ``celery_slow`` body, then another inside a ``plain_slow`` body (each replaced). The
checker then reads the effect table (no unique constraint): one body per slot, no tick
lost between the first and the last, and each killed slot finished once, after its TTL,
with token 2.

Short by default (``TRIGGERS_RUN_SECONDS``, 12 s of sending per broker); the long run is
``TRIGGERS_RUN_SECONDS=300 python -m pytest tests/triggers/test_celery_brokers.py -s``.
Marked ``brokers``: it runs on Django 5.2 only (the Makefile's 6.1 target leaves it out).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from tests.support.databases import ScratchDatabase
from tests.triggers.harness import (
    RUN_SECONDS,
    TTL,
    figures,
    kill_mid_job,
    killed_slot,
    start,
    stop,
    wait_for,
)

# The suite's 300 s per test would stop the long run (TRIGGERS_RUN_SECONDS=300) midway.
pytestmark = [
    pytest.mark.multiprocess,
    pytest.mark.brokers,
    pytest.mark.timeout(max(300, int(RUN_SECONDS) + 240)),
]

BROKERS = {
    "redis": "redis://127.0.0.1:6379/14",
    "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//",
}
APP = ["-m", "celery", "-A", "tests.triggers.celeryapp"]
# Killed mid-body, in this order: (effect table name, horizontal_jobrun name).
KILLED = (("celery_slow", None), ("plain_slow", "celery:triggers.plain_slow"))


def delete_queue(url: str, queue: str) -> None:
    """Delete the run's queue; on Redis also kombu's bindings and the unacked messages a
    killed worker left (database 14 is this test's alone)."""
    from kombu import Connection

    with Connection(url, connect_timeout=5) as connection:
        connection.default_channel.queue_delete(queue)
    if url.startswith("redis://"):
        import redis

        client = redis.Redis.from_url(url)
        client.delete(f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
        client.delete("unacked", "unacked_index", "unacked_mutex")


@pytest.mark.parametrize("broker", list(BROKERS))
def test_two_beats_and_three_workers_run_each_slot_once_and_a_killed_workers_slot_after_its_ttl(
    broker: str, tmp_path: Path, workload_db: ScratchDatabase
) -> None:
    db = workload_db
    url = BROKERS[broker]
    queue = f"horizontal-triggers-{uuid.uuid4().hex[:8]}"
    env = {"CELERY_BROKER_URL": url, "CELERY_QUEUE": queue}
    workers = []
    beats = []
    began = time.monotonic()
    try:
        for i in range(3):
            args = [*APP, "worker", "--pool=solo", "-n", f"w{i}@{queue}", "-l", "info"]
            args += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            workers.append(start(args, db, f"worker-{i}", env))
        for i in range(2):
            args = [*APP, "beat", "-s", str(tmp_path / f"beat-{i}"), "-l", "info"]
            beats.append(start(args, db, f"beat-{i}", env))
        wait_for(db, "SELECT 1 FROM triggers_workload_triggereffect WHERE phase = 'done'", 60)
        sending = time.monotonic()
        phases = {"start-up": sending - began}
        kills = []
        # A registered job's body, then a decorated plain task's: each worker replaced.
        for n, (job, run_job) in enumerate(KILLED):
            kill = kill_mid_job(db, job, {w.pid for w in workers})
            kills.append((kill, run_job))
            args = [*APP, "worker", "--pool=solo", "-n", f"w{3 + n}@{queue}", "-l", "info"]
            args += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            workers.append(start(args, db, f"worker-{3 + n}", env))
        # Keep sending past the last kill's TTL: a message after it re-claims the slot.
        last_kill = time.monotonic() - (time.time() - kills[-1][0].at)
        until = max(sending + RUN_SECONDS, last_kill + TTL + 4)
        time.sleep(max(0.0, until - time.monotonic()))
        stop(beats)
        phases["sending"] = time.monotonic() - sending
        # Settle: what was sent is run, the killed slots included.
        for kill, _ in kills:
            wait_for(
                db,
                "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM horizontal_jobrun"
                " WHERE status = 'running') AND EXISTS (SELECT 1 FROM"
                " triggers_workload_triggereffect WHERE job = %s AND slot = %s AND phase = 'done')",
                30,
                (kill.job, kill.slot),
            )
        phases["settle"] = time.monotonic() - sending - phases["sending"]
        time.sleep(1.0)
        stop(workers)
        results = [
            figures(db, "celery_fast", 1),
            figures(db, "celery_slow", 4),
            figures(db, "plain_tick", 1, run_job="celery:triggers.plain_tick"),
            figures(db, "plain_slow", 4, run_job="celery:triggers.plain_slow"),
        ]
        killed = [(kill, killed_slot(db, kill, run_job)) for kill, run_job in kills]
    finally:
        stop(beats + workers)
        delete_queue(url, queue)
    took = ", ".join(f"{k} {v:.1f} s" for k, v in phases.items())
    print(f"\n{broker}: {time.monotonic() - began:.1f} s in all ({took})")
    for result in results:
        print(f"  {result.line()}")
    for kill, found in killed:
        print(f"  killed worker pid {kill.pid} in {kill.job}@{kill.slot}: {found}")
    for result in results:
        assert result.duplicates == 0, result.line()
        assert result.lost == [], result.line()
        assert result.stuck == 0, result.line()
    assert results[0].slots >= RUN_SECONDS * 0.6, results[0].line()
    assert results[2].slots >= RUN_SECONDS * 0.6, results[2].line()
    for _, found in killed:
        assert found["started_tokens"] == [1, 2], found
        assert found["done_tokens"] == [2], found
        # Re-claimed as a crashed run: from the runner's re-run list ("retry"), or, when the
        # claim expired while the slot was still the latest tick, by that tick's message.
        row = found["row"]
        assert isinstance(row, tuple) and row[:3] == ("succeeded", 2, 2), found
        assert row[3] in ("retry", "schedule"), found
        reclaimed = found["reclaimed_after_kill_s"]
        assert isinstance(reclaimed, float)
        # Not before the claim expired (renewed every TTL/3 until the kill); soon after it
        # (the bound allows for a loaded machine: queue lag, a worker starting).
        assert TTL * 2 / 3 - 0.5 <= reclaimed <= TTL + 10, found
