"""``chaos_tick``: a job every second that writes an effect and a fenced update.

Failpoints ``mid_job`` and ``before_fenced_write`` here, and ``inside_effect`` in
``run.effect()`` (inside the effect transaction), let the chaos suite pause or kill a runner
at those moments (with ``HORIZONTAL_DEBUG_FAILPOINTS``).
"""

from __future__ import annotations

import os
import time

from django.db import transaction
from django.db.models import F

from horizontal import failpoints
from horizontal.jobs import Run, job
from testproject.chaos.models import FencedWrite, SharedCounter, TickEffect


@job(
    "chaos_tick",
    schedule="* * * * * *",
    catchup="all",
    window=600,
    overlap="allow",
    max_attempts=5,
)
def chaos_tick(run: Run) -> None:
    """Record one effect for the slot and bump the shared counter, fenced."""
    failpoints.hit("mid_job")
    with transaction.atomic():
        if run.effect(f"chaos:{run.slot}"):
            TickEffect.objects.create(slot=run.slot, token=run.token, owner=run.owner)
    failpoints.hit("before_fenced_write")
    with transaction.atomic():
        run.fence(
            SharedCounter.objects.filter(pk=1),
            value=F("value") + 1,
            last_slot=run.slot,
            last_token=run.token,
        )
        FencedWrite.objects.create(slot=run.slot, token=run.token, owner=run.owner)


# The spread workload (tests/jobs/test_scheduler_spread.py): SPREAD_JOBS jobs every
# SPREAD_PERIOD seconds, each taking SPREAD_SECONDS. Each run writes a TickEffect row
# ("job@slot") when its body starts, with no guard, so a slot run twice shows twice.
def _spread_body(run: Run) -> None:
    TickEffect.objects.create(slot=f"{run.job.name}@{run.slot}", token=run.token, owner=run.owner)
    deadline = time.monotonic() + float(os.environ.get("SPREAD_SECONDS", "5"))
    while time.monotonic() < deadline:
        run.check()
        time.sleep(0.1)


for _index in range(int(os.environ.get("SPREAD_JOBS", "0"))):
    job(
        f"spread_{_index:02d}",
        schedule=f"* * * * * */{int(os.environ.get('SPREAD_PERIOD', '10'))}",
    )(_spread_body)


@job("http_tick", schedule="* * * * * */2")
def http_tick(run: Run) -> None:
    """The HTTP trigger's workload: a row per body start (no guard), then half a second."""
    TickEffect.objects.create(slot=f"http@{run.slot}", token=run.token, owner=run.owner)
    time.sleep(0.5)
