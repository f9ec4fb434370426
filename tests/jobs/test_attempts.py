"""Every attempt on record (issue 13): the gate's claim, finish and hand-back write them.

In-process on each real database: a crashed attempt re-claimed shows both attempts, the
crashed one ``abandoned``; a failure and a hand-back say how they ended; pause and resume
are honoured by ``run_job``; the signals carry their documented arguments.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from horizontal import db, signals
from horizontal.conf import conf
from horizontal.jobs import Run, gate, job, registry, run_job
from horizontal.jobs.control import pause_job, resume_job
from horizontal.jobs.report import OutcomeStatus, exit_code
from horizontal.jobs.run import Interrupted
from horizontal.jobs.slots import format_slot
from horizontal.models import JobAttempt, JobRun

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    before = dict(registry.jobs)
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def attempts(alias: str, name: str) -> list[tuple[int, str, str, str]]:
    rows = JobAttempt.objects.using(alias).filter(job=name).order_by("token")
    return [(a.token, a.owner, a.trigger, a.outcome) for a in rows]


def test_a_crashed_attempt_re_claimed_leaves_both_attempts_the_first_abandoned(
    db_alias: str, settings: Any
) -> None:
    def boom(run: Run) -> None:
        raise ValueError("third time")

    job("nightly", schedule="0 0 * * *", ttl=0.3)(boom)
    slot = format_slot(db.db_now(conf.DATABASE).replace(hour=0, minute=0, second=0, microsecond=0))
    settings.HORIZONTAL_INSTANCE_ID = "crasher"
    crashed = gate.claim_slot(registry.jobs["nightly"], slot, trigger="schedule")
    assert crashed is not None  # ... and this process never finishes it: a crash
    time.sleep(0.4)
    settings.HORIZONTAL_INSTANCE_ID = "rescuer"
    [outcome] = run_job("nightly")
    assert outcome.status == OutcomeStatus.FAILED and outcome.token == 2
    assert attempts(db_alias, "nightly") == [
        (1, "crasher", "schedule", "abandoned"),
        (2, "rescuer", "retry", "failed"),
    ]
    first, second = JobAttempt.objects.using(db_alias).filter(job="nightly").order_by("token")
    assert first.error == "claim expired; taken over by rescuer with token 2"
    assert first.finished_at is not None and first.finished_at >= first.claimed_at
    assert "ValueError: third time" in second.error
    assert second.finished_at is not None and second.started_at == second.claimed_at
    run = JobRun.objects.using(db_alias).get(job="nightly")
    assert {a.job_run_id for a in (first, second)} == {run.pk}
    assert second.finished_at == run.finished_at  # written by the same finish


def test_a_handed_back_attempt_ends_interrupted(db_alias: str) -> None:
    job("handed", schedule="0 0 * * *")(lambda run: None)
    slot = format_slot(db.db_now(conf.DATABASE).replace(hour=0, minute=0, second=0, microsecond=0))
    attempt = gate.claim_slot(registry.jobs["handed"], slot, trigger="manual")
    assert attempt is not None and gate.hand_back(attempt)
    assert not gate.hand_back(attempt)  # once
    assert [o for _, _, _, o in attempts(db_alias, "handed")] == ["interrupted"]


def test_an_error_raised_over_an_interrupt_ends_interrupted(db_alias: str) -> None:
    # SIGTERM in the middle of pymysql's read of a COMMIT's reply: the driver's cleanup on
    # the cut connection raises over the interrupt. The claim is handed back all the same.
    def cut(run: Run) -> None:
        try:
            raise Interrupted("SIGTERM")
        finally:
            raise ConnectionError("cleanup on the connection the signal cut")

    def broken(run: Run) -> None:
        try:
            raise ValueError("a job's own error")
        finally:
            raise ConnectionError("cleanup")

    job("cut", schedule="0 0 * * *")(cut)
    job("broken", schedule="0 0 * * *")(broken)
    [outcome] = run_job("cut")
    assert outcome.status == OutcomeStatus.INTERRUPTED
    assert [o for _, _, _, o in attempts(db_alias, "cut")] == ["interrupted"]
    [outcome] = run_job("broken")
    assert outcome.status == OutcomeStatus.FAILED


def test_a_paused_job_is_not_run_by_any_trigger_until_resumed(db_alias: str) -> None:
    ran: list[str] = []
    job("pausable", schedule="* * * * *")(lambda run: ran.append(run.slot))
    pause_job("pausable", by="ops", note="bad data upstream")
    for outcomes in (run_job("pausable"), run_job("pausable", slot="2026-01-01T00:00:00Z")):
        [outcome] = outcomes
        assert outcome.status == OutcomeStatus.PAUSED and exit_code(outcomes) == 0
        assert "pausable: paused by ops at " in outcome.message
        assert "(bad data upstream); not run" in outcome.message
        assert "manage.py jobs --resume pausable" in outcome.message
    assert ran == [] and not JobRun.objects.using(db_alias).exists()
    resume_job("pausable", by="ops")
    [outcome] = run_job("pausable")
    assert outcome.status == OutcomeStatus.SUCCEEDED and len(ran) == 1


def test_signals_carry_their_documented_arguments(db_alias: str, settings: Any) -> None:
    settings.HORIZONTAL_INSTANCE_ID = "signalled"
    got: list[tuple[str, dict[str, Any]]] = []

    def receiver(name: str) -> Any:
        def receive(sender: Any, signal: Any, **kwargs: Any) -> None:
            got.append((name, kwargs))

        return receive

    watched = {
        "claimed": signals.run_claimed,
        "finished": signals.run_finished,
        "missed": signals.run_missed,
        "acquired": signals.lease_acquired,
    }
    keep = {name: receiver(name) for name in watched}
    for name, signal in watched.items():
        signal.connect(keep[name])

    def broken(sender: Any, **kwargs: Any) -> None:
        raise RuntimeError("a broken exporter")

    signals.run_finished.connect(broken)  # must not fail the run
    try:
        job("every_minute", schedule="* * * * *", catchup="skip", grace=1)(lambda run: None)
        [outcome] = run_job("every_minute")
        from horizontal import leases

        with leases.acquire("signal-lease", ttl=5) as lease:
            token = lease.token
    finally:
        for name, signal in watched.items():
            signal.disconnect(keep[name])
        signals.run_finished.disconnect(broken)
    names = [name for name, _ in got]
    args = dict(got)
    if outcome.status == OutcomeStatus.MISSED:  # more than 1 s into the minute
        assert names == ["missed", "acquired"], got
        assert args["missed"]["status"] == "missed" and args["missed"]["job"] == "every_minute"
        assert args["missed"]["slots"] == [outcome.slot]
    else:
        assert names == ["claimed", "finished", "acquired"], got
        claimed, finished = args["claimed"], args["finished"]
        for key in ("job", "slot", "run_id", "token", "attempt", "trigger", "instance"):
            assert claimed[key] == finished[key], key
        assert claimed["instance"] == "signalled" and claimed["trigger"] == "schedule"
        assert 0 <= claimed["lateness"] < 2
        assert finished["outcome"] == "succeeded" and finished["error"] == ""
        assert 0 <= finished["duration"] < 5
    assert args["acquired"] == {
        "name": "signal-lease",
        "token": token,
        "ttl": 5.0,
        "instance": "signalled",
    }


def test_lease_lost_is_sent_once_when_a_renewal_is_refused_not_on_release(
    db_alias: str,
) -> None:
    from horizontal import leases

    lost: list[dict[str, Any]] = []

    def receive(sender: Any, signal: Any, **kwargs: Any) -> None:
        lost.append(kwargs)

    signals.lease_lost.connect(receive)
    try:
        with leases.acquire("released-lease", ttl=5):
            pass
        assert lost == []
        lease = leases.acquire("taken-lease", ttl=0.2)
        assert lease is not None
        time.sleep(0.3)
        taker = leases.acquire("taken-lease", ttl=5, owner="taker")
        assert taker is not None
        assert not lease.renew()
        assert not lease.renew()
    finally:
        signals.lease_lost.disconnect(receive)
    assert len(lost) == 1, lost
    assert lost[0]["name"] == "taken-lease" and lost[0]["token"] == taker.token - 1
    assert "expired or was taken over" in lost[0]["reason"]
