"""Jobs the trigger tests run: every second (fast) and every 4 s with a 2.5 s body (slow).

``catchup="all"`` so that no tick is lost to a late message, ``overlap="allow"`` so a
killed run waiting for its TTL does not hold the next slots back, a 3 s TTL so the
re-claim comes quickly. The ``tasks_*`` jobs are handed to django.tasks workers.
"""

from __future__ import annotations

import os
import time

from horizontal.jobs import Run, job
from tests.triggers.workload.models import TriggerEffect

SLOW_SECONDS = float(os.environ.get("TRIGGERS_SLOW_SECONDS", "2.5"))
OPTIONS = {"catchup": "all", "window": 600, "overlap": "allow", "ttl": 3}


def trace(run: Run, phase: str, job_name: str | None = None) -> None:
    TriggerEffect.objects.create(
        job=job_name or run.job.name,
        slot=run.slot,
        token=run.token,
        owner=run.owner,
        pid=os.getpid(),
        phase=phase,
    )


def work(run: Run, seconds: float) -> None:
    trace(run, "started")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.check()
        time.sleep(0.05)
    run.check()
    trace(run, "done")


@job("celery_fast", schedule="* * * * * *", **OPTIONS)  # type: ignore[arg-type]
def celery_fast(run: Run) -> None:
    work(run, 0)


@job("celery_slow", schedule="* * * * * */4", **OPTIONS)  # type: ignore[arg-type]
def celery_slow(run: Run) -> None:
    work(run, SLOW_SECONDS)


@job("tasks_fast", schedule="* * * * * *", executor="tasks", **OPTIONS)  # type: ignore[arg-type]
def tasks_fast(run: Run) -> None:
    work(run, 0)


@job("tasks_slow", schedule="* * * * * */4", executor="tasks", **OPTIONS)  # type: ignore[arg-type]
def tasks_slow(run: Run) -> None:
    work(run, SLOW_SECONDS)
