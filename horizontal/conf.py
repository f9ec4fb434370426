"""Typed, lazy access to the ``HORIZONTAL_*`` settings.

Each setting is read from ``django.conf.settings`` when it is used, never at import,
so ``override_settings`` works in tests. Validation of values lives in
``horizontal.checks.config`` (system check errors ``horizontal.E0xx``); the
properties here only apply defaults.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings as django_settings

__all__ = ["Settings", "conf"]

_MISSING = object()


def _get(name: str, default: Any) -> Any:
    return getattr(django_settings, name, default)


class Settings:
    """One property per setting. Documented in ``docs/settings.md``."""

    @property
    def DATABASE(self) -> str:
        """Database alias that holds leases, job runs and effects."""
        return str(_get("HORIZONTAL_DATABASE", "default"))

    @property
    def INSTANCE_ID(self) -> str | None:
        """Explicit instance identity; ``None`` means ``hostname:pid:boot-id``."""
        value = _get("HORIZONTAL_INSTANCE_ID", None)
        return None if value is None else str(value)

    @property
    def LEASE_TTL(self) -> float:
        """Seconds a lease or a claimed run stays valid without a renewal."""
        return float(_get("HORIZONTAL_LEASE_TTL", 30))

    @property
    def RELEASE(self) -> str | None:
        """Identifier of the deployed release (``HORIZONTAL_RELEASE`` env by default)."""
        value = _get("HORIZONTAL_RELEASE", _MISSING)
        if value is _MISSING:
            value = os.environ.get("HORIZONTAL_RELEASE") or None
        return None if value is None else str(value)

    @property
    def FLEET_INTERVAL(self) -> float:
        """Seconds between a process's fleet registry writes; 0 records nothing."""
        return float(_get("HORIZONTAL_FLEET_INTERVAL", 30))

    @property
    def METRICS(self) -> bool:
        """Export Prometheus metrics (``horizontal.metrics``, the ``[prometheus]`` extra)."""
        return bool(_get("HORIZONTAL_METRICS", False))

    @property
    def METRICS_PORT(self) -> int | None:
        """Port on which ``runscheduler`` serves ``/metrics`` itself (it has no web view)."""
        value = _get("HORIZONTAL_METRICS_PORT", None)
        return None if value is None else int(value)

    @property
    def SESSION_FAILURE(self) -> str:
        """``"closed"`` (503 + Retry-After) or ``"open"`` (no session) on a store error."""
        return str(_get("HORIZONTAL_SESSION_FAILURE", "closed"))

    @property
    def SESSION_FALLBACK_ENGINE(self) -> str | None:
        """Old session engine read through on a miss, for a zero-logout migration."""
        value = _get("HORIZONTAL_SESSION_FALLBACK_ENGINE", None)
        return None if value is None else str(value)

    @property
    def SESSION_END_ON_PASSWORD_CHANGE(self) -> bool:
        """End every session of a user (``horizontal.sessions``) when their password changes."""
        return bool(_get("HORIZONTAL_SESSION_END_ON_PASSWORD_CHANGE", False))

    @property
    def EXPECTED_INSTANCES(self) -> int | None:
        """How many instances the deployment runs, for the connection budget check."""
        value = _get("HORIZONTAL_EXPECTED_INSTANCES", None)
        return None if value is None else int(value)

    @property
    def PROCESSES_PER_INSTANCE(self) -> int | None:
        """Worker processes per instance (default: ``WEB_CONCURRENCY``), for the budget."""
        value = _get("HORIZONTAL_PROCESSES_PER_INSTANCE", None)
        if value is None:
            value = os.environ.get("WEB_CONCURRENCY") or None
        try:
            return None if value is None else int(value)
        except ValueError:
            return None

    @property
    def LOCAL_CACHES(self) -> tuple[str, ...]:
        """Cache aliases that are per-instance on purpose (no horizontal.W001–W003)."""
        return tuple(str(alias) for alias in _get("HORIZONTAL_LOCAL_CACHES", ()))

    @property
    def FAILPOINTS(self) -> str:
        """Fault-injection points for the chaos suite; ignored unless ``DEBUG_FAILPOINTS``."""
        if not bool(_get("HORIZONTAL_DEBUG_FAILPOINTS", False)):
            return ""
        return str(_get("HORIZONTAL_FAILPOINTS", os.environ.get("HORIZONTAL_FAILPOINTS", "")))


conf = Settings()
