"""A second producer for the django.tasks test: enqueue each job's latest slot twice, often.

``python -m tests.triggers.duplicate_enqueues SECONDS JOB...``: every half second, for the
latest tick of each job on the database clock, two more ``run_slot`` tasks beside the one
the scheduler's leader enqueued, so every slot is delivered at least three times.
"""

from __future__ import annotations

import sys
import time

import django


def main(seconds: float, names: list[str]) -> None:
    django.setup()
    from horizontal.conf import conf
    from horizontal.db import db_now
    from horizontal.jobs import registry
    from horizontal.jobs.slots import format_slot, latest_tick
    from horizontal.triggers.tasks import run_slot

    jobs = [registry.jobs[name] for name in names]
    deadline = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < deadline:
        now = db_now(conf.DATABASE)
        for job in jobs:
            tick = latest_tick(job, now)
            assert tick is not None
            for _ in range(2):
                run_slot.enqueue(job=job.name, slot=format_slot(tick))
                sent += 1
        time.sleep(0.5)
    print(f"duplicate enqueues: {sent}")


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2:])
