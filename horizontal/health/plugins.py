"""horizontal's readiness probes as django-health-check (4.x) checks.

Only for projects that use django-health-check (the ``[health-check]`` extra); nothing
else imports this module. Each check runs through the same runner as
``horizontal.urls``' readiness view: the same bounds, the same single probe in flight,
the same reuse interval, so adding both costs no extra probe::

    from health_check.views import HealthCheckView

    path("ht/", HealthCheckView.as_view(checks=[
        "horizontal.health.plugins.Drain",
        ("horizontal.health.plugins.Database", {"alias": "default"}),
        "horizontal.health.plugins.SessionStore",
        "horizontal.health.plugins.Storage",
    ]))

``Readiness`` is all of them in one check.
"""

from __future__ import annotations

import dataclasses
import datetime

from health_check.base import HealthCheck
from health_check.exceptions import ServiceUnavailable

from horizontal.conf import conf
from horizontal.health.drain import drain_state
from horizontal.health.readiness import check_readiness

__all__ = ["Database", "Drain", "Readiness", "SessionStore", "Storage"]


def _raise_for(names: tuple[str, ...] | None) -> None:
    report = check_readiness(names, drain=names is None)
    if report.draining:
        raise ServiceUnavailable("draining: this instance is leaving rotation")
    failing = [check for check in report.checks if not check.ok]
    if failing:
        raise ServiceUnavailable(
            "; ".join(f"{check.name} {check.status}: {check.detail}" for check in failing)
        )


class _Horizontal(HealthCheck):  # type: ignore[misc]  # untyped base
    # Our runner bounds each probe; this is django-health-check's outer wall clock: the
    # longest bound any dependency has (one not in HEALTH_TIMEOUTS has HEALTH_TIMEOUT).
    @property
    def timeout(self) -> datetime.timedelta:
        return datetime.timedelta(
            seconds=max([conf.HEALTH_TIMEOUT, *conf.HEALTH_TIMEOUTS.values()])
        )


@dataclasses.dataclass
class Readiness(_Horizontal):
    """Every dependency readiness probes, and the drain flag."""

    def run(self) -> None:
        _raise_for(None)


@dataclasses.dataclass
class Database(_Horizontal):
    alias: str = "default"

    def run(self) -> None:
        _raise_for((f"database:{self.alias}",))


@dataclasses.dataclass
class SessionStore(_Horizontal):
    """The store behind ``SESSION_ENGINE`` (``horizontal.sessions``' Redis, or a cache)."""

    def run(self) -> None:
        _raise_for(("sessions",))


@dataclasses.dataclass
class Storage(_Horizontal):
    """The default storage, when it is S3."""

    def run(self) -> None:
        _raise_for(("storage",))


@dataclasses.dataclass
class Drain(_Horizontal):
    """Fails while the instance drains (SIGTERM under the gunicorn hook, drain file)."""

    def run(self) -> None:
        if drain_state().draining:
            raise ServiceUnavailable("draining: this instance is leaving rotation")
