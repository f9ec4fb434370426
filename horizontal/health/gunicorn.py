"""Leave the balancer's rotation before gunicorn stops: drain on SIGTERM.

Gunicorn's master, on SIGTERM, closes its listeners and tells the workers to finish
their current request and exit: from that instant no new connection is accepted, while
the balancer, which has not yet seen a failed health check, still sends some. This
hook puts a drain in front of that:

1. SIGTERM reaches the master: it flips the drain flag (a shared memory page every
   worker sees) and keeps serving. Readiness answers 503 from now on.
2. ``HORIZONTAL_DRAIN_SECONDS`` later (fewer if ``HORIZONTAL_DRAIN_FILE`` already put
   the instance in drain earlier) the master sends itself SIGTERM again and gunicorn's
   own graceful shutdown runs: no new connections, in-flight requests finish within
   ``--graceful-timeout``.

A second SIGTERM during the drain skips the rest of it; SIGINT and SIGQUIT stop at once
as before.

Use it as the configuration module, or call ``on_starting`` from your own::

    gunicorn -c python:horizontal.health.gunicorn myproject.wsgi

    # gunicorn.conf.py
    from horizontal.health.gunicorn import on_starting  # noqa: F401

The drain length is read in the master from ``HORIZONTAL_DRAIN_SECONDS`` (the setting
when ``DJANGO_SETTINGS_MODULE`` is importable there, else the environment variable of
that name, else 10 s). Only the master may receive SIGTERM: a process manager that
signals the whole process group (systemd's default ``KillMode=control-group``) stops
the workers at once; use ``KillMode=mixed``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from horizontal.health import drain

__all__ = ["drain_seconds", "on_starting"]

DEFAULT_DRAIN_SECONDS = 10.0


def drain_seconds() -> float:
    """``HORIZONTAL_DRAIN_SECONDS`` as the master can read it."""
    try:
        from horizontal.conf import conf

        return max(0.0, conf.DRAIN_SECONDS)
    except Exception:  # settings not importable in the master: the environment decides
        value = os.environ.get("HORIZONTAL_DRAIN_SECONDS")
        return max(0.0, float(value)) if value else DEFAULT_DRAIN_SECONDS


def on_starting(server: Any) -> None:
    """Gunicorn server hook: share the drain flag with the workers, drain on SIGTERM."""
    drain.share_across_fork()
    stop = server.handle_term
    seconds = drain_seconds()

    def handle_term() -> None:
        if getattr(server, "_horizontal_draining", False) or seconds <= 0:
            return stop()  # type: ignore[no-any-return]
        server._horizontal_draining = True
        since = drain.start_draining()
        file_since = drain.drain_file_since()
        if file_since is not None:
            since = min(since, file_since)
        delay = max(0.0, seconds - (time.time() - since))
        server.log.info(
            "horizontal: draining for %.1f s (readiness answers 503), then stopping", delay
        )
        timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGTERM))
        timer.daemon = True
        timer.start()
        return None

    server.handle_term = handle_term
