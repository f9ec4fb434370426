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
    def ROLLING_SAFE_MIGRATIONS(self) -> frozenset[str]:
        """``"app_label.migration_name"`` of migrations the W070–W076 checks leave alone."""
        return frozenset(str(name) for name in _get("HORIZONTAL_ROLLING_SAFE_MIGRATIONS", ()))

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
    def HEALTH_TIMEOUT(self) -> float:
        """Seconds the readiness view waits for each dependency's probe."""
        return float(_get("HORIZONTAL_HEALTH_TIMEOUT", 1.0))

    @property
    def HEALTH_TIMEOUTS(self) -> dict[str, float]:
        """Per-dependency overrides of ``HEALTH_TIMEOUT``, by name ("database:default")."""
        return {str(k): float(v) for k, v in dict(_get("HORIZONTAL_HEALTH_TIMEOUTS", {})).items()}

    @property
    def HEALTH_CACHE_SECONDS(self) -> float:
        """Seconds a probe's answer is reused before the dependency is asked again."""
        return float(_get("HORIZONTAL_HEALTH_CACHE_SECONDS", 1.0))

    @property
    def HEALTH_DATABASES(self) -> tuple[str, ...] | None:
        """Database aliases readiness probes; ``None``: ``default`` and ``DATABASE``."""
        value = _get("HORIZONTAL_HEALTH_DATABASES", None)
        return None if value is None else tuple(str(alias) for alias in value)

    @property
    def HEALTH_CACHES(self) -> tuple[str, ...]:
        """Cache aliases readiness also probes (none by default)."""
        return tuple(str(alias) for alias in _get("HORIZONTAL_HEALTH_CACHES", ()))

    @property
    def DRAIN_SECONDS(self) -> float:
        """Seconds readiness answers 503 after SIGTERM before gunicorn stops accepting."""
        value = _get("HORIZONTAL_DRAIN_SECONDS", _MISSING)
        if value is _MISSING:
            value = os.environ.get("HORIZONTAL_DRAIN_SECONDS") or 10
        return float(value)

    @property
    def DRAIN_FILE(self) -> str | None:
        """A path whose existence puts the instance in drain (``manage.py drain``)."""
        value = _get("HORIZONTAL_DRAIN_FILE", _MISSING)
        if value is _MISSING:
            value = os.environ.get("HORIZONTAL_DRAIN_FILE") or None
        return None if value is None else str(value)

    @property
    def SCHEDULER_CONCURRENCY(self) -> int:
        """Due slots one ``runscheduler`` process runs at once (threads of its own)."""
        return int(_get("HORIZONTAL_SCHEDULER_CONCURRENCY", 4))

    @property
    def TRIGGER_SECRET(self) -> str | None:
        """Shared secret of the HTTP trigger; ``None`` (the default) turns the endpoint off."""
        value = _get("HORIZONTAL_TRIGGER_SECRET", None)
        return None if value is None or value == "" else str(value)

    @property
    def TRIGGER_MAX_SKEW(self) -> float:
        """Seconds a signed trigger request stays acceptable (its replay window)."""
        return float(_get("HORIZONTAL_TRIGGER_MAX_SKEW", 300))

    @property
    def TRIGGER_MODE(self) -> str:
        """``"run"``: the request runs the slot and answers its outcome; ``"background"``: 202."""
        return str(_get("HORIZONTAL_TRIGGER_MODE", "run"))

    @property
    def TRIGGER_REQUIRE_HTTPS(self) -> bool | None:
        """Refuse plain-HTTP trigger requests; ``None``: when a ``SECURE_*`` setting says HTTPS."""
        value = _get("HORIZONTAL_TRIGGER_REQUIRE_HTTPS", None)
        return None if value is None else bool(value)

    @property
    def FAILPOINTS(self) -> str:
        """Fault-injection points for the chaos suite; ignored unless ``DEBUG_FAILPOINTS``."""
        if not bool(_get("HORIZONTAL_DEBUG_FAILPOINTS", False)):
            return ""
        return str(_get("HORIZONTAL_FAILPOINTS", os.environ.get("HORIZONTAL_FAILPOINTS", "")))


conf = Settings()
