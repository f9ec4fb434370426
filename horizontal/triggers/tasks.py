"""Hand a job's due slot to a ``django.tasks`` worker: the scheduler decides, workers run.

A job registered with ``@job(..., executor="tasks")`` is not run by ``runjob`` or the
scheduler's leader: they compute its due slots as for any job (catch-up policy, crashed
runs to re-claim) and enqueue ``run_slot(job, slot)`` for each on the default task
backend. A task worker then claims the slot through the gate and runs the body, so a
duplicate delivery finds the slot taken, and a worker killed mid-task leaves a claim
that expires after the job's TTL: the scheduler's next pass finds it among the crashed
runs, enqueues it again, and a worker re-claims it with a higher token.

A slot is queued again by the same process only once its previous hand-off is older
than the job's TTL (a backlog of workers costs one extra message per slot per TTL, which
the gate absorbs). Django 6's ``django.tasks`` is used where it exists, else the
``django-tasks`` backport (Django 5.2): ``pip install 'django-horizontal[tasks]'``.
"""

from __future__ import annotations

import importlib
import threading
import time
from typing import Any

from horizontal.exceptions import InvalidJob
from horizontal.jobs import gate
from horizontal.jobs.registry import Job
from horizontal.jobs.report import Outcome, OutcomeStatus, describe
from horizontal.jobs.runner import Interrupted, execute, get_job
from horizontal.jobs.validation import describe_errors, job_errors
from horizontal.models import JobRun

# hand_off is what ``horizontal.jobs.executors`` calls (HAND_OFFS); it is not for your code.
__all__ = ["run_slot"]


def tasks_module() -> Any:
    """``django.tasks`` (Django 6.0+), else the ``django_tasks`` backport."""
    try:
        return importlib.import_module("django.tasks")
    except ImportError:
        try:
            return importlib.import_module("django_tasks")
        except ImportError:
            raise ImportError(
                "@job(executor='tasks') needs django.tasks (Django 6.0+) or, on Django 5.2, "
                "the django-tasks backport: pip install 'django-horizontal[tasks]'"
            ) from None


@tasks_module().task()  # type: ignore[untyped-decorator]  # the backport or Django's: one untyped API
def run_slot(
    job: str, slot: str, trigger: str = "schedule", retry: bool = False, explicit: bool = False
) -> dict[str, Any]:
    """The task: claim ``slot`` of ``job`` through the gate and run it; what happened."""
    found = get_job(job)
    errors = job_errors(found)
    if errors:
        raise InvalidJob(describe_errors(errors))
    try:
        outcome = execute(found, slot, trigger=trigger, retry=retry, explicit=explicit)
    except Interrupted as stop:  # the worker's signal waited for the result: recorded
        recorded: Outcome | None = getattr(stop, "outcome", None)
        if recorded is None:
            raise
        outcome = recorded
    return {
        "job": outcome.job,
        "slot": outcome.slot,
        "status": str(outcome.status),
        "token": outcome.token,
        "message": outcome.message,
    }


class _HandOffs:
    """When this process last queued each (job, slot): not again within the job's TTL."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until: dict[tuple[str, str], float] = {}

    def take(self, key: tuple[str, str], ttl: float) -> bool:
        now = time.monotonic()
        with self._lock:
            self._until = {k: until for k, until in self._until.items() if until > now}
            if key in self._until:
                return False
            self._until[key] = now + ttl
            return True


_handed_off = _HandOffs()


def hand_off(job: Job, slot: str, *, trigger: str, retry: bool, explicit: bool) -> Outcome | None:
    """Enqueue ``run_slot`` for a due slot (``executors.hand_off``); None if queued just now."""
    operator = retry or explicit  # runjob --slot / --retry: once, as asked
    if not operator and trigger != JobRun.Trigger.RETRY:
        row = gate.slot_row(job, slot)
        if row is not None:  # claimed (or on record) already: as an inline claim would say
            return Outcome(job.name, slot, OutcomeStatus.TAKEN, describe(row), row.token)
    if not operator and not _handed_off.take((job.name, slot), gate.ttl_of(job)):
        return None
    result = run_slot.enqueue(
        job=job.name, slot=slot, trigger=str(trigger), retry=retry, explicit=explicit
    )
    return Outcome(
        job.name,
        slot,
        OutcomeStatus.HANDED_OFF,
        f"{job.name}@{slot}: handed off to task backend {result.backend!r} (task {result.id});"
        " a task worker claims it",
    )
