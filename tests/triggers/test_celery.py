"""``horizontal.triggers.celery`` in-process: the task, the decorator, the period rules.

A real Celery app (in-memory broker, tasks run eagerly) on the test database; the
processes on real brokers are in ``test_celery_brokers.py``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from horizontal.jobs import Run, job, registry
from horizontal.models import JobRun, Lease
from horizontal.triggers.celery import (
    BEAT_LEASE,
    RUN_JOB_TASK,
    LeaderScheduler,
    current_run,
    every_to_cron,
    once_per_slot,
    register_jobs,
)

pytestmark = pytest.mark.django_db(transaction=True)

ran: list[str] = []


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    ran.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)


@pytest.fixture
def app() -> Celery:
    app = Celery("horizontal_triggers_unit", broker="memory://")
    app.conf.task_always_eager = True
    return app


def test_two_messages_for_one_tick_run_the_job_once_and_the_second_is_told_who_has_it(
    app: Celery,
) -> None:
    @job("hourly_report", schedule="0 * * * *")
    def hourly_report(run: Run) -> None:
        ran.append(run.slot)

    task = register_jobs(app)
    assert task.name == RUN_JOB_TASK
    first = task.apply(("hourly_report",)).get()
    second = app.tasks[RUN_JOB_TASK].apply(("hourly_report",)).get()
    assert len(ran) == 1
    assert [o["status"] for o in first] == ["succeeded"]
    assert [o["status"] for o in second] == ["taken"]
    assert second[0]["slot"] == first[0]["slot"] == ran[0]
    assert "already succeeded on" in second[0]["message"]


def test_a_decorated_periodic_task_runs_once_per_slot_under_its_namespaced_name(
    app: Celery,
) -> None:
    @app.task(name="billing.nightly_cleanup")
    @once_per_slot(cron="0 3 * * *")
    def nightly_cleanup(limit: int) -> str:
        run = current_run()
        assert run is not None
        ran.append(run.slot)
        return f"cleaned {limit}"

    assert nightly_cleanup.apply((10,)).get() == "cleaned 10"
    assert nightly_cleanup.apply((10,)).get() is None  # the slot is taken: the body never ran
    assert len(ran) == 1
    row = JobRun.objects.get()
    assert (row.job, row.slot, row.status) == (
        "celery:billing.nightly_cleanup",
        ran[0],
        "succeeded",
    )
    assert "billing.nightly_cleanup" not in registry.jobs  # not a registered job
    assert current_run() is None


def test_every_becomes_a_cron_aligned_to_the_minute_hour_or_day() -> None:
    assert every_to_cron(1) == "* * * * * *"
    assert every_to_cron(15) == "* * * * * */15"
    assert every_to_cron(dt.timedelta(minutes=5)) == "*/5 * * * *"
    assert every_to_cron(7200) == "0 */2 * * *"
    assert every_to_cron(dt.timedelta(days=1)) == "0 0 * * *"
    for drifting in (7, 90, 0.5, 0, 5 * 3600, 2 * 86400):
        with pytest.raises(ValueError):
            every_to_cron(drifting)


def test_the_decorator_refuses_what_it_cannot_run(app: Celery) -> None:
    with pytest.raises(TypeError):
        once_per_slot()
    with pytest.raises(TypeError):
        once_per_slot(cron="* * * * *", every=60)
    with pytest.raises(ValueError, match="E010"):
        once_per_slot(cron="61 * * * *")
    with pytest.raises(TypeError, match=r"under @app\.task"):
        once_per_slot(every=60)(app.task(lambda: None))


def test_of_two_leader_schedulers_only_the_lease_holder_sends(app: Celery, tmp_path: Path) -> None:
    app.conf.beat_schedule = {"often": {"task": "triggers.noop", "schedule": 0.01}}
    sent: list[str] = []

    class Recording(LeaderScheduler):
        def apply_entry(self, entry: Any, producer: Any = None) -> None:
            sent.append(self.name)

    first = Recording(app, schedule_filename=str(tmp_path / "first"), lazy=False)
    second = Recording(app, schedule_filename=str(tmp_path / "second"), lazy=False)
    first.name, second.name = "first", "second"
    try:
        for _ in range(5):
            time.sleep(0.02)
            first.tick()
            second.tick()
        assert set(sent) == {"first"}
        lease = Lease.objects.get(name=BEAT_LEASE)
        first.close()  # releases: the other takes over at its next tick
        sent.clear()
        for _ in range(3):
            time.sleep(0.02)
            second.tick()
        assert set(sent) == {"second"}
        assert Lease.objects.get(name=BEAT_LEASE).token == lease.token + 1
    finally:
        second.close()
