"""The seventy-third round (2026-12-07): one problem reported once. A file opened only to
be flock()ed is the lock's own file: the lock is the finding, not a write beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

LOCKED = """\
import fcntl
from pathlib import Path

from django.conf import settings


def import_cookies(request):
    folder = Path(settings.DATA_DIR) / "personas"
    with (folder / "cookies.lock").open("w") as lock_file:
        fcntl.flock({handle}, fcntl.LOCK_EX)
        (folder / "cookies.txt").write_text(request.body.decode())
"""


def test_a_file_opened_to_be_flocked_is_the_lock_not_a_write(tmp_path: Path) -> None:
    for number, handle in enumerate(("lock_file", "lock_file.fileno()")):
        files = {"app/views.py": LOCKED.format(handle=handle)}
        found = scan(tmp_path / str(number), files)
        # The flock() is found, and so is the data written under it; the open() is not.
        assert ("app/views.py", 10) in where(found)
        assert ("app/views.py", 11) in where(found)
        assert ("app/views.py", 9) not in where(found)


def test_a_handle_that_no_flock_takes_is_still_a_write(tmp_path: Path) -> None:
    # Its twin: the flock() takes another file's handle, so the open() writes a file.
    other = LOCKED.format(handle="other").replace(
        "def import_cookies(", "other = open('/run/app.lock')\n\n\ndef import_cookies("
    )
    found = scan(tmp_path, {"app/views.py": other})
    assert ("app/views.py", 12) in where(found)


@pytest.mark.parametrize(
    "write", ["json.dump(request.POST.dict(), lock_file)", "print('state', file=lock_file)"]
)
def test_a_flocked_file_that_data_goes_into_is_still_a_write(tmp_path: Path, write: str) -> None:
    # The handle is locked and then handed to a writer: a data file under a lock.
    source = LOCKED.format(handle="lock_file").replace(
        '(folder / "cookies.txt").write_text(request.body.decode())', write
    )
    found = scan(tmp_path, {"app/views.py": "import json\n" + source})
    assert ("app/views.py", 10) in where(found)
