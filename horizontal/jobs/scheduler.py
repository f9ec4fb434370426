"""``runscheduler``: every node runs it; every node with capacity runs due slots.

Each scheduler keeps a heap of its jobs' next ticks, so a poll costs the same with ten
jobs or a thousand: one read of the database clock, then work only for the jobs whose
tick has come (``benchmarks/scheduler.py``). A due job is handed to one of the process's
worker threads (``HORIZONTAL_SCHEDULER_CONCURRENCY``, ``--concurrency``), each with its own
database connections; a node whose threads are all busy leaves the job to the next node
with a free one. The job gate decides who runs a slot, as for ``runjob`` from cron on
every node: claims are once per slot and fenced, whichever node makes them.

One scheduler is elected leader through a lease (``horizontal:scheduler``). The leader
alone does what must not race: it re-claims crashed runs and failed runs with attempts
left (one statement per poll finds them) and works through a ``catchup="all"`` backlog
oldest first; the other nodes claim only a job's current slot (``run_job(catch_up=False)``).
Followers try to take the lease every poll interval, so a crashed leader is replaced
within TTL + one poll interval; a leader stopped with SIGTERM releases the lease and is
replaced within one poll interval.

SIGTERM: no new claims; each running body is interrupted at its next checkpoint
(``run.check()``, ``effect()``, ``fence()``) and its claim handed back; the process waits
for the worker threads, then releases leadership. One job's failure to even start (a
registration error, an unexpected exception outside its body) is logged, rate-limited
per job, and the other jobs go on.
"""

from __future__ import annotations

import datetime as dt
import heapq
import itertools
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack

from django.db import DatabaseError, connections
from django.db.models import Q

from horizontal import leases
from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.jobs import slots
from horizontal.jobs.registry import Job, registry
from horizontal.jobs.report import Outcome, OutcomeStatus, format_instant
from horizontal.jobs.run import stopping_on
from horizontal.jobs.runner import run_job
from horizontal.logs import RateLimitedLog
from horizontal.models import JobRun
from horizontal.models import Lease as LeaseRow

logger = logging.getLogger("horizontal.scheduler")

LEADER_LEASE = "horizontal:scheduler"
# A database outage fails every poll; say so at most this often per process.
POLL_FAILURE_LOG_INTERVAL = 10.0
# A job that fails every poll (a broken registration): at most this often per job.
JOB_FAILURE_LOG_INTERVAL = 60.0
# Rows one poll's look for re-runs reads at most; a job not seen now is seen by its run.
RERUN_SCAN_LIMIT = 1000


def wall_clock() -> str:
    """Now, as every instant horizontal prints (``format_instant``)."""
    return format_instant(dt.datetime.now(dt.UTC))


