"""Run the dependency probes in parallel, each under its own bound, cheaply enough for a
balancer that asks every second.

- **One thread per dependency**, kept across requests and built lazily in each process
  (again after a fork): probes of different dependencies run side by side, and a
  database probe always runs on the same thread, so it holds at most one connection of
  its own per alias.
- **At most one probe in flight per dependency.** A request that finds a probe still
  running waits for that one (until the same deadline) instead of starting another, so
  a dependency that hangs costs one stuck thread, never a pile of them; while it is
  stuck every readiness answer says ``timeout`` at once.
- **A short reuse interval** (``HORIZONTAL_HEALTH_CACHE_SECONDS``): a completed answer
  is served again until it is that old. Ten balancers asking every second cost one
  probe per interval.
- The wait for each dependency is bounded by its timeout (``HORIZONTAL_HEALTH_TIMEOUT``,
  or its entry in ``HORIZONTAL_HEALTH_TIMEOUTS``), counted from when its probe started.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, NamedTuple

from django.core.signals import setting_changed

from horizontal import signals
from horizontal.conf import conf
from horizontal.health.drain import drain_state
from horizontal.health.probes import Dependency, dependencies
from horizontal.instance import instance_id

__all__ = ["ERROR", "OK", "TIMEOUT", "Check", "Report", "check_readiness", "reset"]

OK = "ok"
ERROR = "error"
TIMEOUT = "timeout"
_DETAIL_LIMIT = 300


class Check(NamedTuple):
    """The answer of one dependency."""

    name: str
    kind: str
    status: str  # OK, ERROR or TIMEOUT
    latency_ms: float
    detail: str
    cached: bool = False  # served from the reuse interval, not probed for this request

    @property
    def ok(self) -> bool:
        return self.status == OK

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "latency_ms": round(self.latency_ms, 1),
            "detail": self.detail,
            "cached": self.cached,
        }


class Report(NamedTuple):
    checks: tuple[Check, ...]
    draining: bool = False
    drain: dict[str, Any] | None = None  # the drain's state, while draining

    @property
    def ok(self) -> bool:
        return not self.draining and all(check.ok for check in self.checks)

    @property
    def failing(self) -> list[str]:
        return [check.name for check in self.checks if not check.ok]

    def as_dict(self) -> dict[str, Any]:
        status = "draining" if self.draining else (OK if self.ok else "unavailable")
        return {
            "status": status,
            "instance": instance_id(),
            "draining": self.draining,
            **({"drain": self.drain or {}} if self.draining else {}),
            "checks": {check.name: check.as_dict() for check in self.checks},
        }


class _Thread:
    """One daemon thread that runs the probes of one dependency, one after another.

    Not a ``ThreadPoolExecutor``: its threads are joined at interpreter exit, so a probe
    stuck on a wedged server would hold up the worker's exit; a daemon thread does not.
    """

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[tuple[Dependency, float, Future[Check]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(
            target=self._serve, name=f"horizontal-health-{name}", daemon=True
        )
        self._thread.start()

    def submit(self, dep: Dependency, timeout: float) -> Future[Check]:
        future: Future[Check] = Future()
        self._queue.put((dep, timeout, future))
        return future

    def stop(self) -> None:
        self._queue.put(None)

    def _serve(self) -> None:
        while (item := self._queue.get()) is not None:
            dep, timeout, future = item
            if future.set_running_or_notify_cancel():
                future.set_result(_run_probe(dep, timeout))


class _Slot:
    """One dependency's thread, its probe in flight, and its last answer."""

    def __init__(self, name: str) -> None:
        self.executor = _Thread(name)
        self.future: Future[Check] | None = None
        self.started = 0.0
        self.last: Check | None = None
        self.last_at = 0.0


