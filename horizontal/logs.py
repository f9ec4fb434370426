"""Logging for failures that repeat: an outage must not become a log flood.

A Redis or database outage fails every request or every poll; logging each one buries
the first line (the one that says what broke) under thousands of copies.
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["RateLimitedLog"]


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
