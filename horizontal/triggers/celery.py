"""Celery as a trigger: beats and producers send, workers run each slot once through the gate.

Three pieces (docs/triggers.md, "Celery"):

- ``register_jobs(app)`` registers the task ``horizontal.run_job(job, slot=None)``. A
  message is a request to run what is due: without ``slot`` the worker decides the slot
  on the database clock under the job's catch-up policy, exactly as ``runjob`` does, and
  claims it through the gate. Two beats sending for one tick, a producer retrying, a
  message delivered twice: the first claims the slot, the others are told it is taken.
  A worker killed mid-job leaves a claim that expires after the job's TTL; the next
  message for the job re-claims it with a higher token before anything newer.
- ``@once_per_slot(cron=...)`` or ``(every=...)`` under ``@app.task`` makes an existing
  periodic task run at most once per scheduled slot, through the same gate, under the
  job name ``celery:<task name>`` (it does not become a registered job: ``runscheduler``
  never runs it).
- ``LeaderScheduler``: a beat scheduler class that sends only while it holds the lease
  ``horizontal:celery-beat``; a second beat stands by. It saves messages; the gate, not
  the lease, is the guarantee.

Why the slot is decided at execution and not stamped by the beat: a beat message names
no instant (Celery beat sends no scheduled time, only its own clock reading), and beats
on two machines read different clocks; the database clock is the one every worker
shares (RELIABILITY.md, guarantee 2). A message that arrives a little before the
database clock reaches its tick (a beat clock ahead of the database's) waits for the
tick, within ``early`` seconds and a tenth of the job's period, rather than finding only
the previous, finished slot.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import functools
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from celery import Celery, Task
from celery.beat import PersistentScheduler

from horizontal import leases
from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.jobs import slots
from horizontal.jobs.registry import Catchup, Job, Overlap
from horizontal.jobs.report import Outcome, OutcomeStatus
from horizontal.jobs.run import Run
from horizontal.jobs.runner import get_job, run_job_object
from horizontal.jobs.validation import describe_errors, job_errors

__all__ = ["RUN_JOB_TASK", "LeaderScheduler", "current_run", "once_per_slot", "register_jobs"]

logger = logging.getLogger("horizontal.triggers.celery")

RUN_JOB_TASK = "horizontal.run_job"
# Job names of decorated tasks: celery:<task name>, apart from every registered job.
NAMESPACE = "celery:"
BEAT_LEASE = "horizontal:celery-beat"
# Outcomes that mean this call claimed (and so ran or tried) a slot.
_CLAIMED = {
    OutcomeStatus.SUCCEEDED,
    OutcomeStatus.FAILED,
    OutcomeStatus.LOST,
    OutcomeStatus.INTERRUPTED,
    OutcomeStatus.HANDED_OFF,
}

F = TypeVar("F", bound=Callable[..., Any])

_current: contextvars.ContextVar[Run | None] = contextvars.ContextVar(
    "horizontal_celery_run", default=None
)


def current_run() -> Run | None:
    """The claimed ``Run`` inside a ``@once_per_slot`` task's body (for ``fence``/``effect``)."""
    return _current.get()


def summary(outcome: Outcome) -> dict[str, Any]:
    """An outcome as a task result (JSON)."""
    return {
        "job": outcome.job,
        "slot": outcome.slot,
        "status": str(outcome.status),
        "token": outcome.token,
        "message": outcome.message,
    }


def run_due(
    job: Job, *, slot: str | None = None, retry: bool = False, early: float = 1.0
) -> list[Outcome]:
    """Run ``job``'s due slots (or ``slot``); wait for a tick the database is about to reach.

    When nothing was claimed and the job's next tick is at most ``early`` seconds (and a
    tenth of its period) ahead of the database clock, the message was sent for that tick
    by a clock running ahead: sleep until it and run again.
    """
    outcomes = run_job_object(job, slot=slot, retry=retry)
    if slot is not None or any(o.status in _CLAIMED for o in outcomes):
        return outcomes
    now = db_now(conf.DATABASE)
    upcoming = slots.next_tick(job, now)
    latest = slots.latest_tick(job, now)
    if upcoming is None or latest is None:
        return outcomes
    wait = (upcoming - now).total_seconds()
    if wait <= min(early, (upcoming - latest).total_seconds() / 10):
        time.sleep(max(0.0, wait) + 0.005)
        outcomes += run_job_object(job)
    return outcomes


def register_jobs(
    app: Celery, *, name: str = RUN_JOB_TASK, early: float = 1.0, **options: Any
) -> Task[Any, Any]:
    """Register ``horizontal.run_job(job, slot=None, retry=False)`` on ``app``.

    Point beat entries (or any producer) at it with the job's name as the first
    argument; ``options`` go to ``app.task`` (``queue``, ``acks_late``, ...). The result
    is one ``summary`` per slot looked at.
    """

    @app.task(name=name, **options)
    def run_job_task(
        job: str, slot: str | None = None, retry: bool = False
    ) -> list[dict[str, Any]]:
        return [summary(o) for o in run_due(get_job(job), slot=slot, retry=retry, early=early)]

    task: Task[Any, Any] = run_job_task
    return task


