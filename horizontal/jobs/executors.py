"""Handing a due slot to a job's executor other than ``"inline"`` (``@job(executor=...)``).

``runner.dispatch`` runs an inline job's slot itself (``runner.execute``) and gives every
other one to ``hand_off`` here. Each executor's hand-off is named by dotted path and
loaded only when a job names it, so the extra it needs is imported only then.
"""

from __future__ import annotations

from django.utils.module_loading import import_string

from horizontal.exceptions import InvalidJob
from horizontal.jobs.registry import Job
from horizontal.jobs.report import Outcome

__all__ = ["HAND_OFFS", "hand_off"]

# Executors other than "inline", by the dotted path of their hand-off.
HAND_OFFS = {"tasks": "horizontal.triggers.tasks.hand_off"}


def hand_off(job: Job, slot: str, *, trigger: str, retry: bool, explicit: bool) -> Outcome | None:
    """Give a due slot to ``job.executor``; None when it queued the slot a moment ago."""
    path = HAND_OFFS.get(job.executor)
    if path is None:
        known = ", ".join(["inline", *HAND_OFFS])
        raise InvalidJob(f"job {job.name!r} has an unknown executor {job.executor!r}: {known}")
    executor_hand_off = import_string(path)
    result: Outcome | None = executor_hand_off(
        job, slot, trigger=trigger, retry=retry, explicit=explicit
    )
    return result
