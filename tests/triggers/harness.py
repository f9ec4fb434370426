"""What the trigger tests share: the scratch database, real processes, and the checker.

Every process runs with ``tests.triggers.settings`` against one scratch PostgreSQL
database. The checker reads ``triggers_workload_triggereffect`` (no unique constraint)
and ``horizontal_jobrun`` and reports, per job: slots on record, ``done`` rows per slot
(D: more than one), ticks lost between the first and the last done slot (L), runs
still claimed (T), and the killed slot's tokens.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.databases import ScratchDatabase
from tests.support.processes import PYTHON, ROOT, child_env

TTL = 3.0
SETTINGS = {"DJANGO_SETTINGS_MODULE": "tests.triggers.settings"}
# Seconds a short run sends triggers for (CI); TRIGGERS_RUN_SECONDS=300 for the long one.
RUN_SECONDS = float(os.environ.get("TRIGGERS_RUN_SECONDS", "12"))
TABLES = (
    "triggers_workload_triggereffect",
    "django_tasks_database_dbtaskresult",
    "horizontal_effect",
    "horizontal_jobrun",
    "horizontal_lease",
)


def scratch_database() -> ScratchDatabase:
    return ScratchDatabase(
        "postgresql", extra_env={**SETTINGS, "HORIZONTAL_LEASE_TTL": str(TTL)}
    ).create()


def start(
    args: Sequence[str], db: ScratchDatabase, name: str, extra: Mapping[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start ``python ARGS`` in the project root as node ``name``.

    Its output goes to ``$TMPDIR/horizontal-triggers-<pytest pid>-<name>.log``, kept for a
    look after a failure.
    """
    path = Path(tempfile.gettempdir()) / f"horizontal-triggers-{os.getpid()}-{name}.log"
    log = path.open("w")
    return subprocess.Popen(
        [PYTHON, *args],
        cwd=ROOT,
        env=child_env({**db.env, "HORIZONTAL_INSTANCE_ID": name, **(extra or {})}),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop(processes: Sequence[subprocess.Popen[str]], timeout: float = 15) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(
    db: ScratchDatabase, sql: str, timeout: float, params: tuple[object, ...] = ()
) -> list[tuple[object, ...]]:
    """Poll ``sql`` until it returns rows; the rows."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = db.query(sql, params)
        if rows:
            return rows
        time.sleep(0.05)
    raise AssertionError(f"nothing within {timeout} s: {sql}")


@dataclass
class Kill:
    """A worker killed with SIGKILL while it ran ``slot``."""

    job: str
    slot: str
    pid: int
    at: float = field(default_factory=time.time)


def kill_mid_job(db: ScratchDatabase, job: str, pids: set[int], timeout: float = 20) -> Kill:
    """SIGKILL the worker that is inside ``job``'s body (started, not done) right now."""
    rows = wait_for(
        db,
        """
        SELECT s.slot, s.pid FROM triggers_workload_triggereffect s
        WHERE s.job = %s AND s.phase = 'started' AND s.token = 1 AND NOT EXISTS (
            SELECT 1 FROM triggers_workload_triggereffect d
            WHERE d.job = s.job AND d.slot = s.slot AND d.phase = 'done')
        ORDER BY s.id DESC LIMIT 1
        """,
        timeout,
        (job,),
    )
    slot, pid = str(rows[0][0]), int(str(rows[0][1]))
    assert pid in pids, f"{job} ran in pid {pid}, not one of the workers {sorted(pids)}"
    os.kill(pid, signal.SIGKILL)
    return Kill(job, slot, pid)


@dataclass
class Figures:
    job: str
    slots: int  # slots with a done row
    bodies_per_slot: dict[int, int]  # done rows per slot -> how many slots
    lost: list[str]  # ticks between the first and last done slot without a done row
    stuck: int  # runs still claimed after settle
    first: str
    last: str

    @property
    def duplicates(self) -> int:
        return sum((n - 1) * count for n, count in self.bodies_per_slot.items() if n > 1)

    def line(self) -> str:
        return (
            f"{self.job}: {self.slots} slots {self.first}..{self.last}, bodies per slot "
            f"{dict(sorted(self.bodies_per_slot.items()))}, D={self.duplicates}, "
            f"L={len(self.lost)}, T={self.stuck}"
        )


def figures(db: ScratchDatabase, job: str, period: int, run_job: str | None = None) -> Figures:
    """The checker for one job (``run_job``: its name in horizontal_jobrun, if another)."""
    done = Counter(
        str(slot)
        for (slot,) in db.query(
            "SELECT slot FROM triggers_workload_triggereffect WHERE job = %s AND phase = 'done'",
            (job,),
        )
    )
    assert done, f"{job}: no slot ran"
    first, last = min(done), max(done)
    start = dt.datetime.fromisoformat(first.replace("Z", "+00:00"))
    end = dt.datetime.fromisoformat(last.replace("Z", "+00:00"))
    expected = []
    tick = start
    while tick <= end:
        expected.append(tick.strftime("%Y-%m-%dT%H:%M:%SZ"))
        tick += dt.timedelta(seconds=period)
    stuck = db.query(
        "SELECT count(*) FROM horizontal_jobrun WHERE job = %s AND status = 'running'",
        (run_job or job,),
    )[0][0]
    return Figures(
        job=job,
        slots=len(done),
        bodies_per_slot=dict(Counter(done.values())),
        lost=[t for t in expected if t not in done],
        stuck=int(str(stuck)),
        first=first,
        last=last,
    )


def killed_slot(db: ScratchDatabase, kill: Kill, run_job: str | None = None) -> dict[str, object]:
    """What became of the killed slot: its bodies' tokens, its row, and how long it took."""
    started = db.query(
        "SELECT token FROM triggers_workload_triggereffect "
        "WHERE job = %s AND slot = %s AND phase = 'started' ORDER BY id",
        (kill.job, kill.slot),
    )
    done = db.query(
        "SELECT token, created_at FROM triggers_workload_triggereffect "
        "WHERE job = %s AND slot = %s AND phase = 'done'",
        (kill.job, kill.slot),
    )
    row = db.query(
        "SELECT status, token, attempt, triggered_by, claimed_at FROM horizontal_jobrun "
        "WHERE job = %s AND slot = %s",
        (run_job or kill.job, kill.slot),
    )
    reclaimed = None
    if row:
        claimed_at = row[0][4]
        assert isinstance(claimed_at, dt.datetime)
        reclaimed = round(claimed_at.timestamp() - kill.at, 2)
    return {
        "slot": kill.slot,
        "started_tokens": [t for (t,) in started],
        "done_tokens": [t for (t, _) in done],
        "row": row[0][:4] if row else None,
        "reclaimed_after_kill_s": reclaimed,
    }
