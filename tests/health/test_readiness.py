"""The readiness and liveness views in process, against the real database and Redis.

The outages are real: a Redis port nothing listens on, a socket that accepts and never
answers (``SilentServer``), a probe that blocks until released. The multi-process proof
behind a real balancer is in ``test_balancer.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client, override_settings

from horizontal.health import drain, readiness
from horizontal.health.probes import Dependency
from horizontal.health.readiness import TIMEOUT, Runner
from tests.sessions.conftest import redis_caches
from tests.support.processes import free_port
from tests.support.s3 import SilentServer

# Scheduling slack on a loaded machine, on top of the configured bound.
SLACK = 0.5


@pytest.fixture(autouse=True)
def fresh_runner() -> Iterator[None]:
    readiness.reset()
    drain.stop_draining()
    yield
    readiness.reset()
    drain.stop_draining()


def ready(client: Client) -> tuple[int, dict, float]:
    started = time.monotonic()
    response = client.get("/horizontal/ready/")
    return response.status_code, response.json(), time.monotonic() - started


@pytest.mark.django_db
def test_every_dependency_answers_so_ready_is_200_with_each_named(client):
    status, body, _ = ready(client)
    assert status == 200, body
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database:default", "sessions"}
    for name, check in body["checks"].items():
        assert check["status"] == "ok", (name, check)
        assert 0 <= check["latency_ms"] < 1000
    assert client.get("/horizontal/live/").status_code == 200


@pytest.mark.django_db(databases=["default", "postgresql"])
@override_settings(HORIZONTAL_DATABASE="postgresql")
def test_horizontal_database_is_probed_when_it_differs(client):
    status, body, _ = ready(client)
    assert status == 200, body
    assert body["checks"]["database:postgresql"]["status"] == "ok"


@pytest.mark.django_db
@pytest.mark.parametrize("outage", ["closed port", "wedged socket"])
def test_redis_down_makes_ready_503_naming_sessions_within_the_timeout(client, outage):
    silent = SilentServer() if outage == "wedged socket" else None
    port = silent.port if silent else free_port()
    try:
        # No timeouts of the alias's own: the session store's bounded client applies.
        caches = redis_caches(f"redis://127.0.0.1:{port}/0", "hz-health")
        caches["default"]["OPTIONS"] = {}
        with override_settings(CACHES=caches, HORIZONTAL_HEALTH_TIMEOUT=1.0):
            status, body, elapsed = ready(client)
            print(f"redis {outage}: ready {status} in {elapsed:.3f} s: {body['checks']}")
            assert status == 503
            assert body["checks"]["sessions"]["status"] in ("error", TIMEOUT)
            assert body["checks"]["database:default"]["status"] == "ok"
            assert elapsed < 1.0 + SLACK
            assert client.get("/horizontal/live/").status_code == 200
    finally:
        if silent:
            silent.close()


def blocking_dependency(calls: list[float], release: threading.Event) -> Dependency:
    def probe(timeout: float) -> str:
        calls.append(time.monotonic())
        release.wait(30)
        return "released"

    return Dependency("stuck", "test", probe)


def test_a_hanging_probe_never_hangs_the_caller_nor_piles_up_threads():
    runner, calls, release = Runner(), [], threading.Event()
    dep = blocking_dependency(calls, release)
    before = threading.active_count()
    try:
        with override_settings(HORIZONTAL_HEALTH_TIMEOUT=0.3):
            started = time.monotonic()
            first = runner.check([dep], cache_seconds=1.0)[0]
            assert first.status == TIMEOUT
            assert 0.3 <= time.monotonic() - started < 0.3 + SLACK
            # Fifty more asks while it hangs: answered at once, from the one probe in flight.
            started = time.monotonic()
            answers = [runner.check([dep], cache_seconds=1.0)[0] for _ in range(50)]
            assert time.monotonic() - started < 0.2
            assert {answer.status for answer in answers} == {TIMEOUT}
            assert len(calls) == 1
            assert threading.active_count() - before == 1
            release.set()
            time.sleep(0.1)
            assert runner.check([dep], cache_seconds=1.0)[0].status == "ok"
            assert len(calls) == 1  # the answer that finally came is reused
    finally:
        release.set()
        runner.reset()


def test_answers_are_reused_for_the_cache_interval_then_probed_again():
    runner, calls = Runner(), []

    def probe(timeout: float) -> str:
        calls.append(time.monotonic())
        return "fine"

    dep = Dependency("counted", "test", probe)
    try:
        for _ in range(100):
            runner.check([dep], cache_seconds=0.2)
        assert len(calls) == 1
        time.sleep(0.25)
        assert runner.check([dep], cache_seconds=0.2)[0].cached is False
        assert len(calls) == 2
    finally:
        runner.reset()


def test_probes_run_in_parallel_each_under_its_own_bound():
    runner = Runner()
    calls: list[str] = []

    def slow(name: str, seconds: float) -> Dependency:
        def probe(timeout: float) -> str:
            calls.append(name)
            time.sleep(seconds)
            return "slow"

        return Dependency(name, "test", probe)

    # Three distinct dependencies of 0.5 s each, one that hangs past its own 0.3 s bound,
    # one that takes 0.8 s within its own 2 s bound, and a second entry for "a" (the same
    # dependency named twice shares its one probe in flight). One after another this
    # would take 0.5 × 3 + 0.3 + 0.8 = 2.6 s; in parallel, the slowest: 0.8 s.
    deps = [
        slow("a", 0.5),
        slow("b", 0.5),
        slow("c", 0.5),
        slow("hangs", 3.0),
        slow("patient", 0.8),
        slow("a", 0.5),
    ]
    bounds = {"a": 1.0, "b": 1.0, "c": 1.0, "hangs": 0.3, "patient": 2.0}
    try:
        with override_settings(HORIZONTAL_HEALTH_TIMEOUTS=bounds):
            started = time.monotonic()
            checks = runner.check(deps, cache_seconds=0)
            elapsed = time.monotonic() - started
        by_name = {check.name: check for check in checks}
        assert [check.status for check in checks] == ["ok", "ok", "ok", TIMEOUT, "ok", "ok"]
        assert 0.3 * 1000 <= by_name["hangs"].latency_ms < (0.3 + SLACK) * 1000
        assert "within 0.3 s" in by_name["hangs"].detail
        assert by_name["patient"].latency_ms >= 0.8 * 1000
        assert elapsed < 0.8 + SLACK, elapsed
        assert sorted(calls) == ["a", "b", "c", "hangs", "patient"]  # "a" probed once
    finally:
        runner.reset()


@pytest.mark.django_db
def test_drain_by_flag_and_by_file_makes_ready_503_and_leaves_live_200(client, tmp_path: Path):
    drain.start_draining()
    status, body, _ = ready(client)
    assert (status, body["status"], body["drain"]["source"]) == (503, "draining", "signal")
    assert client.get("/horizontal/live/").status_code == 200
    drain.stop_draining()
    assert ready(client)[0] == 200

    path = tmp_path / "drain"
    with override_settings(HORIZONTAL_DRAIN_FILE=str(path)):
        assert ready(client)[0] == 200
        drain.write_drain_file()
        status, body, _ = ready(client)
        assert (status, body["drain"]["source"]) == (503, "file")
        assert drain.remove_drain_file() is True
        assert ready(client)[0] == 200


@pytest.mark.django_db
def test_one_probe_costs_little_measured(client):
    """The figure docs/operations.md quotes: a probe round, and a cached answer."""
    rounds = 50
    timings = []
    with override_settings(HORIZONTAL_HEALTH_CACHE_SECONDS=0):
        for _ in range(rounds):
            started = time.perf_counter()
            assert client.get("/horizontal/ready/").status_code == 200
            timings.append(time.perf_counter() - started)
    probed = sorted(timings)[rounds // 2] * 1000
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        assert client.get("/horizontal/ready/").status_code == 200
        timings.append(time.perf_counter() - started)
    cached = sorted(timings)[rounds // 2] * 1000
    print(f"ready view, median of {rounds}: probed {probed:.2f} ms, cached {cached:.2f} ms")
    assert probed < 250  # generous: a starved CI machine; the figure is printed
    assert cached < probed


def test_a_probe_that_answers_before_its_callback_is_registered_does_not_deadlock(monkeypatch):
    """Regression: the done-callback of an already finished probe runs on the caller's
    thread, inside the runner's lock. Made certain here: the probe runs inside submit."""
    from concurrent.futures import Future

    def submit_and_finish(self, dep, timeout):
        future = Future()
        future.set_result(readiness._run_probe(dep, timeout))
        return future

    monkeypatch.setattr(readiness._Thread, "submit", submit_and_finish)
    runner = Runner()
    dep = Dependency("instant", "test", lambda timeout: "at once")
    outcome = []
    worker = threading.Thread(
        target=lambda: outcome.append(runner.check([dep], cache_seconds=0)[0].status),
        daemon=True,
    )
    worker.start()
    worker.join(5)
    assert outcome == ["ok"]  # (before the fix: [], the thread deadlocked on the lock)
    runner.reset()
