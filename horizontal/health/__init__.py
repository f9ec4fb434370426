"""Liveness, readiness and drain: whether this instance should receive traffic.

- ``check_readiness()``: probe the database(s), the session store, the default storage
  (and any caches named in ``HORIZONTAL_HEALTH_CACHES``) in parallel, each under its own
  bound; a ``Report``. The views in ``horizontal.urls`` answer it as JSON.
- ``start_draining()`` / ``is_draining()`` / ``drain_state()``: the drain flag that makes
  readiness answer 503 while the instance still serves (``horizontal.health.gunicorn``
  sets it on SIGTERM; ``HORIZONTAL_DRAIN_FILE`` / ``manage.py drain`` from outside).

See docs/operations.md.
"""

from __future__ import annotations

from horizontal.health.drain import DrainState, drain_state, is_draining, start_draining
from horizontal.health.readiness import Check, Report, check_readiness

__all__ = [
    "Check",
    "DrainState",
    "Report",
    "check_readiness",
    "drain_state",
    "is_draining",
    "start_draining",
]
