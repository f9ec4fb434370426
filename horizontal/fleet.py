"""The fleet registry: which horizontal processes run, and whether their settings agree.

Every process records itself in ``horizontal_instance`` (``models.Instance``): web
workers on their first request, ``runjob``, ``runscheduler``, ``release`` and ``migrate_locked``
when they start (``start(kind)``; call it from any other long-lived process of yours).
A daemon thread writes once, then refreshes ``last_seen`` every
``HORIZONTAL_FLEET_INTERVAL`` seconds: one ``UPDATE`` on a connection opened for it and
closed after (no connection is held between writes). A row not refreshed for three
intervals is no longer live; the next process to register deletes it. A process that
exits normally deletes its own row.

``settings_fingerprint()`` is what must agree across instances: a keyed hash of
``SECRET_KEY`` (Django's ``salted_hmac`` with a fixed label; the key never leaves the
process), the database and cache targets (engine, host, port, name; no user or
password), and the release. ``drift()`` names each field on which live instances
differ; ``manage.py fleet`` prints it and exits 1.
"""

from __future__ import annotations

import atexit
import datetime as dt
import hashlib
import json
import logging
import os
import platform
import socket
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

import django
from django.conf import settings
from django.db import DatabaseError, connections
from django.db.models.functions import Now
from django.utils.crypto import salted_hmac

import horizontal
from horizontal.conf import conf
from horizontal.instance import instance_id
from horizontal.logs import RateLimitedLog
from horizontal.models import Instance

__all__ = ["Drift", "drift", "fleet_report", "live_instances", "settings_fingerprint", "start"]

logger = logging.getLogger("horizontal.fleet")

# A row not refreshed for this many intervals is not live (and is deleted when seen).
STALE_AFTER_INTERVALS = 3
# The label of the keyed hash: the same on every instance, so equal keys hash equal.
SECRET_KEY_LABEL = "horizontal.fleet.secret-key"

_failures = RateLimitedLog(logger, logging.WARNING, 300.0)
_lock = threading.Lock()
_started_pid: int | None = None


def _without_credentials(location: str) -> str:
    """A URL's scheme, host, port and path; user and password dropped."""
    if "://" not in location:
        return location
    parts = urlsplit(location)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _database_target(options: Mapping[str, Any]) -> str:
    engine = str(options.get("ENGINE", "")).rsplit(".", 1)[-1]
    host = options.get("HOST") or ""
    port = options.get("PORT") or ""
    return f"{engine}://{host}{':' if port else ''}{port}/{options.get('NAME') or ''}"


def _cache_target(options: Mapping[str, Any]) -> str:
    backend = str(options.get("BACKEND", "")).rsplit(".", 1)[-1]
    location = options.get("LOCATION") or ""
    locations = [location] if isinstance(location, str) else list(location)
    return f"{backend} {','.join(_without_credentials(str(loc)) for loc in locations)}".strip()


def settings_fingerprint() -> dict[str, str]:
    """What must agree across the fleet, each field as a comparable string."""
    secret = salted_hmac(
        SECRET_KEY_LABEL, "fingerprint", secret=settings.SECRET_KEY, algorithm="sha256"
    )
    databases = {
        alias: _database_target(options) for alias, options in sorted(settings.DATABASES.items())
    }
    caches = {
        alias: _cache_target(options)
        for alias, options in sorted(getattr(settings, "CACHES", {}).items())
    }
    return {
        "secret_key": secret.hexdigest()[:16],
        "databases": json.dumps(databases, sort_keys=True),
        "caches": json.dumps(caches, sort_keys=True),
        "release": conf.RELEASE or "",
    }


def _digest(fields: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(fields), sort_keys=True).encode()).hexdigest()[:16]


def _stale_before(interval: float) -> Any:
    return Now() - dt.timedelta(seconds=STALE_AFTER_INTERVALS * interval)


def record(kind: str, *, interval: float | None = None) -> bool:
    """Write this process's row (one ``UPDATE``; on the first write a prune and an ``INSERT``).

    Returns True if the row was new. Runs in the caller's thread on
    ``HORIZONTAL_DATABASE``; the daemon thread of ``start()`` calls it every interval.
    """
    interval = conf.FLEET_INTERVAL if interval is None else interval
    rows = Instance.objects.using(conf.DATABASE)
    me = instance_id()
    if rows.filter(pk=me).update(last_seen=Now()):
        return False
    fields = settings_fingerprint()
    rows.filter(last_seen__lt=_stale_before(max(interval, 1.0))).delete()
    rows.create(
        instance_id=me,
        kind=kind,
        host=socket.gethostname(),
        pid=os.getpid(),
        release=fields["release"],
        python_version=platform.python_version(),
        django_version=django.get_version(),
        horizontal_version=horizontal.__version__,
        settings=fields,
        fingerprint=_digest(fields),
        started_at=Now(),
        last_seen=Now(),
    )
    return True


