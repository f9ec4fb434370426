"""gunicorn config for metrics in multiprocess mode (``-c python:testproject.gunicorn_metrics``).

``PROMETHEUS_MULTIPROC_DIR`` must be set (an empty directory) before gunicorn starts.
"""

from __future__ import annotations

from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    from horizontal.metrics import mark_process_dead

    mark_process_dead(worker.pid)
