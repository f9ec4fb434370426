"""horizontal.metrics under gunicorn: two workers, one scrape that answers for both.

One gunicorn instance of testproject with two sync workers in prometheus_client's
multiprocess mode (``PROMETHEUS_MULTIPROC_DIR`` and the ``child_exit`` hook of
testproject/gunicorn_metrics.py). Requests run known jobs in whichever worker answers;
each response says which instance (worker) ran it. The scrape is parsed with
prometheus_client's own text parser and every value is checked against those responses.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections import Counter as Tally
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client.parser import text_string_to_metric_families

from horizontal.instance import instance_id
from tests.support.databases import ScratchDatabase
from tests.support.processes import Instance, start_gunicorn

# Minute ticks an hour and more ago: each run's lateness is at least this.
HOUR_AGO = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0) - dt.timedelta(hours=1)


def slot(index: int) -> str:
    return (HOUR_AGO - dt.timedelta(minutes=index)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def web(
    monitoring_db: ScratchDatabase, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Instance]:
    multiproc = tmp_path_factory.mktemp("prometheus")
    env = {
        **monitoring_db.env,
        "HORIZONTAL_METRICS": "1",
        "HORIZONTAL_MONITORING_DEMO": "1",
        "HORIZONTAL_FLEET_INTERVAL": "0",
        "PROMETHEUS_MULTIPROC_DIR": str(multiproc),
    }
    instance = start_gunicorn(
        env, workers=2, ready_path="/metrics", args=["-c", "python:testproject.gunicorn_metrics"]
    )
    yield instance
    instance.stop()


def post(instance: Instance, path: str) -> dict[str, object]:
    request = urllib.request.Request(instance.url + path, data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.loads(response.read()))


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(instance: Instance) -> Samples:
    with urllib.request.urlopen(instance.url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


@pytest.mark.multiprocess
def test_two_workers_scraped_once_show_every_known_run_by_instance(web: Instance) -> None:
    started = time.time()
    # Pairs at once: each sync worker serves one request at a time, so while one runs
    # probe_ok (0.2 s) the other must take the second request of the pair.
    calls = [f"/monitoring/run/probe_ok/?slot={slot(i)}" for i in range(8)]
    calls += [f"/monitoring/run/probe_fails/?slot={slot(i)}" for i in range(3)]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda path: post(web, path), calls))
    ok = Tally(a["instance"] for a, c in zip(answers, calls, strict=True) if "probe_ok" in c)
    failed = Tally(a["instance"] for a, c in zip(answers, calls, strict=True) if "fails" in c)
    assert [a["outcomes"] for a in answers] == [["succeeded"]] * 8 + [["failed"]] * 3
    workers = set(ok) | set(failed)
    print("runs per worker:", dict(ok), dict(failed))
    assert len(workers) == 2, "both workers ran jobs"

    samples = scrape(web)
    for instance in workers:
        runs_ok = value(
            samples,
            "horizontal_job_runs_total",
            job="probe_ok",
            outcome="succeeded",
            instance=instance,
        )
        runs_failed = value(
            samples,
            "horizontal_job_runs_total",
            job="probe_fails",
            outcome="failed",
            instance=instance,
        )
        assert (runs_ok or 0) == ok[instance]
        assert (runs_failed or 0) == failed[instance]
        if ok[instance]:
            count = value(
                samples,
                "horizontal_job_duration_seconds_count",
                job="probe_ok",
                outcome="succeeded",
                instance=instance,
            )
            total = value(
                samples,
                "horizontal_job_duration_seconds_sum",
                job="probe_ok",
                outcome="succeeded",
                instance=instance,
            )
            assert count == ok[instance]
            assert 0.2 * ok[instance] <= total < 5 * ok[instance]
            last = value(
                samples,
                "horizontal_job_last_success_timestamp_seconds",
                job="probe_ok",
                instance=instance,
            )
            assert started <= last <= time.time()
            late = value(
                samples, "horizontal_job_lateness_seconds_sum", job="probe_ok", instance=instance
            )
            assert late >= 3600 * ok[instance]
            assert (
                value(
                    samples,
                    "horizontal_job_lateness_seconds_bucket",
                    job="probe_ok",
                    instance=instance,
                    le="900.0",
                )
                == 0
            )
    # A failure is no success: no last-success sample for the failing job.
    assert not [
        k
        for k in samples
        if k[0].startswith("horizontal_job_last_success") and ("job", "probe_fails") in k[1]
    ]
    # Every horizontal sample carries the instance label.
    ours = [labels for name, labels in samples if name.startswith("horizontal_")]
    assert ours and all(dict(labels).get("instance") in workers for labels in ours)


def get(instance: Instance, path: str) -> dict[str, object]:
    try:
        with urllib.request.urlopen(instance.url + path, timeout=30) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as error:  # 503: not ready, still a probed answer
        return dict(json.loads(error.read()))


@pytest.mark.multiprocess
def test_every_readiness_probe_a_worker_ran_is_one_observation_of_its_latency(
    web: Instance,
) -> None:
    # Probes each worker really ran (not answers reused from the cache interval), with
    # the latency each answer reported.
    ran: dict[tuple[str, str, str], list[float]] = {}
    for _ in range(6):
        answer = get(web, "/horizontal/ready/")
        checks = answer["checks"]
        assert isinstance(checks, dict) and checks, answer
        for name, check in checks.items():
            if not check["cached"]:
                ok = "true" if check["status"] == "ok" else "false"
                key = (str(answer["instance"]), name, ok)
                ran.setdefault(key, []).append(check["latency_ms"] / 1000)
        time.sleep(0.6)  # past half the reuse interval: some answers probe again
    assert ran, "no readiness answer ran a probe"
    samples = scrape(web)
    for (instance, dependency, ok), latencies in ran.items():
        labels = {"dependency": dependency, "ok": ok, "instance": instance}
        count = value(samples, "horizontal_readiness_probe_seconds_count", **labels)
        total = value(samples, "horizontal_readiness_probe_seconds_sum", **labels)
        # A request that joins a probe still in flight reports it too: at most one
        # observation per answer, at least one per worker and dependency.
        assert count is not None and 1 <= count <= len(latencies), (labels, count, latencies)
        assert total is not None and total > 0
        if count == len(latencies):  # each answer's latency_ms is rounded to 0.1 ms
            assert abs(total - sum(latencies)) <= 0.0001 * len(latencies), (total, latencies)


@pytest.mark.multiprocess
def test_lease_gauge_names_the_holder_and_goes_with_a_dead_worker(web: Instance) -> None:
    answer = post(web, "/monitoring/lease/demo-leader/")
    assert answer["acquired"] is True
    holder = str(answer["instance"])
    samples = scrape(web)
    assert value(samples, "horizontal_lease_held", lease="demo-leader", instance=holder) == 1.0
    # Kill the worker that holds it: gunicorn's child_exit drops its live gauge.
    pid = int(holder.split(":")[1])
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            samples = scrape(web)
        except OSError:
            time.sleep(0.1)
            continue
        if value(samples, "horizontal_lease_held", lease="demo-leader", instance=holder) is None:
            break
        time.sleep(0.1)
    assert value(samples, "horizontal_lease_held", lease="demo-leader", instance=holder) is None


def test_the_metrics_are_in_the_default_registry_that_django_prometheus_exports() -> None:
    from prometheus_client import REGISTRY, generate_latest

    from horizontal.metrics import observe_probe

    labels = {"dependency": "redis", "ok": "false", "instance": instance_id()}
    before = REGISTRY.get_sample_value("horizontal_readiness_probe_seconds_count", labels) or 0
    observe_probe("redis", 0.25, ok=False)
    assert REGISTRY.get_sample_value("horizontal_readiness_probe_seconds_count", labels) == (
        before + 1
    )
    bucket = {**labels, "le": "0.25"}
    assert REGISTRY.get_sample_value("horizontal_readiness_probe_seconds_bucket", bucket) >= 1
    exposed = generate_latest(REGISTRY).decode()
    for family in ("horizontal_job_runs_total counter", "horizontal_lease_held gauge"):
        assert f"# TYPE {family}" in exposed


@pytest.mark.django_db(transaction=True)
def test_a_missed_slot_counts_in_the_missed_metric(settings: object) -> None:
    from prometheus_client import REGISTRY

    import horizontal.metrics  # noqa: F401  (what HORIZONTAL_METRICS = True imports)
    from horizontal.jobs import job, registry, run_job
    from horizontal.jobs.report import OutcomeStatus

    settings.HORIZONTAL_INSTANCE_ID = "missing-node"  # type: ignore[attr-defined]
    labels = {"job": "metrics_nightly", "instance": "missing-node"}
    name = "horizontal_job_missed_total"
    before = REGISTRY.get_sample_value(name, labels) or 0
    saved = dict(registry.jobs)
    try:
        job("metrics_nightly", schedule="0 0 * * *", catchup="skip", grace=1)(lambda run: None)
        [outcome] = run_job("metrics_nightly")
    finally:
        registry.jobs.clear()
        registry.jobs.update(saved)
    if outcome.status != OutcomeStatus.MISSED:  # claimed within a second of midnight
        pytest.skip(f"the slot was run, not missed: {outcome.status}")
    assert REGISTRY.get_sample_value(name, labels) == before + 1
