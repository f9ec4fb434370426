"""A task that returns a local temp path (``horizontal/audit/task_results.py``)."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

TASK = """\
import tempfile
from celery import shared_task
@shared_task(bind=True)
def export_raster(self, source):
    tmpfile = tempfile.mktemp('_raster.tif', dir='/srv/tmp')
    render(source, tmpfile)
    result = {'file': tmpfile}
    return result
"""


def test_a_task_returning_its_temp_path_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"worker/tasks.py": TASK}, "file-write")
    assert where(found) == [("worker/tasks.py", 5)]
    assert "default_storage" in found[0].fix


def test_a_task_returning_a_storage_name_or_a_plain_function_is_silent(tmp_path: Path) -> None:
    stored = TASK.replace(
        "    result = {'file': tmpfile}\n", "    result = {'file': upload(tmpfile)}\n"
    )
    stored = stored.replace("render(source, tmpfile)", "render(source, tmpfile)\n    name = 'x'")
    stored = stored.replace("{'file': upload(tmpfile)}", "{'file': name}")
    assert scan(tmp_path, {"worker/tasks.py": stored}, "file-write") == []
    plain = TASK.replace("@shared_task(bind=True)\n", "")
    assert scan(tmp_path / "b", {"worker/tasks.py": plain}, "file-write") == []
