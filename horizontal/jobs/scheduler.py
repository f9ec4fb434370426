"""``runscheduler``: every node runs it; one leader at a time runs the due slots.

The leader is elected through a lease (``horizontal:scheduler``). Leadership only
decides *who looks*; the job gate still decides who runs a slot, so two leaders at once
(a GC pause, a partition) can at worst both try a slot, and one of them is told it is
taken. Followers try to take the lease every poll interval, so a crashed leader is
replaced within TTL + one poll interval; a leader stopped with SIGTERM releases the lease
and is replaced within one poll interval.

Due jobs run one at a time in the leader's main thread. A job that takes longer than
its period is best run with ``runjob`` from cron, or by a scheduler of its own
(``--jobs``).
"""

from __future__ import annotations

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
from horizontal.jobs.report import Outcome, OutcomeStatus
from horizontal.jobs.runner import run_job
from horizontal.logs import RateLimitedLog

logger = logging.getLogger("horizontal.scheduler")

LEADER_LEASE = "horizontal:scheduler"
# A database outage fails every poll; say so at most this often per process.
POLL_FAILURE_LOG_INTERVAL = 10.0


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
            return
        self._lease = lease
        self._keep_alive = ExitStack()
        self._keep_alive.enter_context(lease.keep_alive())
        self.report(
            f"leader: acquired {self.lease_name} (token {lease.token}) at {time.time():.3f}"
        )

    def _run_due(self) -> list[Outcome]:
        outcomes: list[Outcome] = []
        self.running_jobs = True
        try:
            for job in self.jobs:
                if self.stopping.is_set() or not self.is_leader:
                    break
                for outcome in run_job(job.name):
                    if outcome.status not in (OutcomeStatus.TAKEN, OutcomeStatus.IDLE):
                        self.report(outcome.message)
                    outcomes.append(outcome)
        finally:
            self.running_jobs = False
        return outcomes

    def step_down(self, *, release: bool) -> None:
        lease, self._lease = self._lease, None
        if self._keep_alive is not None:
            self._keep_alive.close()
            self._keep_alive = None
        if lease is None:
            return
        if release:
            try:
                lease.release()
            except DatabaseError:
                logger.warning("could not release %s; it expires by itself", self.lease_name)
        self.report(f"leader: stepped down (token {lease.token}) at {time.time():.3f}")
