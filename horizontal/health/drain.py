"""Drain: the instance is still serving, but tells its balancer to stop sending it work.

Two sources put an instance in drain, and readiness answers 503 from the first moment
either holds:

- **a signal**: ``start_draining()`` — called by the gunicorn hook
  (``horizontal.health.gunicorn``) in the master process on SIGTERM. The state lives in
  an anonymous shared memory page created before the workers fork
  (``share_across_fork()``), so every worker of that master sees it at once. Without
  that page (no gunicorn hook), the state is this process's own.
- **a file**: ``HORIZONTAL_DRAIN_FILE``; while it exists the instance drains
  (``manage.py drain`` creates it, ``manage.py drain --undo`` removes it). For platforms
  whose stop sequence is a command rather than a signal.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import time
from pathlib import Path
from typing import NamedTuple

from horizontal.conf import conf

__all__ = [
    "DrainState",
    "drain_file_since",
    "drain_state",
    "is_draining",
    "remove_drain_file",
    "share_across_fork",
    "start_draining",
    "stop_draining",
    "write_drain_file",
]

_FORMAT = "d"  # the Unix time the drain started; 0.0: not draining
_shared: mmap.mmap | None = None
_local_since = 0.0


class DrainState(NamedTuple):
    draining: bool
    source: str | None  # "signal" or "file"
    since: float | None  # Unix time

    def as_dict(self) -> dict[str, object]:
        return self._asdict()


def share_across_fork() -> None:
    """Keep the signal state in memory that processes forked from now on share.

    Call it in the process that forks the workers, before it forks them (gunicorn's
    ``on_starting``). Idempotent.
    """
    global _shared
    if _shared is None:
        page = mmap.mmap(-1, struct.calcsize(_FORMAT))  # MAP_SHARED | MAP_ANONYMOUS
        page[:] = struct.pack(_FORMAT, _local_since)
        _shared = page


def _signal_since() -> float:
    if _shared is None:
        return _local_since
    return float(struct.unpack(_FORMAT, _shared[:])[0])


def _set_signal_since(value: float) -> None:
    global _local_since
    _local_since = value
    if _shared is not None:
        _shared[:] = struct.pack(_FORMAT, value)


def start_draining() -> float:
    """Start draining (idempotent); the Unix time the drain started."""
    since = _signal_since()
    if not since:
        since = time.time()
        _set_signal_since(since)
    return since


def stop_draining() -> None:
    """Leave a signal drain (tests; a cancelled stop)."""
    _set_signal_since(0.0)


def drain_file_since(path: str | None = None) -> float | None:
    """The drain file's modification time, or None when it does not exist or is unset."""
    target = conf.DRAIN_FILE if path is None else path
    if not target:
        return None
    try:
        return os.stat(target).st_mtime
    except OSError:
        return None


def drain_state() -> DrainState:
    since = _signal_since()
    if since:
        return DrainState(True, "signal", since)
    file_since = drain_file_since()
    if file_since is not None:
        return DrainState(True, "file", file_since)
    return DrainState(False, None, None)


def is_draining() -> bool:
    return drain_state().draining


def write_drain_file(path: str | None = None) -> Path:
    """Create the drain file (``HORIZONTAL_DRAIN_FILE`` unless ``path``); its path."""
    target = conf.DRAIN_FILE if path is None else path
    if not target:
        raise ValueError("HORIZONTAL_DRAIN_FILE is not set: there is no drain file to create")
    file = Path(target)
    file.parent.mkdir(parents=True, exist_ok=True)
    if not file.exists():
        file.write_text(f"draining since {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n")
    return file


def remove_drain_file(path: str | None = None) -> bool:
    """Remove the drain file; whether there was one."""
    target = conf.DRAIN_FILE if path is None else path
    if not target:
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target)
        return True
    return False
