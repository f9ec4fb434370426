"""One probe per dependency an instance cannot serve without.

A probe is a plain function that returns a short detail when the dependency answered
and raises when it did not. Probes never bound their own time: the runner
(``horizontal.health.readiness``) runs each on a thread of its own and stops waiting
at the dependency's timeout. Each uses the client the application itself uses, with its
timeouts, so the probe sees what a request would see:

- ``database:<alias>``: one ``SELECT 1`` (``horizontal.db.ping``) on ``default`` and on
  ``HORIZONTAL_DATABASE`` when it differs (or ``HORIZONTAL_HEALTH_DATABASES``).
- ``sessions``: ``PING`` on the Redis behind ``horizontal.sessions`` (its own bounded
  client), or a cache read for Django's cache session engines. Database sessions are
  covered by the database probe; cookie sessions need nothing.
- ``storage``: ``horizontal.storage.probe`` (one listing, one attempt) when the default
  storage is S3.
- ``cache:<alias>``: one read, for each alias in ``HORIZONTAL_HEALTH_CACHES``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from django.conf import settings

from horizontal.conf import conf

__all__ = ["Dependency", "ProbeFailed", "dependencies"]

HORIZONTAL_SESSIONS = "horizontal.sessions"
_CACHE_SESSION_ENGINES = {
    "django.contrib.sessions.backends.cache",
    "django.contrib.sessions.backends.cached_db",
}
_PROBE_KEY = "horizontal:health:probe"


class ProbeFailed(Exception):
    """The dependency answered, and the answer says it cannot serve."""


class Dependency(NamedTuple):
    name: str  # "database:default", "sessions", "storage", "cache:<alias>"
    kind: str  # "database", "sessions", "storage", "cache"
    probe: Callable[[float], str]  # timeout -> detail; raises when the dependency fails


def dependencies() -> list[Dependency]:
    """What readiness probes under the current settings, in a stable order."""
    found = [
        Dependency(f"database:{alias}", "database", partial(_database, alias))
        for alias in _database_aliases()
    ]
    sessions = _sessions_probe()
    if sessions is not None:
        found.append(Dependency("sessions", "sessions", sessions))
    if _storage_is_s3():
        found.append(Dependency("storage", "storage", _storage))
    found.extend(
        Dependency(f"cache:{alias}", "cache", partial(_cache, alias))
        for alias in conf.HEALTH_CACHES
    )
    return found


def _database_aliases() -> list[str]:
    configured = conf.HEALTH_DATABASES
    aliases = list(configured) if configured is not None else ["default", conf.DATABASE]
    return list(dict.fromkeys(alias for alias in aliases if alias in settings.DATABASES))


def _database(alias: str, timeout: float) -> str:
    from horizontal.db import ping

    ping(alias)
    return "SELECT 1 answered"


def _sessions_probe() -> Callable[[float], str] | None:
    engine = str(getattr(settings, "SESSION_ENGINE", ""))
    alias = str(getattr(settings, "SESSION_CACHE_ALIAS", "default"))
    if engine == HORIZONTAL_SESSIONS:
        return partial(_session_redis, alias)
    if engine in _CACHE_SESSION_ENGINES:
        return partial(_cache, alias)
    return None


def _session_redis(alias: str, timeout: float) -> str:
    from horizontal.sessions.redis import session_redis

    if not session_redis(alias).client.ping():
        raise ProbeFailed("PING was not answered with PONG")
    return f"PING answered (cache alias {alias!r})"


def _cache(alias: str, timeout: float) -> str:
    from django.core.cache import caches

    caches[alias].get(_PROBE_KEY)
    return f"cache alias {alias!r} answered a read"


def _storage_is_s3() -> bool:
    """Whether the default storage is django-storages' S3 backend (ours is one), read from
    its class so that a project on local files never loads boto3 for it."""
    from django.core.files.storage import storages

    try:
        storage = storages["default"]
    except Exception:
        return True  # a storage that cannot even be built: let the probe say so
    return any(cls.__module__.startswith("storages.backends.s3") for cls in type(storage).__mro__)


def _storage(timeout: float) -> str:
    from horizontal.storage import probe

    # A little under our own bound, so the storage's explanation arrives before we stop
    # waiting for it.
    result = probe(timeout=max(0.05, timeout * 0.9))
    if not result.ok:
        raise ProbeFailed(f"{result.problem}: {result.detail}")
    return result.detail
