"""``save_generated``, ``generated_file`` and ``shared_url`` on a storage that is not S3,
and the download name of a signed URL on a real S3 endpoint (moto's server).

They are storage-agnostic: a project on ``FileSystemStorage`` (development) runs the
same report code as one on S3. On S3 they are exercised through real instances in
``test_instances.py``.
"""

from __future__ import annotations

import csv
import io
import re
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage

from horizontal.storage import S3Storage, SavedFile, generated_file, save_generated, shared_url


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


# RFC 6266 as a strict reader (a browser) takes it: a whole quoted-string (RFC 9110:
# '"' and '\\' only as backslash pairs), or filename*=UTF-8''… (RFC 5987 percent-encoding).
QUOTED = re.compile(r'attachment; filename="((?:[^"\\]|\\.)*)"')
EXTENDED = re.compile(r"attachment; filename\*=utf-8''([A-Za-z0-9%!#$&+.^_`|~-]+)", re.I)


def filename_a_browser_saves(content_disposition: str) -> str:
    if match := QUOTED.fullmatch(content_disposition):
        return re.sub(r"\\(.)", r"\1", match[1])
    if match := EXTENDED.fullmatch(content_disposition):
        return urllib.parse.unquote(match[1], encoding="utf-8", errors="strict")
    raise AssertionError(f"not an RFC 6266 Content-Disposition: {content_disposition!r}")


@pytest.mark.parametrize(
    "download_name",
    ['quarterly "final" report.csv', r"back\slash.csv", "Grüße, 世界.csv", "tab\tand\nnewline.csv"],
)
def test_hardening_11_download_name_round_trips_through_a_signed_url(
    storage: S3Storage, download_name: str
) -> None:
    saved = save_generated("exports/report.csv", b"a,b\r\n", storage=storage)
    url = shared_url(saved.name, storage=storage, download_name=download_name)
    with urllib.request.urlopen(url, timeout=5) as response:
        header = response.headers["Content-Disposition"]
        assert response.read() == b"a,b\r\n"
    # The name the user sees is the one asked for, whole: a '"' no longer ends the
    # quoted string early, and non-ASCII travels as filename*.
    assert filename_a_browser_saves(header) == download_name
