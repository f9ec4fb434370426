"""Prometheus metrics of the gate, the leases, the sessions and readiness (``[prometheus]``).

Importing this module creates the metrics in ``prometheus_client``'s default registry
(where django-prometheus's ``/metrics`` view and ``generate_latest()`` find them) and
connects receivers to ``horizontal.signals``; the app's ``ready()`` imports it when
``HORIZONTAL_METRICS = True``. Nothing else in horizontal imports ``prometheus_client``.

Every sample has an ``instance`` label (``horizontal.instance.instance_id()``), so a
slot run twice shows as one job with two instances. Under gunicorn, set
``PROMETHEUS_MULTIPROC_DIR`` (an empty directory, before the workers start) and call
``mark_process_dead`` from gunicorn's ``child_exit`` hook: each worker then writes its
samples to files there, and ``metrics_view`` on any worker answers for all of them.
docs/monitoring.md lists the metrics.
"""

from __future__ import annotations

import os
import time
from typing import Any

from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

from horizontal import signals
from horizontal.instance import instance_id

__all__ = [
    "mark_process_dead",
    "metrics_view",
    "observe_probe",
    "serve",
]

# Seconds: from a quick job to an hour-long one; lateness from on time to a missed hour.
_DURATION_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600)
_LATENESS_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600)
_PROBE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

JOB_RUNS = Counter(
    "horizontal_job_runs",
    "Claimed runs that ended in this instance, by outcome (succeeded, failed, lost, interrupted).",
    ["job", "outcome", "instance"],
)
JOB_DURATION = Histogram(
    "horizontal_job_duration_seconds",
    "Seconds from a run's claim to its end.",
    ["job", "outcome", "instance"],
    buckets=_DURATION_BUCKETS,
)
JOB_LATENESS = Histogram(
    "horizontal_job_lateness_seconds",
    "Seconds from a slot's cron tick to its claim (this instance's wall clock).",
    ["job", "instance"],
    buckets=_LATENESS_BUCKETS,
)
JOB_LAST_SUCCESS = Gauge(
    "horizontal_job_last_success_timestamp_seconds",
    "Unix time at which this instance last finished a run of the job successfully.",
    ["job", "instance"],
    multiprocess_mode="max",
)
JOB_MISSED = Counter(
    "horizontal_job_missed",
    "Slots this instance put on record as missed.",
    ["job", "instance"],
)
LEASE_HELD = Gauge(
    "horizontal_lease_held",
    "1 while this instance holds the lease (horizontal:scheduler is the scheduler's leader).",
    ["lease", "instance"],
    multiprocess_mode="livemax",
)
SESSION_STORE_ERRORS = Counter(
    "horizontal_session_store_errors",
    "Session store operations that failed (the store was unreachable or errored).",
    ["operation", "instance"],
)
PROBE_SECONDS = Histogram(
    "horizontal_readiness_probe_seconds",
    "Seconds one readiness probe of a dependency took, by result.",
    ["dependency", "ok", "instance"],
    buckets=_PROBE_BUCKETS,
)


def observe_probe(dependency: str, seconds: float, ok: bool) -> None:
    """Record one readiness probe of ``dependency`` (``database:default``, ``redis``...)."""
    PROBE_SECONDS.labels(dependency, "true" if ok else "false", instance_id()).observe(seconds)


def _run_finished(sender: Any, *, job: str, outcome: str, duration: float, **kwargs: Any) -> None:
    instance = kwargs.get("instance") or instance_id()
    JOB_RUNS.labels(job, outcome, instance).inc()
    JOB_DURATION.labels(job, outcome, instance).observe(duration)
    lateness = kwargs.get("lateness")
    if lateness is not None:
        JOB_LATENESS.labels(job, instance).observe(max(0.0, lateness))
    if outcome == "succeeded":
        JOB_LAST_SUCCESS.labels(job, instance).set(time.time())


def _run_missed(sender: Any, *, job: str, slots: list[str], **kwargs: Any) -> None:
    JOB_MISSED.labels(job, kwargs.get("instance") or instance_id()).inc(len(slots))


def _lease_acquired(sender: Any, *, name: str, instance: str, **kwargs: Any) -> None:
    LEASE_HELD.labels(name, instance).set(1)


def _lease_gone(sender: Any, *, name: str, instance: str, **kwargs: Any) -> None:
    LEASE_HELD.labels(name, instance).set(0)


def _readiness_probed(
    sender: Any, *, dependency: str, ok: bool, seconds: float, **kwargs: Any
) -> None:
    observe_probe(dependency, seconds, ok)


def _session_store_unavailable(sender: Any, *, operation: str, **kwargs: Any) -> None:
    SESSION_STORE_ERRORS.labels(operation, instance_id()).inc()


signals.run_finished.connect(_run_finished, dispatch_uid="horizontal.metrics")
signals.run_missed.connect(_run_missed, dispatch_uid="horizontal.metrics")
signals.lease_acquired.connect(_lease_acquired, dispatch_uid="horizontal.metrics")
signals.lease_lost.connect(_lease_gone, dispatch_uid="horizontal.metrics")
signals.lease_released.connect(_lease_gone, dispatch_uid="horizontal.metrics")
signals.session_store_unavailable.connect(
    _session_store_unavailable, dispatch_uid="horizontal.metrics"
)
signals.readiness_probed.connect(_readiness_probed, dispatch_uid="horizontal.metrics")


def _multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def exposition_registry() -> CollectorRegistry:
    """What a scrape reads: every process's files in multiprocess mode, else this one's."""
    if not _multiprocess():
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return registry


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``/metrics`` for a project without django-prometheus: the text exposition format.

    Route it where only your Prometheus can reach it (see docs/monitoring.md).
    """
    return HttpResponse(generate_latest(exposition_registry()), content_type=CONTENT_TYPE_LATEST)


def mark_process_dead(pid: int) -> None:
    """For gunicorn's ``child_exit``: drop a dead worker's live gauges (its lease_held)."""
    if _multiprocess():
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def serve(port: int, addr: str = "127.0.0.1") -> None:
    """Serve ``/metrics`` from a background thread (``runscheduler``, which has no web view)."""
    start_http_server(port, addr=addr, registry=exposition_registry())
