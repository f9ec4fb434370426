"""Issue 15 target 3: a scheduler poll costs what its due jobs cost, not its job count.

    python -m benchmarks.scheduler       (PostgreSQL on 127.0.0.1:5432)

Three schedulers side by side, each the leader of a lease of its own, with 10, 100 and
1,000 registered jobs of which 10 are due at every poll (``* * * * * *``; the others
yearly). Once a second each one polls (in turn, the order rotating), and the poll is
timed until its due runs have ended (``tick(wait=True)``, 10 worker threads).
Statements are counted on every connection the poll and its worker threads open.
Target: the 1,000-job poll within 1.2x of the 10-job poll.

For contrast, the loop the scheduler had before (``run_job`` for every job at every
poll, in one thread), timed over the same registries.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.jobs import PG_SERVER, _create_pg_database, _drop_pg_database, _setup_django

SIZES = (10, 100, 1000)
DUE = 10
POLLS = int(os.environ.get("BENCH_POLLS", "12"))


class StatementCounter:
    """Counts every statement on every connection opened while it is installed."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        self.count += 1
        return execute(sql, params, many, context)

    def install(self) -> None:
        from django.db import connections
        from django.db.backends.signals import connection_created

        def hook(sender: object, connection: Any, **kwargs: Any) -> None:
            if self not in connection.execute_wrappers:
                connection.execute_wrappers.append(self)

        connection_created.connect(hook, weak=False)
        for connection in connections.all():
            connection.execute_wrappers.append(self)


def _register(size: int) -> list[Any]:
    from horizontal.jobs import job, registry

    def body(run: object) -> None:
        return None

    names = [f"due{size}_{i}" for i in range(DUE)]
    names += [f"idle{size}_{i}" for i in range(size - DUE)]
    for name in names:
        schedule = "* * * * * *" if name.startswith("due") else "0 0 1 1 *"
        job(name, schedule=schedule)(body)
    return [registry.jobs[name] for name in names]


def _next_second() -> None:
    now = time.time()
    time.sleep(1.02 - (now - int(now)))


def main() -> None:
    os.environ["DJANGO_DEBUG"] = "0"
    name = _create_pg_database()
    try:
        _setup_django(f"{PG_SERVER}/{name}")
        from horizontal.jobs.runner import run_job
        from horizontal.jobs.scheduler import Scheduler

        counter = StatementCounter()
        counter.install()
        lines: list[str] = []
        schedulers = {
            size: Scheduler(
                _register(size), lease_name=f"bench:{size}", report=lines.append, concurrency=DUE
            )
            for size in SIZES
        }
        for size, scheduler in schedulers.items():
            # Start-up: every job is looked at once (catch-up), DUE threads at a time.
            for _ in range(size // DUE + 1):
                scheduler.tick(wait=True)
        times: dict[int, list[float]] = {size: [] for size in SIZES}
        statements: dict[int, list[int]] = {size: [] for size in SIZES}
        ran: dict[int, list[int]] = {size: [] for size in SIZES}
        for poll in range(POLLS):
            _next_second()
            order = SIZES[poll % 3 :] + SIZES[: poll % 3]
            for size in order:
                counter.count = 0
                started = time.perf_counter()
                outcomes = schedulers[size].tick(wait=True)
                times[size].append(time.perf_counter() - started)
                statements[size].append(counter.count)
                ran[size].append(sum(1 for o in outcomes if o.status == "succeeded"))
        for scheduler in schedulers.values():
            scheduler.shutdown()
            scheduler.step_down(release=True)

        base = statistics.median(times[SIZES[0]])
        print(f"one poll with {DUE} due jobs, PostgreSQL, median of {POLLS} polls")
        print("  registered   ms/poll   ratio   statements/poll   due runs/poll")
        for size in SIZES:
            median = statistics.median(times[size])
            print(
                f"  {size:>10}   {median * 1000:7.1f}   {median / base:5.2f}x   "
                f"{statistics.median(statements[size]):>15.0f}   "
                f"{statistics.median(ran[size]):>13.0f}"
            )
        worst = max(statistics.median(times[s]) for s in SIZES) / base
        print(f"  worst ratio {worst:.2f}x   (target <= 1.20)")

        # The loop before: every registered job's run_job at every poll.
        print("for contrast, the previous loop (run_job for every job at every poll):")
        for size in SIZES:
            jobs = schedulers[size].jobs
            samples, counts = [], []
            for _ in range(3 if size < 1000 else 1):
                _next_second()
                counter.count = 0
                started = time.perf_counter()
                for job in jobs:
                    run_job(job.name)
                samples.append(time.perf_counter() - started)
                counts.append(counter.count)
            print(
                f"  {size:>10}   {statistics.median(samples) * 1000:7.1f} ms/poll   "
                f"{statistics.median(counts):>6.0f} statements/poll"
            )
        print(f"(measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)")
    finally:
        from django.db import connections

        connections.close_all()
        _drop_pg_database(name)


if __name__ == "__main__":
    main()
