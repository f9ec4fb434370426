"""The deploy lifecycle: ``manage.py release`` and the rolling-deploy migration check.

- ``release`` (``horizontal.deploy.release``): ``migrate_locked``, then every
  ``@on_release`` hook once per release id, through the job gate.
- ``compat`` (``horizontal.deploy.compat``): which pending migrations break the old code
  still serving during a rolling deploy (``horizontal.W070``–``W076``).
"""

from __future__ import annotations

from horizontal.deploy.release import (
    HookResult,
    HookStatus,
    InvalidRelease,
    on_release,
    release_status,
    run_process_hooks,
    run_release,
)

__all__ = [
    "HookResult",
    "HookStatus",
    "InvalidRelease",
    "on_release",
    "release_status",
    "run_process_hooks",
    "run_release",
]
