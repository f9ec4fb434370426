"""``runscheduler``: every node runs it; one leader at a time runs the due slots.

The leader is elected through a lease (``horizontal:scheduler``). Leadership only
decides *who looks*; the job gate still decides who runs a slot, so two leaders at once
(a GC pause, a partition) can at worst both try a slot, and one of them is told it is
taken. Followers try to take the lease every poll interval, so a crashed leader is
replaced within TTL + one poll interval; a leader stopped with SIGTERM releases the lease
and is replaced within one poll interval.

Due jobs run one at a time in the leader's main thread. A job that takes longer than
its period is best run with ``runjob`` from cron, or by a scheduler of its own
(``--jobs``). One job's failure to even start (a registration error, an unexpected
exception outside its body) is logged, rate-limited per job, and the loop goes on with
the others: one bad job must not stop every job of the fleet.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack

from django.db import DatabaseError, connections

from horizontal import leases
from horizontal.conf import conf
from horizontal.jobs.registry import Job, registry
from horizontal.jobs.report import Outcome, OutcomeStatus, format_instant
from horizontal.jobs.runner import run_job
from horizontal.logs import RateLimitedLog
from horizontal.models import Lease as LeaseRow

logger = logging.getLogger("horizontal.scheduler")

LEADER_LEASE = "horizontal:scheduler"
# A database outage fails every poll; say so at most this often per process.
POLL_FAILURE_LOG_INTERVAL = 10.0
# A job that fails every poll (a broken registration): at most this often per job.
JOB_FAILURE_LOG_INTERVAL = 60.0


def wall_clock() -> str:
    """Now, as every instant horizontal prints (``format_instant``)."""
    return format_instant(dt.datetime.now(dt.UTC))


class Scheduler:
    def __init__(
        self,
        jobs: list[Job] | None = None,
        *,
        poll: float = 1.0,
        ttl: float | None = None,
        report: Callable[[str], None] = print,
        lease_name: str = LEADER_LEASE,
    ) -> None:
        self.jobs = (
            jobs
            if jobs is not None
            else [registry.jobs[n] for n in registry.names() if registry.jobs[n].schedule]
        )
        self.poll = poll
        self.ttl = conf.LEASE_TTL if ttl is None else ttl
        self.report = report
        self.lease_name = lease_name
        self.stopping = threading.Event()
        self._lease: leases.Lease | None = None
        self._keep_alive: ExitStack | None = None
        self.running_jobs = False
        self.poll_failures = RateLimitedLog(logger, logging.WARNING, POLL_FAILURE_LOG_INTERVAL)
        self.job_failures: dict[str, RateLimitedLog] = {}
        # Said once per stretch as follower: who leads (a silent standby looks dead).
        self._follower_reported = False

    @property
    def is_leader(self) -> bool:
        return self._lease is not None and self._lease.valid

    def run(self) -> None:
        """Loop until ``stop()``; hand leadership back on the way out."""
        try:
            while not self.stopping.is_set():
                started = time.monotonic()
                self.tick()
                # Jitter keeps a fleet started at one moment from polling in lock-step.
                pause = self.poll * random.uniform(0.9, 1.1) - (time.monotonic() - started)
                self.stopping.wait(max(0.0, pause))
        finally:
            self.step_down(release=True)
            connections.close_all()

    def stop(self) -> None:
        self.stopping.set()

    def tick(self) -> list[Outcome]:
        """One poll: make sure of leadership, then run what is due."""
        try:
            if not self.is_leader:
                self.step_down(release=False)
                self._try_to_lead()
            if not self.is_leader:
                return []
            return self._run_due()
        except DatabaseError as exc:
            self.poll_failures.log("scheduler poll failed, will retry: %s", exc)
            connections[conf.DATABASE].close()
            return []

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

    def _who_leads(self) -> str:
        row = LeaseRow.objects.using(conf.DATABASE).filter(name=self.lease_name).first()
        if row is None:  # released and gone between our acquire and this read: rare
            return f"{self.lease_name} is held by another scheduler"
        return (
            f"{self.lease_name} is held by {row.owner} (token {row.token}, "
            f"until {format_instant(row.expires_at)} unless renewed)"
        )

    def _run_due(self) -> list[Outcome]:
        outcomes: list[Outcome] = []
        self.running_jobs = True
        try:
            for job in self.jobs:
                if self.stopping.is_set() or not self.is_leader:
                    break
                outcomes.extend(self._run_one(job))
        finally:
            self.running_jobs = False
        return outcomes

    def _run_one(self, job: Job) -> list[Outcome]:
        """Run one job's due slots; its failure is logged, never the end of the loop."""
        try:
            outcomes = run_job(job.name)
        except DatabaseError as exc:
            connection = connections[conf.DATABASE]
            if connection.connection is None or not connection.is_usable():
                raise  # the database, not the job: the poll's own handler says so
            self._job_failed(job, exc)
            return []
        except Exception as exc:
            self._job_failed(job, exc)
            return []
        for outcome in outcomes:
            if outcome.status not in (OutcomeStatus.TAKEN, OutcomeStatus.IDLE):
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
