"""horizontal.signals: sent by the real gate, leases and session store, with their arguments.

On the default alias (SQLite) only: which vendor ran the statement changes nothing about
what is sent after it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.dispatch import Signal

from horizontal import leases, signals
from horizontal.instance import instance_id
from horizontal.jobs import Run, job, registry, run_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sent() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    receivers = []
    for name in signals.__all__:
        signal: Signal = getattr(signals, name)

        def receiver(sender: Any, _name: str = name, **kwargs: Any) -> None:
            kwargs.pop("signal")
            seen.append((_name, {"sender": sender, **kwargs}))

        signal.connect(receiver)
        receivers.append((signal, receiver))
    before = dict(registry.jobs)
    yield seen
    for signal, receiver in receivers:
        signal.disconnect(receiver)
    registry.jobs.clear()
    registry.jobs.update(before)


def test_a_run_sends_claimed_then_finished_with_outcome_duration_and_lateness(
    sent: list[tuple[str, dict[str, Any]]],
) -> None:
    def body(run: Run) -> None:
        time.sleep(0.05)
        if run.slot.endswith("01:00Z"):
            raise RuntimeError("second slot fails")

    job("signalled", schedule="* * * * *", timezone="UTC", overlap="allow")(body)
    tick = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0) - dt.timedelta(hours=2)
    ok_slot = tick.replace(minute=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    failed_slot = tick.replace(minute=1).strftime("%Y-%m-%dT%H:%M:%SZ")
    run_job("signalled", slot=ok_slot)
    run_job("signalled", slot=failed_slot)
    runs = [(name, args) for name, args in sent if name.startswith("run_")]
    assert [name for name, _ in runs] == ["run_claimed", "run_finished"] * 2
    claimed, finished = runs[0][1], runs[1][1]
    assert claimed["sender"] is registry.jobs["signalled"] and claimed["job"] == "signalled"
    assert (claimed["slot"], claimed["token"], claimed["instance"], claimed["trigger"]) == (
        ok_slot, 1, instance_id(), "manual"
    )  # fmt: skip
    assert finished["outcome"] == "succeeded" and finished["slot"] == ok_slot
    assert 0.05 <= finished["duration"] < 5
    expected = time.time() - tick.replace(minute=0).timestamp()
    assert expected - 60 <= finished["lateness"] <= expected
    assert runs[3][1]["outcome"] == "failed" and runs[3][1]["slot"] == failed_slot


def test_a_lease_sends_acquired_then_released_once(
    sent: list[tuple[str, dict[str, Any]]],
) -> None:
    lease = leases.acquire("signalled-lease", ttl=30)
    assert lease is not None
    lease.release()
    lease.release()  # a second release is no second signal
    assert sent == [
        ("lease_acquired", {"sender": leases.Lease, "name": "signalled-lease",
                            "token": lease.token, "ttl": 30.0, "instance": instance_id()}),
        ("lease_released", {"sender": leases.Lease, "name": "signalled-lease",
                            "token": lease.token, "instance": instance_id()}),
    ]  # fmt: skip


def test_a_readiness_probe_sends_its_dependency_result_and_time_once_per_probe(
    sent: list[tuple[str, dict[str, Any]]], settings: Any
) -> None:
    from horizontal.health import readiness
    from horizontal.health.probes import Dependency

    settings.HORIZONTAL_HEALTH_CACHE_SECONDS = 60.0  # resets the answers (setting_changed)
    first = readiness.check_readiness(["database"], drain=False)
    again = readiness.check_readiness(["database"], drain=False)  # reused: not probed
    probed = [args for name, args in sent if name == "readiness_probed"]
    [check] = [c for c in first.checks if c.name == "database:default"]
    assert [c.cached for c in again.checks if c.name == "database:default"] == [True]
    [args] = [a for a in probed if a["dependency"] == "database:default"]
    assert args.pop("seconds") == pytest.approx(check.latency_ms / 1000)
    assert args == {
        "sender": Dependency,
        "dependency": "database:default",
        "kind": "database",
        "ok": True,
        "instance": instance_id(),
    }
    assert len(probed) == len(first.checks)
