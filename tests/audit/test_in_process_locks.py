"""horizontal/audit/in_process_locks.py: locks that hold on one host only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

GUARDED_JOB = """\
import os
from tempfile import gettempdir
from {library} import Lock


def update_index(run):
    with Lock(os.path.join(gettempdir(), "update-index.lock")):
        run()
"""


@pytest.mark.parametrize(("library", "found"), [("flufl.lock", True), ("app.queue", False)])
def test_flufl_lock_in_the_temp_directory_is_a_host_lock(
    tmp_path: Path, library: str, found: bool
) -> None:
    # flufl.lock is safe on a shared mount; in the temp directory it is this host's.
    findings = scan(
        tmp_path, {"app/jobs.py": GUARDED_JOB.format(library=library)}, "in-process-lock"
    )
    assert where(findings) == ([("app/jobs.py", 7)] if found else [])
    if found:
        assert findings[0].message.startswith("Lock is a lock file on this host's disk")
