"""Generated files (reports, exports) in shared storage, on any storage backend.

``save_generated`` and ``generated_file`` save to ``STORAGES["default"]`` (or the
storage given) and return the stored name with a URL; ``shared_url`` gives such a URL
later. On S3 the URL is signed and can name a download file name; on any other
storage it is the storage's own ``url()``. Nothing here imports boto3 or
django-storages, so a project on ``FileSystemStorage`` (development) uses the same
code without the ``s3`` extra.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, NamedTuple

from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage, storages
from django.utils.http import content_disposition_header

from horizontal.storage.s3_common import is_s3

__all__ = [
    "SPOOL_MEMORY",
    "GeneratedFile",
    "SavedFile",
    "generated_file",
    "save_generated",
    "shared_url",
]

# Generated files up to this size stay in memory while they are written.
SPOOL_MEMORY = 8 * 1024 * 1024


class SavedFile(NamedTuple):
    """A file in shared storage: the name it got (maybe not the one asked for) and a URL."""

    name: str
    url: str
    size: int


def shared_url(
    name: str,
    *,
    storage: Storage | None = None,
    download_name: str | None = None,
    expire: int | None = None,
) -> str:
    """A URL for ``name`` that works through any instance: signed when on S3.

    ``download_name`` makes browsers save it under that name (S3 only): any name,
    quotes, backslashes and non-ASCII included (RFC 6266; ``filename*`` for what a
    quoted string cannot carry).
    """
    target = storages["default"] if storage is None else storage
    if not is_s3(target):
        url: str = target.url(name)
        return url
    parameters: dict[str, Any] = {}
    if download_name:
        # Django's RFC 6266 header: a quoted string with its escapes, or filename*=
        # for non-ASCII and control characters. The bucket sends it back verbatim.
        parameters["ResponseContentDisposition"] = content_disposition_header(True, download_name)
    # S3Storage.url takes these; is_s3() said this is one (the stubs know only Storage).
    return str(target.url(name, parameters=parameters, expire=expire))  # type: ignore[call-arg]


def save_generated(
    name: str,
    content: bytes | str | IO[Any] | File[Any],
    *,
    storage: Storage | None = None,
    download_name: str | None = None,
    expire: int | None = None,
) -> SavedFile:
    """Save a generated file (report, export) to shared storage; return its name and URL.

    The name may come back changed (``report_a1b2c3d.csv``) when ``name`` is taken:
    store the returned name, not the one you asked for.
    """
    target = storages["default"] if storage is None else storage
    file = content if isinstance(content, File) else _as_file(content)
    stored = target.save(name, file)
    url = shared_url(stored, storage=target, download_name=download_name, expire=expire)
    return SavedFile(stored, url, int(file.size))


def _as_file(content: bytes | str | IO[Any]) -> File[Any]:
    if isinstance(content, (bytes, str)):
        return ContentFile(content.encode() if isinstance(content, str) else content)
    return File(content)


class GeneratedFile:
    """What ``generated_file()`` yields: write to ``.file``; ``.saved`` after the block."""

    def __init__(self, text: bool, encoding: str) -> None:
        # Closed by generated_file() when its block ends.
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115
        self.file: IO[Any] = (
            io.TextIOWrapper(self._spool, encoding=encoding, newline="") if text else self._spool
        )
        self.saved: SavedFile | None = None

    def _bytes(self) -> IO[bytes]:
        self.file.flush()
        self._spool.seek(0)
        return self._spool

    def close(self) -> None:
        self.file.close()


@contextmanager
def generated_file(
    name: str,
    *,
    text: bool = False,
    encoding: str = "utf-8",
    storage: Storage | None = None,
    download_name: str | None = None,
    expire: int | None = None,
) -> Iterator[GeneratedFile]:
    """Write a report or export locally, then save it to shared storage in one piece.

        with generated_file("reports/daily.csv", text=True) as report:
            csv.writer(report.file).writerows(rows)
        report.saved.name, report.saved.url

    Nothing is saved if the block raises. The local spool (memory, then a temp file
    past 8 MiB) is removed either way.
    """
    generated = GeneratedFile(text, encoding)
    try:
        yield generated
        generated.saved = save_generated(
            name,
            File(generated._bytes()),
            storage=storage,
            download_name=download_name,
            expire=expire,
        )
    finally:
        generated.close()
