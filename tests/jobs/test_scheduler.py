"""``manage.py runscheduler`` as real processes, outside the chaos suite.

The chaos suite (tests/chaos) runs under one Django version only; these run under every
supported version: two schedulers elect one leader, each slot runs once, and SIGTERM
ends both cleanly with the lease handed back.
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from tests.chaos.harness import CHAOS_ENV, Cluster, as_utc
from tests.support.databases import ScratchDatabase

pytestmark = pytest.mark.multiprocess


@pytest.fixture(params=["sqlite", "postgresql"])
def scheduler_db(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    database = ScratchDatabase(request.param, extra_env=CHAOS_ENV).create()
    yield database
    database.drop()


def test_two_schedulers_one_leader_each_slot_once(scheduler_db: ScratchDatabase) -> None:
    cluster = Cluster(scheduler_db, workers=2)
    try:
        cluster.wait_for_slots(4, timeout=60)
        leader = cluster.leader()
    finally:
        for worker in cluster.workers:
            worker.process.send_signal(signal.SIGTERM)
        for worker in cluster.workers:
            worker.process.wait(30)
    metrics = cluster.metrics(stuck=0)
    assert (metrics.duplicates, metrics.lost, metrics.token_regressions) == (0, 0, 0)
    assert [w.process.returncode for w in cluster.workers] == [0, 0]
    # Any scheduler may run a slot (the gate decides); the leader handed its lease back.
    runners = {owner for (owner,) in scheduler_db.query("SELECT owner FROM chaos_tickeffect")}
    assert runners <= {w.name for w in cluster.workers}, runners
    assert "leader: stepped down (token 1)" in leader.output()
    ((token, expires_at),) = scheduler_db.query(
        "SELECT token, expires_at FROM horizontal_lease WHERE name = 'horizontal:scheduler'"
    )
    assert token == 1
    assert as_utc(expires_at) <= cluster.db_now(), "the lease was not released"


# In-process: the loop's own behaviour, on the test database.

ISO = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z"


@pytest.fixture
def own_registry() -> Iterator[None]:
    from horizontal.jobs import registry

    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)


@pytest.mark.django_db(transaction=True)
def test_hardening_03_one_job_that_cannot_run_does_not_stop_the_others(
    own_registry: None, caplog: pytest.LogCaptureFixture
) -> None:
    from horizontal.jobs import Run, job, registry
    from horizontal.jobs.scheduler import Scheduler

    ran: list[str] = []

    def record(run: Run) -> None:
        ran.append(run.slot)

    job("a_never", schedule="0 0 30 2 *")(record)  # passed E010, and killed the loop
    job("b_minutely", schedule="* * * * *")(record)
    lines: list[str] = []
    scheduler = Scheduler(
        [registry.jobs["a_never"], registry.jobs["b_minutely"]],
        report=lines.append,
        lease_name="test:scheduler",
    )
    try:
        with caplog.at_level("ERROR", logger="horizontal.scheduler"):
            first = scheduler.tick(wait=True)
            second = scheduler.tick(wait=True)
    finally:
        scheduler.shutdown()
        scheduler.step_down(release=True)
    assert [o.job for o in first] == ["b_minutely"] and ran, lines
    # Not due again within the minute: the heap holds its next tick (or it is the next
    # minute's slot, run); a_never has no next tick and is not looked at again.
    assert [o.job for o in second] in ([], ["b_minutely"])
    failures = [r.getMessage() for r in caplog.records if "could not run" in r.getMessage()]
    assert len(failures) == 1, failures  # rate-limited: once, not once per poll
    assert "job a_never could not run, the other jobs go on: InvalidJob" in failures[0]
    assert "horizontal.E018" in failures[0]


@pytest.mark.django_db(transaction=True)
def test_hardening_15_instants_are_iso_and_a_follower_says_who_leads() -> None:
    from horizontal.jobs.scheduler import Scheduler

    leader_lines: list[str] = []
    follower_lines: list[str] = []
    leader = Scheduler([], report=leader_lines.append, lease_name="test:scheduler")
    follower = Scheduler([], report=follower_lines.append, lease_name="test:scheduler")
    try:
        leader.tick()
        follower.tick()
        follower.tick()  # once per stretch as follower, not once per poll
    finally:
        leader.step_down(release=True)
        follower.step_down(release=True)
    assert len(leader_lines) == 2, leader_lines
    assert re.fullmatch(rf"leader: acquired test:scheduler \(token 1\) at {ISO}", leader_lines[0])
    assert re.fullmatch(rf"leader: stepped down \(token 1\) at {ISO}", leader_lines[1])
    assert len(follower_lines) == 1, follower_lines
    assert re.fullmatch(
        rf"follower: test:scheduler is held by \S+ \(token 1, until {ISO} unless renewed\);"
        rf" standing by, at {ISO}",
        follower_lines[0],
    ), follower_lines


def test_due_heap_pops_only_what_is_due_and_the_newest_mark_wins() -> None:
    import datetime as dt

    from horizontal.jobs.scheduler import DueHeap

    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    heap = DueHeap()
    for i in range(1000):
        heap.at(f"idle{i}", t0 + dt.timedelta(days=1))
    heap.at("soon", t0 + dt.timedelta(seconds=5))
    heap.at("now", t0)
    assert heap.pop_due(t0) == ["now"]
    heap.at("soon", t0 + dt.timedelta(seconds=1))  # earlier: wins
    heap.at("soon", t0 + dt.timedelta(seconds=9))  # later than the mark: ignored
    heap.replace("idle0", t0)  # replace moves a mark later or earlier
    assert sorted(heap.pop_due(t0 + dt.timedelta(seconds=2))) == ["idle0", "soon"]
    assert heap.pop_due(t0 + dt.timedelta(seconds=30)) == []  # the stale entry is dropped
    heap.at("idle1", None)  # never again
    assert len(heap.pop_due(t0 + dt.timedelta(days=2))) == 998


@pytest.mark.django_db(transaction=True)
def test_issue15_a_poll_looks_only_at_due_jobs_whatever_the_job_count(
    own_registry: None,
) -> None:
    from horizontal.jobs import Run, job, registry
    from horizontal.jobs.scheduler import Scheduler

    def idle(run: Run) -> None:
        raise AssertionError("not due")

    for i in range(150):
        job(f"yearly_{i:03d}", schedule="0 0 1 1 *")(idle)
    job("every_second", schedule="* * * * * *")(lambda run: None)
    jobs = [registry.jobs[n] for n in registry.names() if n.startswith(("yearly", "every"))]
    scheduler = Scheduler(jobs, report=lambda line: None, lease_name="test:heap", concurrency=50)
    try:
        for _ in range(4):  # start-up: every job looked at once, 50 at a time
            scheduler.tick(wait=True)
        time.sleep(1.05)
        outcomes = scheduler.tick(wait=True)
    finally:
        scheduler.shutdown()
        scheduler.step_down(release=True)
    assert {o.job for o in outcomes} == {"every_second"}, outcomes


@pytest.mark.django_db(transaction=True)
def test_stop_hands_back_a_slot_running_in_a_worker_thread(own_registry: None) -> None:
    from horizontal.db import db_now
    from horizontal.jobs import OutcomeStatus, Run, job, registry
    from horizontal.jobs.scheduler import Scheduler
    from horizontal.models import JobRun

    started = threading.Event()

    def long(run: Run) -> None:
        started.set()
        while True:
            run.check()
            time.sleep(0.05)

    job("long_minutely", schedule="* * * * *")(long)
    lines: list[str] = []
    scheduler = Scheduler(
        [registry.jobs["long_minutely"]], report=lines.append, lease_name="test:stop", poll=0.2
    )
    loop = threading.Thread(target=scheduler.run)
    loop.start()
    assert started.wait(20), lines
    scheduler.stop()
    loop.join(20)
    assert not loop.is_alive()
    row = JobRun.objects.get(job="long_minutely")
    # Handed back: its claim expired at once (re-claimable by the next node, token + 1).
    assert row.status == JobRun.Status.RUNNING and row.expires_at <= db_now("default"), row
    assert any("interrupted, claim handed back" in line for line in lines), lines
    assert any(line.startswith("leader: stepped down") for line in lines), lines
    assert OutcomeStatus.INTERRUPTED == "interrupted"


@pytest.mark.django_db(transaction=True)
def test_a_follower_claims_the_current_slot_and_leaves_a_backlog_to_the_leader(
    own_registry: None,
) -> None:
    import datetime as dt

    from horizontal.db import db_now
    from horizontal.jobs import Run, gate, job, registry
    from horizontal.jobs.runner import run_job
    from horizontal.jobs.slots import format_slot, latest_tick
    from horizontal.models import JobRun

    ran: list[str] = []

    def record(run: Run) -> None:
        ran.append(run.slot)

    job("backlogged", schedule="* * * * *", catchup="all", window=3600)(record)
    backlogged = registry.jobs["backlogged"]
    tick = latest_tick(backlogged, db_now("default"))
    assert tick is not None
    gate.record_slot(
        backlogged, format_slot(tick - dt.timedelta(minutes=3)), JobRun.Status.SKIPPED_OVERLAP
    )
    assert run_job("backlogged", catch_up=False) == []  # three ticks due: the leader's
    assert ran == []
    leader = run_job("backlogged")
    assert len(ran) >= 3 and ran == sorted(ran), (ran, leader)  # oldest first
    job("current", schedule="* * * * *")(record)
    [outcome] = run_job("current", catch_up=False)
    assert outcome.status == "succeeded"


@pytest.mark.django_db(transaction=True)
def test_a_paused_job_is_not_claimed_by_the_scheduler_and_is_said_once(
    own_registry: None,
) -> None:
    """Issue 13: the pause (``horizontal_jobcontrol``) is honoured by ``runscheduler``,
    which says so once per pause, not every poll, and runs the job again once resumed."""
    import datetime as dt

    from horizontal.jobs import Run, job, registry
    from horizontal.jobs.control import pause_job, resume_job
    from horizontal.jobs.report import OutcomeStatus
    from horizontal.jobs.scheduler import Scheduler
    from horizontal.models import JobRun

    ran: list[str] = []

    def record(run: Run) -> None:
        ran.append(run.slot)

    job("paused_minutely", schedule="* * * * *")(record)
    pause_job("paused_minutely", by="ops", note="bad upstream data")
    lines: list[str] = []
    scheduler = Scheduler(
        [registry.jobs["paused_minutely"]], report=lines.append, lease_name="test:scheduler"
    )
    never = dt.datetime.min.replace(tzinfo=dt.UTC)
    try:
        first = scheduler.tick(wait=True)
        scheduler.due.at("paused_minutely", never)  # due again at the next poll
        second = scheduler.tick(wait=True)
        resume_job("paused_minutely", by="ops")
        scheduler.due.at("paused_minutely", never)
        third = scheduler.tick(wait=True)
    finally:
        scheduler.shutdown()
        scheduler.step_down(release=True)
    assert [o.status for o in first] == [OutcomeStatus.PAUSED], first
    assert [o.status for o in second] == [OutcomeStatus.PAUSED], second
    said = [line for line in lines if "paused_minutely: paused by ops" in line]
    assert len(said) == 1 and "(bad upstream data); not run" in said[0], lines
    assert [o.status for o in third] == [OutcomeStatus.SUCCEEDED] and len(ran) == 1, third
    assert JobRun.objects.filter(job="paused_minutely").count() == 1
