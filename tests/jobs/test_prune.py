"""``manage.py prune_runs`` (horizontal/jobs/prune.py): old history goes, what is needed stays."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from horizontal import db
from horizontal.conf import conf
from horizontal.jobs import Run, job, registry
from horizontal.jobs.prune import delete_runs, prunable, prune_runs
from horizontal.jobs.slots import format_slot
from horizontal.models import Effect, JobAttempt, JobRun, Lease

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def scratch_registry() -> Iterator[None]:
    before = dict(registry.jobs)
    registry.jobs.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def put(job_name: str, days_ago: float, status: str, now: dt.datetime) -> JobRun:
    at = now - dt.timedelta(days=days_ago)
    run = JobRun.objects.create(
        job=job_name,
        slot=format_slot(at.replace(microsecond=0)),
        status=status,
        owner="node",
        trigger="schedule",
        claimed_at=at,
        heartbeat_at=at,
        expires_at=at + dt.timedelta(seconds=30),
        finished_at=None if status == "running" else at + dt.timedelta(seconds=1),
    )
    JobAttempt.objects.create(
        job_run=run,
        job=job_name,
        slot=run.slot,
        token=1,
        attempt=1,
        owner="node",
        trigger="schedule",
        claimed_at=at,
        started_at=at,
        outcome=status,
    )
    Effect.objects.create(key=f"{job_name}:{run.slot}", job_run=run, token=1)
    return run


def test_prune_keeps_running_runs_the_newest_slot_and_the_window_and_never_leases() -> None:
    def noop(run: Run) -> None:
        pass

    job("nightly", schedule="0 0 * * *", window=dt.timedelta(days=2))(noop)
    now = db.db_now(conf.DATABASE)
    gone = [put("nightly", 40, "succeeded", now), put("nightly", 39, "failed", now)]
    crashed = put("nightly", 38, "running", now)  # waiting to be re-claimed: kept
    inside_window = put("nightly", 1.5, "succeeded", now)  # older than 1 day, inside 2
    put("retired", 50, "succeeded", now)  # no longer registered: its newest slot stays
    old_retired = put("retired", 60, "succeeded", now)
    Lease.objects.create(
        name="old-lease",
        owner="x",
        token=7,
        expires_at=now - dt.timedelta(days=90),
        acquired_at=now - dt.timedelta(days=90),
    )
    assert prune_runs(dt.timedelta(days=1), keep=0, dry_run=True).runs == 3
    assert JobRun.objects.count() == 6

    pruned = prune_runs(dt.timedelta(days=1), keep=0)
    assert (pruned.runs, pruned.attempts, pruned.effects) == (3, 3, 3)
    left = set(JobRun.objects.values_list("pk", flat=True))
    assert left == {crashed.pk, inside_window.pk, JobRun.objects.get(job="retired").pk}
    assert not left & {run.pk for run in [*gone, old_retired]}
    assert JobAttempt.objects.count() == Effect.objects.count() == 3
    assert Lease.objects.filter(name="old-lease", token=7).exists()


def test_prune_runs_command_keeps_the_newest_runs_of_each_job() -> None:
    now = db.db_now(conf.DATABASE)
    for days in (10, 11, 12, 13):
        put("weekly", days, "succeeded", now)
    out = StringIO()
    call_command("prune_runs", "--older-than", "5", "--keep", "2", stdout=out)
    assert out.getvalue().strip() == "Deleted 2 runs, 2 attempts, 2 effect keys."
    kept = sorted(JobRun.objects.values_list("claimed_at", flat=True))
    assert [round((now - at).total_seconds() / 86400) for at in kept] == [11, 10]


def test_a_run_re_claimed_after_it_was_chosen_is_not_deleted() -> None:
    """Choosing and deleting are apart: an old failed slot re-run (``--retry``) in
    between keeps its run, its attempts and its effect keys; the rest of the batch goes."""
    from horizontal.jobs import gate

    def noop(run: Run) -> None:
        pass

    job("nightly", schedule="0 0 * * *", window=dt.timedelta(days=2))(noop)
    now = db.db_now(conf.DATABASE)
    failed = put("nightly", 40, "failed", now)
    other = put("nightly", 39, "succeeded", now)
    put("nightly", 1, "succeeded", now)  # the newest slot: kept
    chosen = prunable(dt.timedelta(days=1), keep=0)
    assert sorted(pk for pk, _ in chosen) == sorted([failed.pk, other.pk])

    rerun = gate.claim_slot(registry.jobs["nightly"], failed.slot, trigger="retry", retry=True)
    assert rerun is not None and rerun.claim.token == 2
    pruned = delete_runs(chosen)
    assert (pruned.runs, pruned.attempts, pruned.effects) == (1, 1, 1)
    assert not JobRun.objects.filter(pk=other.pk).exists()
    run = JobRun.objects.get(pk=failed.pk)
    assert (run.status, run.token) == ("running", 2)
    tokens = JobAttempt.objects.filter(job_run=run).order_by("token")
    assert [a.token for a in tokens] == [1, 2]
    assert Effect.objects.filter(job_run=run).count() == 1
    assert gate.finish(rerun, "succeeded", "")  # the re-run still finishes its own row