def _leave() -> None:
    """At a normal exit: delete our row (a killed process's row expires instead)."""
    # Between this process's own thread and its exit, over its own row: per process on purpose.
    with _writing:  # horizontal: ignore[in-process-lock]
        stop.set()
        _delete_own_row()


def _delete_own_row() -> None:
    try:
        Instance.objects.using(conf.DATABASE).filter(pk=instance_id()).delete()
        connections[conf.DATABASE].close()
    except Exception:  # the interpreter is going; never fail its exit
        logger.debug("fleet registry: could not delete this instance's row", exc_info=True)


stop = threading.Event()
_writing = threading.Lock()


def _loop(kind: str, interval: float) -> None:
    while True:
        with _writing:  # horizontal: ignore[in-process-lock]  (see _leave)
            if stop.is_set():
                return
            try:
                record(kind, interval=interval)
            except DatabaseError as exc:
                if _table_missing():  # migrate_locked before its first migrate: not yet
                    logger.debug("fleet registry: not migrated yet, will retry: %s", exc)
                else:
                    _failures.log("fleet registry: could not record this instance: %s", exc)
            finally:
                connections[conf.DATABASE].close()
        if stop.wait(interval):
            return


def _table_missing() -> bool:
    connection = connections[conf.DATABASE]
    try:
        with connection.cursor() as cursor:
            return Instance._meta.db_table not in connection.introspection.table_names(cursor)
    except DatabaseError:
        return False


def start(kind: str) -> bool:
    """Record this process in the registry from a daemon thread, once per process.

    False (and nothing started) when it already runs in this process or
    ``HORIZONTAL_FLEET_INTERVAL`` is 0.
    """
    global _started_pid
    interval = conf.FLEET_INTERVAL
    if interval <= 0:
        return False
    with _lock:
        pid = os.getpid()
        if _started_pid == pid:
            return False
        _started_pid = pid
        stop.clear()
    # One thread per process for its whole life, which the audit would rightly question
    # in a web worker if it held state: it holds none, and writes only its own row.
    thread = threading.Thread(  # horizontal: ignore[timer-thread]
        target=_loop, args=(kind, interval), name="horizontal-fleet", daemon=True
    )
    thread.start()
    atexit.register(_leave)
    return True


def on_first_request(sender: object, **kwargs: object) -> None:
    """``request_started`` receiver: a web worker records itself on its first request."""
    if start("web"):
        from django.core.signals import request_started

        request_started.disconnect(on_first_request, dispatch_uid="horizontal.fleet")


class Drift(NamedTuple):
    """One field on which live instances differ: each value, and who has it."""

    field: str
    values: dict[str, list[str]]

    def describe(self) -> str:
        parts = [f"{value or '(none)'} on {', '.join(ids)}" for value, ids in self.values.items()]
        return f"{self.field} differs: " + "; ".join(parts)


def live_instances(interval: float | None = None) -> list[Instance]:
    """Rows refreshed within ``STALE_AFTER_INTERVALS`` intervals, by the database clock.

    One ``SELECT`` that compares with the database's own now; fine inside a transaction
    (the admin under ``ATOMIC_REQUESTS``).
    """
    interval = conf.FLEET_INTERVAL if interval is None else interval
    rows = Instance.objects.using(conf.DATABASE)
    return list(rows.filter(last_seen__gte=_stale_before(max(interval, 1.0))).order_by("pk"))


def drift(instances: Sequence[Instance]) -> list[Drift]:
    """The fields of ``settings`` on which ``instances`` do not all agree."""
    found = []
    fields = sorted({name for row in instances for name in row.settings})
    for name in fields:
        values: dict[str, list[str]] = {}
        for row in instances:
            values.setdefault(str(row.settings.get(name, "")), []).append(row.instance_id)
        if len(values) > 1:
            found.append(Drift(name, values))
    return found


def _instant(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def fleet_report(interval: float | None = None) -> dict[str, Any]:
    """What ``manage.py fleet --format json`` prints: live instances, and the drift."""
    instances = live_instances(interval)
    return {
        "instances": [
            {
                "instance": row.instance_id,
                "kind": row.kind,
                "host": row.host,
                "pid": row.pid,
                "release": row.release,
                "versions": {
                    "python": row.python_version,
                    "django": row.django_version,
                    "horizontal": row.horizontal_version,
                },
                "started": _instant(row.started_at),
                "last_seen": _instant(row.last_seen),
                "fingerprint": row.fingerprint,
                "settings": row.settings,
            }
            for row in instances
        ],
        "drift": [{"field": d.field, "values": d.values} for d in drift(instances)],
    }
