"""The ``@job`` decorator and the registry it fills.

Registration never raises: a bad schedule or a name registered twice is recorded and
reported by the system checks (``horizontal.E0xx``) at start-up and by ``runjob``, so a
typo cannot break an import chain in the middle of app loading.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

if TYPE_CHECKING:
    from horizontal.jobs.run import Run

__all__ = [
    "CATCHUP_POLICIES",
    "EXECUTORS",
    "OVERLAP_POLICIES",
    "Catchup",
    "Executor",
    "Job",
    "Overlap",
    "Registry",
    "job",
    "registry",
]

Catchup = Literal["skip", "latest", "all"]
Overlap = Literal["skip", "allow"]
# Who runs a due slot: this process ("inline"), or a django.tasks worker ("tasks").
Executor = Literal["inline", "tasks"]
# The allowed values at run time (validation), read off the types so the two cannot drift.
CATCHUP_POLICIES: tuple[Catchup, ...] = get_args(Catchup)
OVERLAP_POLICIES: tuple[Overlap, ...] = get_args(Overlap)
EXECUTORS: tuple[Executor, ...] = get_args(Executor)


class Job(NamedTuple):
    """A registered job. See ``docs/jobs.md`` for every option.

    (A NamedTuple, not a frozen dataclass: it is built at import on every start-up, where
    a dataclass costs a millisecond of generated code.)
    """

    name: str
    func: Callable[[Run], Any]
    schedule: str | None = None
    timezone: str = "UTC"
    catchup: Catchup = "latest"
    overlap: Overlap = "skip"
    ttl: float | None = None
    grace: dt.timedelta = dt.timedelta(minutes=10)
    window: dt.timedelta = dt.timedelta(days=1)
    reclaim_crashed: bool = True
    max_attempts: int = 1
    description: str = ""
    executor: Executor = "inline"

    @property
    def origin(self) -> str:
        return f"{self.func.__module__}.{self.func.__qualname__}"


class Registry:
    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        # name -> every origin that registered it, when more than one did
        self.duplicates: dict[str, list[str]] = {}

    def add(self, new: Job) -> None:
        existing = self.jobs.get(new.name)
        if existing is not None and existing.func is not new.func:
            origins = self.duplicates.setdefault(new.name, [existing.origin])
            origins.append(new.origin)
            return
        self.jobs[new.name] = new

    def get(self, name: str) -> Job | None:
        return self.jobs.get(name)

    def names(self) -> list[str]:
        return sorted(self.jobs)


registry = Registry()


def job(
    name: str,
    *,
    schedule: str | None = None,
    timezone: str = "UTC",
    catchup: Catchup = "latest",
    overlap: Overlap = "skip",
    ttl: float | None = None,
    grace: dt.timedelta | float = dt.timedelta(minutes=10),
    window: dt.timedelta | float = dt.timedelta(days=1),
    reclaim_crashed: bool = True,
    max_attempts: int = 1,
    executor: Executor = "inline",
) -> Callable[[Callable[[Run], Any]], Callable[[Run], Any]]:
    """Register ``func(run)`` as the job ``name``.

    - ``schedule``: a cron expression (5 fields, or 6 with seconds last), evaluated in
      ``timezone``; None for a job that only runs with an explicit ``--slot``.
    - ``catchup``: what ``runjob`` without ``--slot`` does when the latest tick is old:
      ``"latest"`` runs the latest tick within ``window``; ``"skip"`` runs it only within
      ``grace`` of the tick, else records it as missed; ``"all"`` runs every tick not yet
      on record within ``window``, oldest first.
    - ``overlap``: ``"skip"`` records the slot as ``skipped_overlap`` while another slot
      of the job still runs; ``"allow"`` runs them side by side.
    - ``ttl``: seconds a claim lives without a heartbeat (``HORIZONTAL_LEASE_TTL``).
    - ``reclaim_crashed``: a run whose heartbeat stopped may be re-claimed, with a higher
      token, once its claim expires.
    - ``max_attempts``: a slot whose run *raised* is re-run automatically by the next
      ``runjob`` or scheduler poll until it has had this many attempts (default 1: a
      failed slot is re-run only on purpose, with ``--retry``).
    - ``executor``: ``"inline"`` runs a due slot in the process that found it due
      (``runjob``, the scheduler); ``"tasks"`` hands it to a ``django.tasks`` worker
      (``horizontal.triggers.tasks``), which claims it through the same gate.
    """

    def decorator(func: Callable[[Run], Any]) -> Callable[[Run], Any]:
        registry.add(
            Job(
                name=name,
                func=func,
                schedule=schedule,
                timezone=timezone,
                catchup=catchup,
                overlap=overlap,
                ttl=ttl,
                grace=_seconds(grace),
                window=_seconds(window),
                reclaim_crashed=reclaim_crashed,
                max_attempts=max_attempts,
                executor=executor,
                description=(func.__doc__ or "").strip().split("\n")[0],
            )
        )
        return func

    return decorator


def _seconds(value: dt.timedelta | float) -> dt.timedelta:
    return value if isinstance(value, dt.timedelta) else dt.timedelta(seconds=value)
