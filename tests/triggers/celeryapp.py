"""The Celery app of the trigger tests: ``celery -A tests.triggers.celeryapp beat|worker``.

Django comes from ``tests.triggers.settings`` (testproject + the workload app). The broker
and the queue come from the environment (``CELERY_BROKER_URL``, ``CELERY_QUEUE``), so each
test run has a queue of its own. Beat sends three entries every second: the registered
jobs ``celery_fast`` and ``celery_slow`` through ``horizontal.run_job``, and the plain
periodic task ``triggers.plain_tick`` made once-per-slot by ``@once_per_slot``.
"""

from __future__ import annotations

import os
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.triggers.settings")
django.setup()

from celery import Celery  # noqa: E402

from horizontal.triggers.celery import (  # noqa: E402
    RUN_JOB_TASK,
    current_run,
    once_per_slot,
    register_jobs,
)
from tests.triggers.workload.jobs import OPTIONS, SLOW_SECONDS, trace  # noqa: E402

PLAIN_TASK = "triggers.plain_tick"
PLAIN_SLOW_TASK = "triggers.plain_slow"
EVERY = float(os.environ.get("CELERY_BEAT_EVERY", "1.0"))

app = Celery("horizontal_triggers_test")
app.conf.update(
    broker_url=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14"),
    task_default_queue=os.environ.get("CELERY_QUEUE", "horizontal-triggers-test"),
    task_ignore_result=True,
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
    timezone="UTC",
    beat_schedule={
        "celery_fast": {"task": RUN_JOB_TASK, "schedule": EVERY, "args": ("celery_fast",)},
        "celery_slow": {"task": RUN_JOB_TASK, "schedule": EVERY, "args": ("celery_slow",)},
        "plain_tick": {"task": PLAIN_TASK, "schedule": EVERY},
        "plain_slow": {"task": PLAIN_SLOW_TASK, "schedule": EVERY},
    },
)
register_jobs(app)


@app.task(name=PLAIN_TASK)
@once_per_slot(every=1, **OPTIONS)  # type: ignore[arg-type]
def plain_tick() -> str:
    """A plain periodic task: it runs once per second however many beats send it."""
    run = current_run()
    assert run is not None
    trace(run, "started", "plain_tick")
    trace(run, "done", "plain_tick")
    return run.slot


@app.task(name=PLAIN_SLOW_TASK)
@once_per_slot(every=4, **OPTIONS)  # type: ignore[arg-type]
def plain_slow() -> str:
    """A plain periodic task with a 2.5 s body (a checkpoint every 50 ms): the test kills a
    worker inside it, and the next message after the TTL re-claims the slot."""
    run = current_run()
    assert run is not None
    trace(run, "started", "plain_slow")
    deadline = time.monotonic() + SLOW_SECONDS
    while time.monotonic() < deadline:
        run.check()
        time.sleep(0.05)
    run.check()
    trace(run, "done", "plain_slow")
    return run.slot
