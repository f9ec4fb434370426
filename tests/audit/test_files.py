"""horizontal/audit/files.py: files written to the local disk that outlive the request."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

PROBE = """\
import os
import random

from django.conf import settings


def check_attachment_folder(errors):
    folder = settings.ATTACHMENT_FOLDER
    try:
        probe = os.path.join(folder, f"_check_{random.randrange(10000)}")
        with open(probe, "w") as handle:
            handle.write("check")
        os.remove(probe)
    except OSError:
        errors.append("cannot write")
"""

KEPT_UNLESS_REJECTED = """\
import os

from django.conf import settings


def upload(request, record_id):
    path = os.path.join(settings.DATA_ROOT, "uploads", request.FILES["file"].name)
    with open(path, "wb") as handle:
        handle.write(request.FILES["file"].read())
    try:
        record = Record.objects.get(pk=record_id)
    except Record.DoesNotExist:
        os.unlink(path)
        raise
    ImportFile.objects.create(record=record, file=path)
"""


def test_a_probe_written_then_removed_in_the_same_block_is_gone(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/checks.py": PROBE}, "file-write") == []


def test_a_file_removed_only_on_an_error_path_is_kept(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/views.py": KEPT_UNLESS_REJECTED}, "file-write")
    assert where(found) == [("app/views.py", 8)]


TEST_MODULE = """\
from django.test import TestCase


class VectorUploadTest(TestCase):
    def test_upload(self):
        with open("/srv/data/upload.shp", "wb") as handle:
            handle.write(b"shape")
"""


def test_a_test_module_named_tests_something_is_not_audited(tmp_path: Path) -> None:
    for name, found in (("tests_vector.py", []), ("vector.py", [("upload/vector.py", 6)])):
        files = {f"upload/{name}": TEST_MODULE}
        assert where(scan(tmp_path / name, files, "file-write")) == found
