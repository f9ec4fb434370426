"""Who am I? A stable identity for this process, on every row and every log line."""

from __future__ import annotations

import logging
import os
import socket
import uuid

from horizontal.conf import conf
from horizontal.logs import HORIZONTAL_LOGGERS, current_fields

__all__ = ["InstanceFilter", "instance_id"]

# One boot id per process start: tells two incarnations of the same pid apart (containers
# restart with pid 1 again and again).
_BOOT_ID = uuid.uuid4().hex[:8]
_BOOT_PID = os.getpid()


def instance_id() -> str:
    """``HORIZONTAL_INSTANCE_ID`` or ``hostname:pid:boot-id``.

    A forked child (gunicorn worker, multiprocessing) gets its own pid in the id and a
    fresh boot id, so two workers of one master are never confused.
    """
    explicit = conf.INSTANCE_ID
    if explicit:
        return explicit
    global _BOOT_ID, _BOOT_PID
    pid = os.getpid()
    if pid != _BOOT_PID:
        _BOOT_ID, _BOOT_PID = uuid.uuid4().hex[:8], pid
    return f"{socket.gethostname()}:{pid}:{_BOOT_ID}"


class InstanceFilter(logging.Filter):
    """Adds ``record.instance`` (``%(instance)s``) and, inside a run, ``job``, ``slot``, ``token``.

    Every ``horizontal`` logger has it already; add it to a handler's ``filters`` in
    ``LOGGING`` to tag every other line too (a job body's own). It never drops a record,
    and never overwrites an attribute the call set itself (``extra=``).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "instance"):
            record.instance = instance_id()
        for name, value in current_fields().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


def tag_horizontal_loggers() -> None:
    """Put an ``InstanceFilter`` on each of ``HORIZONTAL_LOGGERS`` (once; from ``ready()``)."""
    for name in HORIZONTAL_LOGGERS:
        target = logging.getLogger(name)
        if not any(isinstance(f, InstanceFilter) for f in target.filters):
            target.addFilter(InstanceFilter())
