"""The chaos harness of RELIABILITY.md: N real scheduler processes, faults, a checker.

Each worker is ``manage.py runscheduler --jobs chaos_tick`` with its own instance id and
the test timings (TTL 3 s, renew 1 s, renew deadline 2 s, poll 0.5 s). The workload
(``testproject/chaos``) runs a job every second that commits one effect row (no unique
constraint, so duplicates show) and a fenced update of a shared row whose history is
logged. After a heal-and-settle phase the checker reads the tables and computes the
metrics; any non-zero D, S, M or T fails.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import signal
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.databases import ScratchDatabase
from tests.support.processes import PYTHON, ROOT, child_env

TTL = 3.0
POLL = 0.5
CHAOS_ENV = {
    "HORIZONTAL_CHAOS": "1",
    "HORIZONTAL_LEASE_TTL": str(TTL),
    "HORIZONTAL_DEBUG_FAILPOINTS": "1",
}
CHAOS_TABLES = (
    "chaos_tickeffect",
    "chaos_fencedwrite",
    "chaos_sharedcounter",
    "horizontal_effect",
    "horizontal_jobattempt",
    "horizontal_jobrun",
    "horizontal_lease",
)
# Where a worker can be made to die or freeze: the runner's (after_claim, before_finish),
# the chaos job's (mid_job, before_fenced_write), the run's effect transaction
# (inside_effect: after run.effect(), the fence's lock held) and the lease heartbeat's
# (before_renew).
FAILPOINTS = (
    "after_claim",
    "mid_job",
    "inside_effect",
    "before_fenced_write",
    "before_finish",
    "before_renew",
)
ACTIONS = ("exit", "stop")
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def skewed(spec: str) -> dict[str, str]:
    """Environment that runs a worker on a fake wall clock (libfaketime: offset and rate).

    The monotonic clock stays real: the interpreter's timed waits compute absolute
    deadlines from it, and a faked one makes every ``Event.wait`` sleep for years.
    """
    if not Path(LIBFAKETIME).exists():
        raise AssertionError(f"{LIBFAKETIME} is missing: scripts/services installs faketime")
    return {
        "LD_PRELOAD": LIBFAKETIME,
        "FAKETIME": spec,
        "FAKETIME_DONT_RESET": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }


# "leader: acquired horizontal:scheduler (token 3) at 2026-12-01 09:01:02.345Z"
_LEADER = re.compile(r"leader: acquired \S+ \(token (\d+)\) at (\d{4}-\d\d-\d\d [\d:.]+)Z")


def _epoch(printed: str) -> float:
    """An instant as the scheduler prints it (format_instant), as seconds since the epoch."""
    return dt.datetime.fromisoformat(printed).replace(tzinfo=dt.UTC).timestamp()


@dataclass
class Worker:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    trigger_dir: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def leader_since(self) -> list[tuple[int, float]]:
        return [(int(t), _epoch(at)) for t, at in _LEADER.findall(self.output())]

    def arm(self, point: str, action: str) -> None:
        """Make this worker ``exit`` (like kill -9) or ``stop`` at its next ``point``."""
        assert point in FAILPOINTS and action in ACTIONS, (point, action)
        (self.trigger_dir / f"{self.name}.{point}.{action}").touch()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


# What a run's outcome line says when an expired holder's write was refused.
ZOMBIE_REJECTED = ("claim lost", "this result was not recorded")


@dataclass
class Metrics:
    duplicates: int
    lost: int
    stale_accepted: int
    token_regressions: int
    stuck: int
    slots: int
    attempts_lost: int = 0
    failover: list[float] = field(default_factory=list)

    def line(self) -> str:
        failover = ", ".join(f"{f:.2f}s" for f in self.failover) or "-"
        return (
            f"slots={self.slots} D={self.duplicates} L={self.lost} "
            f"S={self.stale_accepted} M={self.token_regressions} T={self.stuck} "
            f"Z_rejected={self.attempts_lost} F=[{failover}]"
        )


def process_state(worker: Worker) -> str:
    """The state letter of ``/proc/PID/stat`` ("T": stopped), or "" once it is gone."""
    try:
        stat = Path(f"/proc/{worker.process.pid}/stat").read_text()
    except FileNotFoundError:
        return ""
    return stat.rsplit(")", 1)[1].split()[0]


def as_utc(value: object) -> dt.datetime:
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    assert isinstance(value, dt.datetime)
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


class Cluster:
    def __init__(self, database: ScratchDatabase, workers: int) -> None:
        self.database = database
        self.dir = Path(tempfile.mkdtemp(prefix="hz-chaos-"))
        self.workers: list[Worker] = []
        self.failover: list[float] = []  # seconds, per fault a scenario injected
        self.frozen_write_locks = 0  # SQLite pauses undone (pause_any)
        database.reset(CHAOS_TABLES)
        database.query(
            "INSERT INTO chaos_sharedcounter (id, value, last_slot, last_token) "
            "VALUES (1, 0, '', 0)"
        )
        for i in range(workers):
            self.start_worker(f"w{i}")

    def start_worker(self, name: str, extra_env: dict[str, str] | None = None) -> Worker:
        log = self.dir / f"{name}.log"
        # Every failpoint armable with either action, one trigger file per (point, action).
        # And one shared trigger per (point, action): the first worker to reach the point
        # takes it (``arm_any``).
        points = ",".join(
            f"{point}="
            + "|".join(
                f"{action}_once:{self.dir / f'{who}.{point}.{action}'}"
                for action in ACTIONS
                for who in (name, "any")
            )
            for point in FAILPOINTS
        )
        env = child_env(
            {
                **self.database.env,
                **CHAOS_ENV,
                "HORIZONTAL_INSTANCE_ID": name,
                "HORIZONTAL_FAILPOINTS": points,
                **(extra_env or {}),
            }
        )
        process = subprocess.Popen(
            [
                PYTHON,
                str(ROOT / "manage.py"),
                "runscheduler",
                "--jobs",
                "chaos_tick",
                "--poll",
                str(POLL),
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        worker = Worker(name, process, log, self.dir)
        self.workers = [w for w in self.workers if w.name != name] + [worker]
        return worker

    def leader(self, timeout: float = 30) -> Worker:
        """The worker holding leadership now (the latest acquire among live workers)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.database.query(
                "SELECT owner FROM horizontal_lease WHERE name = 'horizontal:scheduler'"
            )
            if rows:
                for worker in self.workers:
                    if worker.name == rows[0][0] and worker.alive:
                        return worker
            time.sleep(0.1)
        raise AssertionError("no leader within the timeout")

    def arm_any(self, point: str, action: str, timeout: float = 30) -> tuple[Worker, bool]:
        """Make the first worker to reach ``point`` ``exit`` or ``stop`` there.

        Every ``runscheduler`` node runs slots (the leader only re-claims and catches up), so
        a fault "in a run" lands on whichever node is running one. Returns that worker, once
        it has exited or stopped, and whether it held the scheduler's lease then.
        """
        assert point in FAILPOINTS and action in ACTIONS, (point, action)
        trigger = self.dir / f"any.{point}.{action}"
        candidates = [worker for worker in self.workers if worker.alive]
        trigger.touch()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not trigger.exists():
                for worker in candidates:
                    gone = not worker.alive if action == "exit" else process_state(worker) == "T"
                    if gone:
                        rows = self.database.query(
                            "SELECT owner FROM horizontal_lease WHERE name = 'horizontal:scheduler'"
                        )
                        return worker, bool(rows) and rows[0][0] == worker.name
            time.sleep(0.05)
        raise AssertionError(f"no worker reached {point} within {timeout} s")

    def pause_any(self, point: str, tries: int = 5) -> tuple[Worker, bool, float]:
        """``arm_any(point, "stop")``: the paused worker, whether it led, when it froze.

        SIGSTOP freezes every thread of a process, and on SQLite one of them may be inside
        a write transaction at that instant (a heartbeat's renewal, the loop's claim): the
        file's one write lock is then frozen with it and no node can write until it
        resumes, which docs/jobs.md states and no fence can change. Such a pause is undone
        at once and the point armed again, so each point is measured on a pause that
        left the lock free.
        """
        for _ in range(tries):
            worker, was_leader = self.arm_any(point, "stop")
            paused_at = time.time()
            if self.database.vendor != "sqlite" or not self.database.write_locked():
                return worker, was_leader, paused_at
            os.kill(worker.process.pid, signal.SIGCONT)
            self.frozen_write_locks += 1
            time.sleep(TTL)
        raise AssertionError(f"every pause at {point} froze SQLite's write lock ({tries} tries)")

    def claims_of(self, worker: Worker) -> list[tuple[int, int]]:
        """The (run id, token) of the slots ``worker`` holds a running claim on."""
        rows = self.database.query(
            "SELECT id, token FROM horizontal_jobrun WHERE owner = %s AND status = 'running'",
            (worker.name,),
        )
        return [(int(run_id), int(token)) for run_id, token in rows]

    def taken_over_after(
        self, since: float, claims: list[tuple[int, int]], timeout: float = 30
    ) -> float:
        """Seconds from ``since`` until every one of ``claims`` was claimed with a newer token."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            left = [
                run_id
                for run_id, token in claims
                if self.database.query(
                    "SELECT 1 FROM horizontal_jobrun WHERE id = %s AND token = %s",
                    (run_id, token),
                )
            ]
            if not left:
                return time.time() - since
            time.sleep(0.1)
        raise AssertionError(
            f"claims {claims} not taken over within the timeout; {self.lock_report(claims)}"
        )

    def lock_report(self, claims: list[tuple[int, int]]) -> str:
        """What the server says about the runs and open transactions, for a failure."""
        runs = [
            self.database.query(
                "SELECT id, slot, owner, token, status, expires_at FROM horizontal_jobrun"
                " WHERE id = %s",
                (run_id,),
            )
            for run_id, _ in claims
        ]
        if self.database.vendor == "mysql":
            sql = (
                "SELECT trx_mysql_thread_id, trx_state, trx_started, trx_rows_locked, "
                "trx_query FROM information_schema.innodb_trx"
            )
        elif self.database.vendor == "postgresql":
            sql = (
                "SELECT pid, state, xact_start, wait_event_type, left(query, 120) "
                "FROM pg_stat_activity WHERE xact_start IS NOT NULL"
            )
        else:
            return f"runs {runs}"
        return f"runs {runs}; open transactions {self.database.query(sql)}"

    def fault_recovered_after(
        self, since: float, worker: Worker, was_leader: bool, claims: list[tuple[int, int]]
    ) -> None:
        """Record how long the fleet took to replace what ``worker`` held: its leadership
        (if it led) and its running claims (each re-claimed with a newer token)."""
        if was_leader:
            self.failover.append(self.new_leader_after(since, worker))
        if claims:
            self.failover.append(self.taken_over_after(since, claims))

    def new_leader_after(self, since: float, old: Worker, timeout: float = 30) -> float:
        """Seconds from ``since`` (wall clock) until another worker became leader."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            times = [
                at
                for w in self.workers
                if w is not old
                for _, at in w.leader_since()
                if at >= since
            ]
            if times:
                return min(times) - since
            time.sleep(0.1)
        raise AssertionError("no new leader within the timeout")

    def stop_all(self, timeout: float = 30) -> None:
        for worker in self.workers:
            if worker.alive:
                os.kill(worker.process.pid, signal.SIGCONT)
                worker.process.send_signal(signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.process.wait(timeout)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()

    def slots_done(self) -> int:
        return int(self.database.query("SELECT count(DISTINCT slot) FROM chaos_tickeffect")[0][0])

    def wait_for_slots(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.slots_done() >= count:
                return
            time.sleep(0.5)
        raise AssertionError(f"fewer than {count} slots ran within {timeout} s")

    def settle(self, seconds: float = TTL * 2 + 2) -> None:
        """Heal-and-settle: let expired claims be re-claimed and in-flight runs finish."""
        time.sleep(seconds)

    def heal_and_measure(
        self, seconds: float = TTL * 2 + 2, *, require_alive: bool = False
    ) -> Metrics:
        """Settle for ``seconds``, count stuck runs on the live cluster, stop it, measure."""
        self.settle(seconds)
        stuck = self.stuck_runs()
        if require_alive:
            dead = [w.name for w in self.workers if not w.alive]
            assert not dead, f"workers died: {dead}"
        self.stop_all()
        return self.metrics(stuck)

    def db_now(self) -> dt.datetime:
        sql = {
            "postgresql": "SELECT clock_timestamp()",
            "mysql": "SELECT UTC_TIMESTAMP(6)",
            "sqlite": "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')",
        }[self.database.vendor]
        return as_utc(self.database.query(sql)[0][0])

    def stuck_runs(self) -> int:
        """T, on the live cluster: runs whose claim expired over a TTL ago, not re-claimed."""
        now = self.db_now()
        rows = self.database.query(
            "SELECT expires_at FROM horizontal_jobrun WHERE job = 'chaos_tick' "
            "AND status = 'running'"
        )
        return sum(1 for (expires,) in rows if as_utc(expires) < now - dt.timedelta(seconds=TTL))

    def metrics(self, stuck: int) -> Metrics:
        db = self.database
        counts = dict(db.query("SELECT slot, count(*) FROM chaos_tickeffect GROUP BY slot"))
        duplicates = sum(n - 1 for n in counts.values() if n > 1)
        slots = sorted(counts)
        lost = 0
        if slots:
            first = dt.datetime.strptime(slots[0], "%Y-%m-%dT%H:%M:%SZ")
            last = dt.datetime.strptime(slots[-1], "%Y-%m-%dT%H:%M:%SZ")
            expected = int((last - first).total_seconds()) + 1
            lost = expected - len(counts)
        # S: per slot, a fenced write accepted after one with a higher token.
        stale = 0
        highest: dict[str, int] = defaultdict(int)
        for slot, token in db.query("SELECT slot, token FROM chaos_fencedwrite ORDER BY id"):
            if token < highest[slot]:
                stale += 1
            highest[slot] = max(highest[slot], token)
        # M: a run's token must equal its attempt count (each re-claim adds exactly one),
        # and the leader lease's token must be at least the number of acquisitions seen.
        regressions = db.query(
            "SELECT count(*) FROM horizontal_jobrun WHERE job = 'chaos_tick' "
            "AND token > 0 AND token <> attempt"
        )[0][0]
        acquisitions = sorted(t for w in self.workers for t, _ in w.leader_since())
        regressions += sum(1 for a, b in itertools.pairwise(acquisitions) if b <= a)
        # Z rejected: writes of an expired holder refused, in the body (``LeaseLost``,
        # ``FencedOut``: "claim lost") or at the finish, the run's own result ("this
        # result was not recorded"). On SQLite a resumed zombie's first statement may fail
        # on the write lock before its fence is asked (the body fails): then the finish is
        # the write its fence refuses.
        attempts_lost = sum(
            w.output().count(marker) for w in self.workers for marker in ZOMBIE_REJECTED
        )
        return Metrics(
            duplicates,
            lost,
            stale,
            int(regressions),
            int(stuck),
            len(slots),
            attempts_lost,
            list(self.failover),
        )
