"""``@job(executor="tasks")`` in-process: what ``run_job`` hands off, and when not again.

On the test settings' default task backend (the immediate one: the task runs inside
``enqueue``), so one call shows the whole path: hand-off, claim through the gate, body.
The workers of a real database backend are in ``test_tasks.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from horizontal.jobs import OutcomeStatus, Run, job, registry, run_job
from horizontal.models import JobRun
from horizontal.triggers import tasks

pytestmark = pytest.mark.django_db(transaction=True)

ran: list[str] = []


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    ran.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)


def test_a_due_slot_is_handed_to_the_task_backend_and_run_there_once() -> None:
    @job("export_orders", schedule="*/5 * * * *", executor="tasks")
    def export_orders(run: Run) -> None:
        ran.append(f"{run.slot}:{run.token}")

    first = run_job("export_orders")
    assert [o.status for o in first] == [OutcomeStatus.HANDED_OFF]
    assert "handed off to task backend 'default'" in first[0].message
    assert len(ran) == 1  # the immediate backend ran it inside enqueue
    again = run_job("export_orders")
    assert [o.status for o in again] == [OutcomeStatus.TAKEN]
    assert len(ran) == 1
    row = JobRun.objects.get()
    assert (row.slot, row.status, row.token) == (first[0].slot, "succeeded", 1)


def test_the_run_slot_task_goes_through_the_gate_for_duplicate_deliveries() -> None:
    @job("export_invoices", schedule="*/5 * * * *", executor="tasks")
    def export_invoices(run: Run) -> None:
        ran.append(run.slot)

    slot = run_job("export_invoices")[0].slot
    assert slot is not None
    for _ in range(3):  # three more deliveries of the same slot
        result = tasks.run_slot.enqueue(job="export_invoices", slot=slot)
        assert result.return_value["status"] == "taken"
    assert len(ran) == 1


def test_an_unclaimed_slot_is_queued_again_only_after_the_jobs_ttl() -> None:
    handoffs = tasks._HandOffs()
    assert handoffs.take(("job", "slot"), ttl=0.2)
    assert not handoffs.take(("job", "slot"), ttl=0.2)
    assert handoffs.take(("job", "other slot"), ttl=0.2)
    time.sleep(0.25)
    assert handoffs.take(("job", "slot"), ttl=0.2)


def test_an_unknown_executor_is_refused_when_the_job_runs() -> None:
    @job("odd_executor", schedule="* * * * *", executor="threads")  # type: ignore[arg-type]
    def odd(run: Run) -> None:
        ran.append(run.slot)

    with pytest.raises(Exception, match="unknown executor 'threads'"):
        run_job("odd_executor")
    assert ran == []