class Runner:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._slots: dict[str, _Slot] = {}
        self._pid = os.getpid()

    def check(self, deps: Sequence[Dependency], cache_seconds: float) -> list[Check]:
        now = time.monotonic()
        waits: list[tuple[Dependency, _Slot, Future[Check] | None, float, Check | None]] = []
        with self._lock:
            if self._pid != os.getpid():  # forked: the threads stayed in the parent
                self._slots, self._pid = {}, os.getpid()
            for dep in deps:
                slot = self._slots.get(dep.name)
                if slot is None:
                    slot = self._slots[dep.name] = _Slot(dep.name)
                fresh = slot.last is not None and now - slot.last_at < cache_seconds
                if slot.future is None and fresh:
                    waits.append((dep, slot, None, slot.started, slot.last))
                    continue
                future = slot.future
                if future is None:
                    slot.started = now
                    slot.future = future = slot.executor.submit(dep, _timeout_for(dep))
                    # A probe that is already done calls back at once, on this thread:
                    # hence the re-entrant lock, and the local ``future``.
                    future.add_done_callback(
                        lambda done, slot=slot: self._finished(slot, done)  # type: ignore[misc]
                    )
                waits.append((dep, slot, future, slot.started, None))
        return [self._wait(*entry) for entry in waits]

    def _finished(self, slot: _Slot, done: Future[Check]) -> None:
        with self._lock:
            if slot.future is done:
                slot.future = None
                slot.last, slot.last_at = done.result(), time.monotonic()

    def _wait(
        self,
        dep: Dependency,
        slot: _Slot,
        future: Future[Check] | None,
        started: float,
        cached: Check | None,
    ) -> Check:
        if future is None:
            assert cached is not None
            return Check(cached.name, cached.kind, cached.status, cached.latency_ms,
                         cached.detail, cached=True)  # fmt: skip
        timeout = _timeout_for(dep)
        remaining = started + timeout - time.monotonic()
        try:
            return future.result(timeout=max(0.0, remaining))
        except FutureTimeout:
            waited = time.monotonic() - started
            return Check(
                dep.name,
                dep.kind,
                TIMEOUT,
                waited * 1000,
                f"no answer within {timeout:g} s (probe in flight for {waited:.1f} s)",
            )

    def reset(self) -> None:
        with self._lock:
            slots, self._slots = self._slots, {}
        for slot in slots.values():
            slot.executor.stop()


def _timeout_for(dep: Dependency) -> float:
    return conf.HEALTH_TIMEOUTS.get(dep.name, conf.HEALTH_TIMEOUT)


def _run_probe(dep: Dependency, timeout: float) -> Check:
    started = time.monotonic()
    try:
        detail = dep.probe(timeout)
    except Exception as error:
        message = f"{type(error).__name__}: {error}".strip()
        status, detail = ERROR, message[:_DETAIL_LIMIT]
    else:
        status = OK
    seconds = time.monotonic() - started
    signals.send(
        signals.readiness_probed,
        Dependency,
        dependency=dep.name,
        kind=dep.kind,
        ok=status == OK,
        seconds=seconds,
    )
    return Check(dep.name, dep.kind, status, seconds * 1000, detail)


_runner = Runner()


def check_readiness(names: Sequence[str] | None = None, *, drain: bool = True) -> Report:
    """Probe every dependency (or those named in ``names``, by name or kind) and say
    whether this instance should receive traffic. While it drains (unless ``drain`` is
    False), nothing is probed: the answer is no."""
    state = drain_state()
    if drain and state.draining:
        return Report((), draining=True, drain=state.as_dict())
    deps = dependencies()
    if names is not None:
        deps = [dep for dep in deps if dep.name in names or dep.kind in names]
    return Report(tuple(_runner.check(deps, conf.HEALTH_CACHE_SECONDS)))


def reset() -> None:
    """Forget every answer and in-flight probe (tests; after changing settings)."""
    _runner.reset()


_PROBED_SETTINGS = {"CACHES", "DATABASES", "STORAGES", "SESSION_ENGINE", "SESSION_CACHE_ALIAS"}


def _forget_answers(*, setting: str, **kwargs: Any) -> None:
    # Tests point a dependency elsewhere with override_settings: an answer about the
    # old one must not be reused.
    if setting in _PROBED_SETTINGS or setting.startswith("HORIZONTAL_HEALTH_"):
        reset()


setting_changed.connect(_forget_answers)
