"""The seventy-fourth round (2026-12-07): classes a third new user's trial on eight PyPI
releases found, each with a true case that must be found and a safe twin that must stay
silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- an empty file made (a touch) writes no data -------------------------------------------

TOUCH = """\
import os

from django.conf import settings


def ready_log():
    open(os.path.join(settings.DATA_DIR, "debug.log"), "a").close()
"""
EXPORT = """\


def export(rows):
    with open(os.path.join(settings.DATA_DIR, "export.csv"), "w") as out:
        out.write(rows)
"""


def test_a_file_opened_and_closed_at_once_is_a_touch(tmp_path: Path) -> None:
    # As ``Path.touch()``: the file is readied for its writer, judged where that writes.
    assert scan(tmp_path, {"app/views.py": TOUCH}, "file-write") == []


def test_a_file_written_beside_a_touch_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/views.py": TOUCH + EXPORT}, "file-write")
    assert where(found) == [("app/views.py", 11)]