def every_to_cron(every: float | dt.timedelta) -> str:
    """A period that divides the minute, hour or day, as a cron expression aligned to it."""
    seconds = every.total_seconds() if isinstance(every, dt.timedelta) else float(every)
    whole = int(seconds)
    if whole != seconds or whole <= 0:
        raise ValueError(f"every={every!r}: a whole, positive number of seconds")
    if whole < 60 and 60 % whole == 0:
        return "* * * * * *" if whole == 1 else f"* * * * * */{whole}"
    if whole % 60 == 0 and whole < 3600 and 60 % (whole // 60) == 0:
        return f"*/{whole // 60} * * * *"
    if whole % 3600 == 0 and whole < 86400 and 24 % (whole // 3600) == 0:
        return f"0 */{whole // 3600} * * *"
    if whole == 86400:
        return "0 0 * * *"
    raise ValueError(
        f"every={every!r} does not divide a minute, an hour or a day evenly, so its "
        "slots would drift; give cron= instead"
    )


def _task_name(func: Callable[..., Any]) -> str:
    from celery import current_task

    name = getattr(current_task, "name", None)
    return str(name) if name else f"{func.__module__}.{func.__name__}"


def once_per_slot(
    *,
    cron: str | None = None,
    every: float | dt.timedelta | None = None,
    name: str | None = None,
    timezone: str = "UTC",
    catchup: Catchup = "latest",
    overlap: Overlap = "skip",
    ttl: float | None = None,
    grace: float = 600,
    window: float = 86400,
    early: float = 1.0,
) -> Callable[[F], F]:
    """Make a Celery task's function run at most once per slot of ``cron`` (or ``every``).

    Put it *under* ``@app.task``. Each call claims the due slot (``catchup``,
    ``overlap``, ``ttl``, ``grace``, ``window`` as for ``@job``) under the job name
    ``celery:<task name>`` (or ``celery:<name>``) and runs the function only if it won
    the claim; otherwise it returns None. Inside, ``current_run()`` is the claimed run.
    """
    if (cron is None) == (every is None):
        raise TypeError("once_per_slot needs exactly one of cron= or every=")
    schedule = cron if cron is not None else every_to_cron(every)  # type: ignore[arg-type]

    def make_job(job_name: str, body: Callable[[Run], Any]) -> Job:
        return Job(
            name=NAMESPACE + job_name,
            func=body,
            schedule=schedule,
            timezone=timezone,
            catchup=catchup,
            overlap=overlap,
            ttl=ttl,
            grace=dt.timedelta(seconds=grace),
            window=dt.timedelta(seconds=window),
        )

    errors = job_errors(make_job(name or "probe", lambda run: None))
    if errors:
        raise ValueError(describe_errors(errors))

    def decorator(func: F) -> F:
        if type(func).__module__.split(".")[0] == "celery":
            raise TypeError("put @once_per_slot under @app.task, on the function itself")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            results: list[Any] = []

            def body(run: Run) -> None:
                token = _current.set(run)
                try:
                    results.append(func(*args, **kwargs))
                finally:
                    _current.reset(token)

            run_due(make_job(name or _task_name(func), body), early=early)
            return results[-1] if results else None

        return wrapper  # type: ignore[return-value]

    return decorator


class LeaderScheduler(PersistentScheduler):
    """Celery beat that sends only while it holds the lease ``horizontal:celery-beat``.

    ``celery beat -S horizontal.triggers.celery:LeaderScheduler`` on every node: one
    sends, the others stand by and take over within the lease's TTL
    (``HORIZONTAL_LEASE_TTL``) once it stops renewing. Duplicate sends are still
    possible around a hand-over; the gate makes them harmless.
    """

    lease_name = BEAT_LEASE

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._lease: leases.Lease | None = None
        self._renewed_at = 0.0
        self._standby_said = False
        super().__init__(*args, **kwargs)

    def _leading(self) -> bool:
        lease = self._lease
        if lease is not None and lease.valid:
            if time.monotonic() - self._renewed_at < lease.ttl / 3:
                return True
            self._renewed_at = time.monotonic()
            if lease.renew():
                return True
        self._renewed_at = time.monotonic()
        self._lease = leases.acquire_reserved(self.lease_name, ttl=conf.LEASE_TTL)
        if self._lease is None:
            if not self._standby_said:
                logger.info("beat: %s is held elsewhere; standing by", self.lease_name)
                self._standby_said = True
            return False
        logger.info("beat: leading (%s token %s)", self.lease_name, self._lease.token)
        self._standby_said = False
        return True

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            leading = self._leading()
        except Exception:  # the database: stand by, try again next tick
            logger.warning("beat: could not reach the lease; standing by", exc_info=True)
            self._lease = None
            leading = False
        # A renewal every third of the TTL keeps the lease; a follower retries as often.
        interval = conf.LEASE_TTL / 3
        if not leading:
            return min(interval, float(self.max_interval or interval))
        return min(float(super().tick(*args, **kwargs)), interval)

    def close(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            try:
                lease.release()
            except Exception:
                logger.warning("beat: could not release %s; it expires", self.lease_name)
        super().close()
