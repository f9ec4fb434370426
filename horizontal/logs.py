"""Logging: structured fields on every line, and failures that repeat logged once.

Fields: while a claimed run executes, ``log_fields`` puts its ``job``, ``slot`` and
``token`` in a context variable; ``horizontal.instance.InstanceFilter`` copies them,
with ``instance``, onto each ``LogRecord`` (JSON formatters and django-structlog read
record attributes). The filter sits on every ``horizontal`` logger (``HORIZONTAL_LOGGERS``,
attached by the app's ``ready()``) and may be put on handlers too, so that the lines a
job body logs through its own loggers carry the run's fields as well.

Repeats: a Redis or database outage fails every request or every poll; logging each one
buries the first line (the one that says what broke) under thousands of copies.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["HORIZONTAL_LOGGERS", "RateLimitedLog", "current_fields", "log_fields"]

# Every logger horizontal logs through (tests/app/test_logs.py keeps the list complete).
HORIZONTAL_LOGGERS = (
    "horizontal.db",
    "horizontal.fleet",
    "horizontal.jobs",
    "horizontal.leases",
    "horizontal.metrics",
    "horizontal.migrate",
    "horizontal.release",
    "horizontal.scheduler",
    "horizontal.sessions",
    "horizontal.signals",
    "horizontal.triggers",
    "horizontal.triggers.celery",
)

_fields: contextvars.ContextVar[dict[str, object] | None] = contextvars.ContextVar(
    "horizontal_log_fields", default=None
)


@contextmanager
def log_fields(**fields: object) -> Iterator[None]:
    """Add ``fields`` to every record logged inside the block (this thread or task)."""
    merged = {**(_fields.get() or {}), **fields}
    reset = _fields.set(merged)
    try:
        yield
    finally:
        _fields.reset(reset)


def current_fields() -> dict[str, object]:
    """The fields ``log_fields`` set where this is called (empty outside a run)."""
    return dict(_fields.get() or {})


class RateLimitedLog:
    """Log at most one line per ``interval`` seconds per process, with a dropped count."""

    def __init__(self, logger: logging.Logger, level: int, interval: float) -> None:
        self.logger = logger
        self.level = level
        self.interval = interval
        self._lock = threading.Lock()
        self._last = -interval
        self._suppressed = 0

    def log(self, message: str, *args: object) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._last < self.interval:
                self._suppressed += 1
                return
            suppressed, self._suppressed, self._last = self._suppressed, 0, now
        self.logger.log(
            self.level,
            message + " [%d not logged since the previous line; at most one line per %g s]",
            *args,
            suppressed,
            self.interval,
        )
