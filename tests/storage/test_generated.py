"""``save_generated``, ``generated_file`` and ``shared_url`` on a storage that is not S3.

They are storage-agnostic: a project on ``FileSystemStorage`` (development) runs the
same report code as one on S3. On S3 they are exercised through real instances in
``test_instances.py``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage

from horizontal.storage import SavedFile, generated_file, save_generated, shared_url


@pytest.fixture
def local(tmp_path: Path) -> FileSystemStorage:
    return FileSystemStorage(location=tmp_path, base_url="/media/")


def test_bytes_text_and_files_are_saved_and_read_back(local: FileSystemStorage) -> None:
    for name, content, stored in [
        ("exports/a.bin", b"\x00\x01", b"\x00\x01"),
        ("exports/b.txt", "grüße", "grüße".encode()),
        ("exports/c.bin", io.BytesIO(b"from a file"), b"from a file"),
    ]:
        saved = save_generated(name, content, storage=local)
        assert saved == SavedFile(name, f"/media/{name}", len(stored))
        with local.open(saved.name, "rb") as file:
            assert file.read() == stored


def test_a_taken_name_comes_back_changed_and_both_files_stay(local: FileSystemStorage) -> None:
    first = save_generated("reports/daily.csv", b"first", storage=local)
    second = save_generated("reports/daily.csv", b"second", storage=local)
    assert first.name == "reports/daily.csv"
    assert second.name != first.name and second.name.startswith("reports/daily_")
    assert local.open(first.name).read() == b"first"
    assert local.open(second.name).read() == b"second"


def test_generated_file_saves_what_the_block_wrote(local: FileSystemStorage) -> None:
    with generated_file("reports/rows.csv", text=True, storage=local) as report:
        csv.writer(report.file).writerows([["id", "name"], [1, "Ann"]])
    assert report.saved is not None
    assert report.saved.url == "/media/reports/rows.csv"
    assert local.open(report.saved.name).read() == b"id,name\r\n1,Ann\r\n"


def test_generated_file_saves_nothing_when_the_block_raises(local: FileSystemStorage) -> None:
    with (
        pytest.raises(RuntimeError),
        generated_file("reports/broken.csv", storage=local) as report,
    ):
        report.file.write(b"half a report")
        raise RuntimeError("the job failed")
    assert report.saved is None
    assert not local.exists("reports/broken.csv")


def test_shared_url_of_a_local_file_is_the_storage_url(local: FileSystemStorage) -> None:
    # download_name and expire are S3's; any other storage gives its own url().
    assert shared_url("a b.txt", storage=local, download_name="x.txt") == "/media/a%20b.txt"