class DueHeap:
    """When each job is next due: a heap of (instant, job name), newest entry wins.

    ``pop_due(now)`` costs O(k log n) for the k jobs due, never a pass over all n.
    Marking a job due again (``at``) pushes a new entry; the old one is dropped when it
    surfaces (lazy deletion), so the heap holds at most a few entries per job.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[dt.datetime, int, str]] = []
        self._at: dict[str, dt.datetime] = {}
        self._order = itertools.count()

    def __len__(self) -> int:
        return len(self._at)

    def at(self, name: str, instant: dt.datetime | None) -> None:
        """Due at ``instant`` (an earlier mark stands); None: never again."""
        if instant is None:
            self._at.pop(name, None)
            return
        current = self._at.get(name)
        if current is not None and current <= instant:
            return
        self._at[name] = instant
        heapq.heappush(self._heap, (instant, next(self._order), name))

    def replace(self, name: str, instant: dt.datetime | None) -> None:
        """Due at ``instant`` from now on, whatever was marked before."""
        self._at.pop(name, None)
        self.at(name, instant)

    def pop_due(self, now: dt.datetime) -> list[str]:
        due = []
        while self._heap and self._heap[0][0] <= now:
            instant, _, name = heapq.heappop(self._heap)
            if self._at.get(name) == instant:
                del self._at[name]
                due.append(name)
        return due


class Scheduler:
    def __init__(
        self,
        jobs: list[Job] | None = None,
        *,
        poll: float = 1.0,
        ttl: float | None = None,
        report: Callable[[str], None] = print,
        lease_name: str = LEADER_LEASE,
        concurrency: int | None = None,
    ) -> None:
        self.jobs = (
            jobs
            if jobs is not None
            else [registry.jobs[n] for n in registry.names() if registry.jobs[n].schedule]
        )
        self._by_name = {job.name: job for job in self.jobs}
        self.poll = poll
        self.ttl = conf.LEASE_TTL if ttl is None else ttl
        self.report = report
        self.lease_name = lease_name
        self.concurrency = conf.SCHEDULER_CONCURRENCY if concurrency is None else concurrency
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.stopping = threading.Event()
        self._lease: leases.Lease | None = None
        self._keep_alive: ExitStack | None = None
        self.poll_failures = RateLimitedLog(logger, logging.WARNING, POLL_FAILURE_LOG_INTERVAL)
        self.job_failures: dict[str, RateLimitedLog] = {}
        # Said once per stretch as follower: who leads (a silent standby looks dead).
        self._follower_reported = False
        # Every job is due at start: its catch-up policy decides what that means.
        self.due = DueHeap()
        epoch = dt.datetime.min.replace(tzinfo=dt.UTC)
        for job in self.jobs:
            self.due.at(job.name, epoch)
        self._pool: ThreadPoolExecutor | None = None
        self._running: dict[str, Future[list[Outcome]]] = {}
        # Filled by worker threads, drained by the polling thread: (job name, outcomes,
        # retry at once); only the polling thread touches the heap.
        self._done: queue.SimpleQueue[tuple[str, list[Outcome], bool]] = queue.SimpleQueue()
        self._freed = threading.Event()
        self._last_now: dt.datetime | None = None
        # Paused jobs, said once per pause (not every poll).
        self._paused: set[str] = set()

    @property
    def is_leader(self) -> bool:
        return self._lease is not None and self._lease.valid

    @property
    def running_jobs(self) -> bool:
        return bool(self._running)

    def run(self) -> None:
        """Loop until ``stop()``; wait for the running slots; hand leadership back."""
        try:
            while not self.stopping.is_set():
                started = time.monotonic()
                self.tick()
                # Jitter keeps a fleet started at one moment from polling in lock-step.
                deadline = started + self.poll * random.uniform(0.9, 1.1)
                self._pause_until(deadline)
        finally:
            self.stopping.set()
            self.shutdown()
            self.step_down(release=True)
            connections.close_all()

    def _pause_until(self, deadline: float) -> None:
        """Wait for the next poll; a thread that comes free meanwhile takes a due job."""
        while not self.stopping.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._freed.wait(remaining):
                return
            self._freed.clear()
            self._collect()
            if self._last_now is not None and not self.stopping.is_set():
                # Jobs left due for want of a thread were marked due at the last poll's now.
                self._start_due(self._last_now)

    def stop(self) -> None:
        """No new claims; running bodies are interrupted at their next checkpoint."""
        self.stopping.set()
        self._freed.set()

    def shutdown(self) -> None:
        """Wait for every worker thread (each hands back a claim it was told to stop)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        self._collect()

    def tick(self, *, wait: bool = False) -> list[Outcome]:
        """One poll: leadership, the clock, then hand the due jobs to free threads.

        Returns the outcomes of the runs that ended since the last poll (with ``wait``:
        also of those this poll started, once they end).
        """
        outcomes = self._collect()
        try:
            if not self.is_leader:
                self.step_down(release=False)
                self._try_to_lead()
            now = self._last_now = db_now(conf.DATABASE)
            if self.is_leader:
                for name in self._jobs_to_rerun(now):
                    self.due.at(name, now)
            self._start_due(now)
        except DatabaseError as exc:
            self.poll_failures.log("scheduler poll failed, will retry: %s", exc)
            connections[conf.DATABASE].close()
        if wait:
            for future in list(self._running.values()):
                future.exception()
            outcomes.extend(self._collect())
        return outcomes

    def _start_due(self, now: dt.datetime) -> None:
        busy: list[str] = []
        due = self.due.pop_due(now)
        # Every node's heap holds the same jobs in the same order: in its own random
        # order, each node claims different ones first instead of all trying the same.
        random.shuffle(due)
        for name in due:
            job = self._by_name[name]
            free = self.concurrency - len(self._running)
            if self.stopping.is_set() or name in self._running or free <= 0:
                # Still due: the next poll looks again, or a node with a free thread takes it.
                busy.append(name)
                continue
            self._running[name] = self._executor().submit(self._run_one, job, self.is_leader)
            self.due.at(name, slots.next_tick(job, now))
        for name in busy:
            self.due.at(name, now)

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="horizontal-job")
        return self._pool

    def _collect(self) -> list[Outcome]:
        """What the worker threads finished: their outcomes; failed starts due again."""
        outcomes: list[Outcome] = []
        while True:
            try:
                name, done, again = self._done.get_nowait()
            except queue.Empty:
                return outcomes
            self._running.pop(name, None)
            outcomes.extend(done)
            if again:
                self.due.at(name, dt.datetime.min.replace(tzinfo=dt.UTC))

    def _jobs_to_rerun(self, now: dt.datetime) -> set[str]:
        """The jobs with a crashed run to re-claim or a failed run with attempts left.

        One statement for every job (only the leader asks); only these jobs' turn comes
        early. The same rules as ``gate.slots_to_rerun``, which the job's run applies.
        """
        if not any(job.reclaim_crashed or job.max_attempts > 1 for job in self.jobs):
            return set()
        horizon = slots.format_slot(now - max(job.window for job in self.jobs))
        rows = (
            JobRun.objects.using(conf.DATABASE)
            .filter(
                Q(status=JobRun.Status.RUNNING, expires_at__lt=now)
                | Q(status=JobRun.Status.FAILED),
                slot__gte=horizon,
                slot__endswith="Z",
            )
            .values_list("job", "status", "attempt", "slot")[:RERUN_SCAN_LIMIT]
        )
        names = set()
        for name, status, attempt, slot in rows:
            job = self._by_name.get(name)
            if job is None or slot < slots.format_slot(now - job.window):
                continue
            crashed = status == JobRun.Status.RUNNING and job.reclaim_crashed
            if crashed or (status == JobRun.Status.FAILED and attempt < job.max_attempts):
                names.add(name)
        return names

    def _try_to_lead(self) -> None:
        lease = leases.acquire_reserved(self.lease_name, ttl=self.ttl)
        if lease is None:
            if not self._follower_reported:
                self._follower_reported = True
                self.report(f"follower: {self._who_leads()}; standing by, at {wall_clock()}")
            return
        self._lease = lease
        self._keep_alive = ExitStack()
        self._keep_alive.enter_context(lease.keep_alive())
        self._follower_reported = False
        self.report(f"leader: acquired {self.lease_name} (token {lease.token}) at {wall_clock()}")
        # A new leader looks at every job once: catch-up after an outage is its work.
        for job in self.jobs:
            self.due.at(job.name, dt.datetime.min.replace(tzinfo=dt.UTC))

    def _who_leads(self) -> str:
        row = LeaseRow.objects.using(conf.DATABASE).filter(name=self.lease_name).first()
        if row is None:  # released and gone between our acquire and this read: rare
            return f"{self.lease_name} is held by another scheduler"
        return (
            f"{self.lease_name} is held by {row.owner} (token {row.token}, "
            f"until {format_instant(row.expires_at)} unless renewed)"
        )

    def _run_one(self, job: Job, leader: bool) -> list[Outcome]:
        """In a worker thread: one job's due slots; its failure is logged, never raised."""
        outcomes: list[Outcome] = []
        again = False
        try:
            with stopping_on(self.stopping):
                outcomes = run_job(job.name, catch_up=leader)
        except DatabaseError as exc:
            connection = connections[conf.DATABASE]
            if connection.connection is None or not connection.is_usable():
                # The database, not the job: retried at the next poll.
                self.poll_failures.log("scheduler poll failed, will retry: %s", exc)
                again = True
            else:
                self._job_failed(job, exc)
        except Exception as exc:
            self._job_failed(job, exc)
        finally:
            connections.close_all()  # this thread's own connections
            self._done.put((job.name, outcomes, again))
            self._freed.set()
        paused = any(o.status == OutcomeStatus.PAUSED for o in outcomes)
        if not paused:
            self._paused.discard(job.name)
        for outcome in outcomes:
            if outcome.status == OutcomeStatus.PAUSED:
                if job.name not in self._paused:
                    self._paused.add(job.name)
                    self.report(outcome.message)
            elif outcome.status not in (OutcomeStatus.TAKEN, OutcomeStatus.IDLE):
                self.report(outcome.message)
        return outcomes

    def _job_failed(self, job: Job, exc: Exception) -> None:
        failures = self.job_failures.get(job.name)
        if failures is None:
            failures = RateLimitedLog(logger, logging.ERROR, JOB_FAILURE_LOG_INTERVAL)
            self.job_failures[job.name] = failures
        failures.log(
            "job %s could not run, the other jobs go on: %s: %s",
            job.name,
            type(exc).__name__,
            exc,
        )

    def step_down(self, *, release: bool) -> None:
        lease, self._lease = self._lease, None
        if self._keep_alive is not None:
            self._keep_alive.close()
            self._keep_alive = None
        if lease is None:
            return
        if not release:  # no longer valid: lease_lost, unless a renewal said so already
            lease.validity.lose("no successful renewal within the deadline")
        if release:
            try:
                lease.release()
            except DatabaseError:
                logger.warning("could not release %s; it expires by itself", self.lease_name)
        self.report(f"leader: stepped down (token {lease.token}) at {wall_clock()}")
