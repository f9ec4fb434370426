"""Signals for exporters and alerting: runs, leases, the session store and readiness.

Every signal is sent with ``send_robust``: a receiver that raises is logged
(``horizontal.signals``) and never fails the run, the lease or the request that sent it.
Receivers run synchronously in the sending thread (a job's runner, a lease's heartbeat
thread, a web request), so they should be quick: count, set a gauge, enqueue.

The arguments each one is sent with are documented in docs/signals.md; every one also
gets ``instance`` (``horizontal.instance.instance_id()``).

- ``run_claimed``: sender the ``Job``; ``job``, ``slot``, ``run_id``, ``token``,
  ``attempt``, ``trigger``, ``instance``, ``lateness`` (seconds from the slot's instant
  to the claim on the database clock; None for a slot that is not an instant).
- ``run_finished``: sender the ``Job``; ``job``, ``slot``, ``run_id``, ``token``,
  ``attempt``, ``trigger``, ``instance``, ``outcome`` (``"succeeded"``, ``"failed"``,
  ``"lost"``, ``"interrupted"``), ``duration`` (seconds, monotonic), ``error`` (the
  traceback of a failure, else ``""``).
- ``run_missed``: sender the ``Job``; ``job``, ``slots`` (list of slot strings),
  ``status`` (``"missed"`` or ``"skipped_overlap"``), ``reason``, ``instance``.
- ``lease_acquired``: sender ``horizontal.leases.Lease``; ``name``, ``token``, ``ttl``,
  ``instance``.
- ``lease_lost``: sender ``horizontal.leases.Lease``; ``name``, ``token``, ``reason``,
  ``instance``. Sent once per grant when the holder learns it no longer holds it (a
  renewal refused or failing past its deadline); not on a release.
- ``lease_released``: sender ``horizontal.leases.Lease``; ``name``, ``token``,
  ``instance``. Sent when the holder gives the lease up itself (a release, the end of
  ``with acquire(...)``), so a "who leads" gauge can drop back without reading a loss.
- ``session_store_unavailable``: sender ``horizontal.sessions.SessionStore``;
  ``operation`` (where it failed: ``"load"`` under the open policy, ``"view"`` when the
  error reached the view, ``"request"`` when something turned it into a 500, ``"save"``),
  ``error`` (the exception), ``policy`` (``"closed"`` or ``"open"``), ``instance``. Sent
  on every failure, not rate-limited like the log line.
- ``readiness_probed``: sender ``horizontal.health.probes.Dependency``; ``dependency``
  (its name: ``"database:default"``, ``"sessions"``, ``"storage"``, ``"cache:<alias>"``),
  ``kind``, ``ok`` (bool), ``seconds`` (the probe's own time, monotonic), ``instance``.
  Sent once per probe actually run, when it ends (even after its readiness answer gave
  up waiting); an answer reused within ``HORIZONTAL_HEALTH_CACHE_SECONDS`` sends nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import Signal

from horizontal.instance import instance_id

__all__ = [
    "lease_acquired",
    "lease_lost",
    "lease_released",
    "readiness_probed",
    "run_claimed",
    "run_finished",
    "run_missed",
    "session_store_unavailable",
]

logger = logging.getLogger("horizontal.signals")

run_claimed = Signal()
run_finished = Signal()
run_missed = Signal()
lease_acquired = Signal()
lease_lost = Signal()
lease_released = Signal()
session_store_unavailable = Signal()
readiness_probed = Signal()


def send(signal: Signal, sender: Any, **arguments: Any) -> None:
    """Send ``signal`` to its receivers; a receiver's error is logged, never raised."""
    if not signal.has_listeners(sender):
        return
    arguments.setdefault("instance", instance_id())
    for receiver, result in signal.send_robust(sender, **arguments):
        if isinstance(result, Exception):
            logger.error(
                "receiver %r of a horizontal signal raised %s: %s",
                receiver,
                type(result).__name__,
                result,
                exc_info=result,
            )
