"""Pause and resume a job for the whole fleet: a row in ``horizontal_jobcontrol``.

A pause is read by every pass of ``run_job`` in the round trip that reads the database
clock (``Dialect.now_and_control``), so ``runjob``, ``runscheduler`` and every trigger
honour it at no extra cost. It stops new claims only: a run already claimed when the job
is paused goes on to its end.
"""

from __future__ import annotations

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.exceptions import UnknownJob
from horizontal.jobs.registry import registry
from horizontal.models import JobControl

__all__ = ["ensure_controls", "pause_job", "paused_jobs", "resume_job"]


def _check(name: str) -> None:
    if registry.get(name) is None:
        known = ", ".join(registry.names()) or "(none registered)"
        raise UnknownJob(f"unknown job {name!r}; known jobs: {known}")


def pause_job(name: str, *, by: str = "", note: str = "") -> JobControl:
    """Pause ``name`` on every instance; ``by`` (who) and ``note`` (why) are shown."""
    return _set(name, paused=True, by=by, note=note)


def resume_job(name: str, *, by: str = "") -> JobControl:
    """Let ``name`` run again."""
    return _set(name, paused=False, by=by, note="")


def _set(name: str, *, paused: bool, by: str, note: str) -> JobControl:
    _check(name)
    using = conf.DATABASE
    control, _ = JobControl.objects.using(using).update_or_create(
        job=name,
        defaults={
            "paused": paused,
            "changed_by": by[:200],
            "changed_at": db_now(using),
            "note": note[:200],
        },
    )
    return control


def paused_jobs() -> dict[str, JobControl]:
    """Every paused job's control row, by job name."""
    rows = JobControl.objects.using(conf.DATABASE).filter(paused=True)
    return {row.job: row for row in rows}


def ensure_controls() -> None:
    """A control row for every registered job (the admin lists jobs through them)."""
    JobControl.objects.using(conf.DATABASE).bulk_create(
        [JobControl(job=name) for name in registry.names()], ignore_conflicts=True
    )
