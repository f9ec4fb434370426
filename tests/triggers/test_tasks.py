"""T2 of RELIABILITY.md: jobs handed to django.tasks workers, duplicates and a killed worker.

``@job(executor="tasks")``: two ``runscheduler`` nodes decide (one leads) and enqueue
``horizontal.triggers.tasks.run_slot`` on django-tasks-db's database backend; a second
producer enqueues every latest ``tasks_fast`` slot twice more; two ``db_worker`` processes
run them on PostgreSQL. One worker is killed with SIGKILL inside a ``tasks_slow`` body (and a
replacement started). The checker reads the effect table (no unique constraint): one
body per slot, no tick lost, the killed slot re-enqueued by the leader once its claim
expired and finished with token 2.

Runs on both Django versions: 6.1's ``django.tasks``, 5.2's ``django-tasks`` backport.
Long run: ``TRIGGERS_RUN_SECONDS=300 python -m pytest tests/triggers/test_tasks.py -s``.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter

import django
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
pytestmark = [pytest.mark.multiprocess, pytest.mark.timeout(max(300, int(RUN_SECONDS) + 240))]

JOBS = "tasks_fast,tasks_slow"


def worker(db: ScratchDatabase, name: str) -> subprocess.Popen[str]:
    args = ["manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay"]
    return start([*args, "--worker-id", name], db, name, {"DJANGO_LOG_LEVEL": "INFO"})


def deliveries(db: ScratchDatabase) -> Counter[tuple[str, str]]:
    """Tasks enqueued per (job, slot)."""
    found: Counter[tuple[str, str]] = Counter()
    for (args_kwargs,) in db.query("SELECT args_kwargs FROM django_tasks_database_dbtaskresult"):
        data = args_kwargs if isinstance(args_kwargs, dict) else json.loads(str(args_kwargs))
        found[(data["kwargs"]["job"], data["kwargs"]["slot"])] += 1
    return found


def test_handed_off_slots_run_once_despite_duplicate_enqueues_and_a_killed_worker(
    workload_db: ScratchDatabase,
) -> None:
    db = workload_db
    began = time.monotonic()
    workers = [worker(db, f"worker-{i}") for i in range(2)]
    producers = [
        start(["manage.py", "runscheduler", "--jobs", JOBS, "--poll", "0.5"], db, f"node-{i}")
        for i in range(2)
    ]
    # Stopped with the schedulers; until then it enqueues tasks_fast's latest slot twice more.
    # Duplicates of tasks_fast only: tasks_slow's killed slot must come back through the
    # leader's re-enqueue of crashed runs, not through another copy of its message.
    duplicate = ["-m", "tests.triggers.duplicate_enqueues", "3600", "tasks_fast"]
    producers.append(start(duplicate, db, "duplicator"))
    try:
        wait_for(db, "SELECT 1 FROM triggers_workload_triggereffect WHERE phase = 'done'", 60)
        sending = time.monotonic()
        phases = {"start-up": sending - began}
        kill = kill_mid_job(db, "tasks_slow", {w.pid for w in workers})
        workers.append(worker(db, "worker-2"))
        time.sleep(max(0.0, RUN_SECONDS - (time.monotonic() - sending)))
        stop(producers)
        phases["sending"] = time.monotonic() - sending
        wait_for(
            db,
            "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM horizontal_jobrun WHERE status = 'running')"
            " AND NOT EXISTS (SELECT 1 FROM django_tasks_database_dbtaskresult"
            " WHERE status = 'READY') AND EXISTS (SELECT 1 FROM triggers_workload_triggereffect"
            " WHERE job = %s AND slot = %s AND phase = 'done')",
            30,
            (kill.job, kill.slot),
        )
        phases["settle"] = time.monotonic() - sending - phases["sending"]
        stop(workers)
        results = [figures(db, "tasks_fast", 1), figures(db, "tasks_slow", 4)]
        killed = killed_slot(db, kill)
        delivered = deliveries(db)
    finally:
        stop(producers + workers)
    took = ", ".join(f"{k} {v:.1f} s" for k, v in phases.items())
    print(f"\nDjango {django.get_version()}: {time.monotonic() - began:.1f} s in all ({took})")
    for result in results:
        per_slot = Counter(n for (job, _), n in delivered.items() if job == result.job)
        print(f"  {result.line()}; tasks enqueued per slot {dict(sorted(per_slot.items()))}")
    print(f"  killed worker pid {kill.pid} in {kill.job}@{kill.slot}: {killed}")
    for result in results:
        assert result.duplicates == 0, result.line()
        assert result.lost == [], result.line()
        assert result.stuck == 0, result.line()
    assert results[0].slots >= RUN_SECONDS * 0.6, results[0].line()
    # The duplicates were real: most slots were delivered to the workers more than once.
    fast = [n for (job, _), n in delivered.items() if job == "tasks_fast"]
    assert sum(n > 1 for n in fast) >= len(fast) * 0.6, delivered
    assert killed["started_tokens"] == [1, 2]
    assert killed["done_tokens"] == [2]
    # Re-claimed as a crashed run ("retry": the runner's re-run list, before newer slots).
    assert killed["row"] == ("succeeded", 2, 2, "retry")
    reclaimed = killed["reclaimed_after_kill_s"]
    assert isinstance(reclaimed, float)
    assert TTL * 2 / 3 - 0.5 <= reclaimed <= TTL + 10, killed
