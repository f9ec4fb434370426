"""``horizontal.storage.S3Storage``: files every instance can read, on S3.

It is django-storages' S3 backend with defaults that are safe when many instances
write to one bucket (``docs/files.md``):

- a save never replaces an existing object. The write itself is conditional
  (``If-None-Match: *``), so two instances saving ``report.pdf`` at the same moment
  both keep their bytes: the loser of the race is stored under a fresh name. There is
  no HEAD before each save (upstream's ``file_overwrite=False`` asks first, which costs
  a round trip and still races);
- private objects (no ACL is sent; the bucket's policy applies) and signed URLs;
- SigV4; connect/read timeouts of 2 s / 5 s and botocore's ``standard`` retries with 3
  attempts, all within a deadline of 10 s per call, so a wedged endpoint costs
  seconds, not minutes, and less than a load balancer's idle timeout;
- region and endpoint from ``OPTIONS``, the ``AWS_S3_*`` settings, or the environment
  (``AWS_REGION``, ``AWS_ENDPOINT_URL_S3``...), for AWS, MinIO, Ceph, R2 or moto;
- a read is one GET (upstream: HEAD, HEAD, GET).

Every upstream option still works and wins over these defaults.

This module needs the ``s3`` extra (boto3, botocore, django-storages);
``horizontal.storage`` loads it on first use of ``S3Storage`` or ``worst_case_seconds``.
"""

from __future__ import annotations

import contextvars
import io
import os
import shutil
import tempfile
import threading
from typing import IO, Any

from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import File
from django.utils.deconstruct import deconstructible
from s3transfer.constants import ALLOWED_DOWNLOAD_ARGS
from storages.backends.s3 import S3Storage as UpstreamS3Storage
from storages.utils import (
    ReadBytesWrapper,
    clean_name,
    get_available_overwrite_name,
    is_seekable,
    setting,
)

from horizontal.storage.generated import SPOOL_MEMORY
from horizontal.storage.s3_common import NAME_TAKEN_STATUSES, error_code, http_status
from horizontal.storage.s3_deadline import CallDeadline, S3DeadlineExceeded, worst_case_seconds
from horizontal.storage.s3_options import (  # noqa: F401  (the defaults: see below)
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_READ_TIMEOUT,
    EXPECT_CONTINUE_WAIT,
    MULTIPART_CHUNK,
    MULTIPART_THRESHOLD,
    bounded_config_options,
    bounds_error,
    horizontal_defaults,
)

__all__ = ["S3DeadlineExceeded", "S3Storage", "worst_case_seconds"]

# The defaults are imported from s3_options (their one home, read by the deploy checks
# without boto3) and stay reachable here: horizontal.storage serves them from this
# module under the names of earlier releases.

# Fresh names a save tries when each one turns out to be taken at write time; each try
# after the first costs a HEAD per candidate, so this only matters under a name storm.
NAME_ATTEMPTS = 10
_COPY_CHUNK = 1024 * 1024

# Storage.save() knows the field's max_length, _save() does not; a fresh name picked
# after a lost race must respect it too.
_max_length: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "horizontal_storage_max_length", default=None
)


# Migrations record the public path of a storage given to a FileField, as before the
# package split, so that moving the class makes no migration. (django-storages has no
# type hints: strict mypy sees the base class as Any.)
@deconstructible(path="horizontal.storage.S3Storage")
class S3Storage(UpstreamS3Storage):  # type: ignore[misc]  # django-storages is untyped
    """django-storages' ``S3Storage`` with fleet-safe defaults (see the module doc).

    Extra ``OPTIONS``: ``connect_timeout`` and ``read_timeout`` (seconds),
    ``max_attempts`` (per call, first try included), ``deadline`` (seconds one call may
    take, retries included; ``None`` for none), ``conditional_writes`` (``False``
    only for an S3-compatible server that rejects ``If-None-Match``; saves then ask
    with a HEAD first, which two instances can still race) and ``deterministic_names``
    (``True`` for a cache whose names are derived from what they hold, such as
    thumbnails: a save under an existing name replaces it, as the cache expects).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._validate_bounds()
        if self.deterministic_names:
            # Same name, same derived content: the newest write is the right one, and
            # the library that wrote it reads it back under the name it asked for.
            self.file_overwrite = True
        # Ours underneath, the caller's client_config (if any) on top: every option
        # they set explicitly wins, timeouts and retries they left out are bounded.
        bounded = Config(**bounded_config_options(self._bounds()))
        self.client_config: Config = bounded.merge(self.client_config)
        self._writers = threading.local()

    def _bounds(self) -> dict[str, Any]:
        # getattr, not vars(): a subclass may set these as class attributes.
        names = ("connect_timeout", "read_timeout", "max_attempts", "deadline")
        return {name: getattr(self, name) for name in names}

    def _validate_bounds(self) -> None:
        error = bounds_error(self._bounds())
        if error is not None:
            raise ImproperlyConfigured(error)

    def get_default_settings(self) -> dict[str, Any]:
        defaults: dict[str, Any] = super().get_default_settings()
        defaults.update(
            horizontal_defaults(),
            transfer_config=setting("AWS_S3_TRANSFER_CONFIG")
            or TransferConfig(
                multipart_threshold=MULTIPART_THRESHOLD, multipart_chunksize=MULTIPART_CHUNK
            ),
        )
        return defaults

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = super().__getstate__()
        state.pop("_writers", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._writers = threading.local()

    @property
    def worst_case_seconds(self) -> float:
        """Longest one call to the endpoint can block (see ``worst_case_seconds()``)."""
        return worst_case_seconds(self.client_config, self.deadline)

    def _create_session(self) -> Any:
        # Every client of this storage (upstream's connection, our writers) comes from
        # here and copies the session's events: one place bounds them all.
        session = super()._create_session()
        if self.deadline is not None:
            CallDeadline(float(self.deadline)).register(session.events)
        return session

    @property
    def refuses_overwrite(self) -> bool:
        """Whether a save is a conditional create that cannot replace an object."""
        return not self.file_overwrite and bool(self.conditional_writes)

    # --- saving -----------------------------------------------------------------

    def save(self, name: str | None, content: Any, max_length: int | None = None) -> str:
        token = _max_length.set(max_length)
        try:
            return str(super().save(name, content, max_length=max_length))
        finally:
            _max_length.reset(token)

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        if self.refuses_overwrite:
            # The write itself refuses an existing key; asking first would cost a HEAD
            # per save and still race with another instance.
            return str(get_available_overwrite_name(clean_name(name), max_length))
        return str(super().get_available_name(name, max_length))

    def _save(self, name: str, content: Any) -> str:
        if not self.refuses_overwrite:
            return str(super()._save(name, content))
        name = clean_name(name)
        params = self._get_write_parameters(self._normalize_name(name), content)
        payload = _Payload(content)
        if self._compresses(params):
            payload = _Payload(self._compress_content(payload.source))
            params["ContentEncoding"] = "gzip"
        for _ in range(NAME_ATTEMPTS):
            try:
                self._create(self._normalize_name(name), payload, params)
                return name
            except ClientError as error:
                if http_status(error) not in NAME_TAKEN_STATUSES:
                    raise
            # Another instance took the name between our choice and our write.
            name = str(super().get_available_name(name, _max_length.get()))
        raise FileExistsError(
            f"no free name for {name!r} after {NAME_ATTEMPTS} attempts; nothing was written"
        )

    def _compresses(self, params: dict[str, Any]) -> bool:
        return bool(
            self.gzip
            and params["ContentType"] in self.gzip_content_types
            and "ContentEncoding" not in params
        )

    def _create(self, key: str, payload: _Payload, params: dict[str, Any]) -> None:
        """Write ``key`` only if it does not exist yet (412/409 otherwise)."""
        if payload.size < self.transfer_config.multipart_threshold:
            self._writer.put_object(Bucket=self.bucket_name, Key=key, Body=payload.body(), **params)
            return
        # Multipart: the writer client adds If-None-Match to CompleteMultipartUpload;
        # s3transfer aborts the upload (and its parts) when that is refused.
        source = payload.rewound()
        self._writer.upload_fileobj(
            source, self.bucket_name, key, ExtraArgs=params, Config=self.transfer_config
        )

    @property
    def _writer(self) -> Any:
        """This thread's client whose object writes are create-only."""
        client = getattr(self._writers, "client", None)
        if client is None:
            client = self._create_session().client(
                "s3",
                region_name=self.region_name,
                use_ssl=self.use_ssl,
                endpoint_url=self.endpoint_url,
                config=self.client_config,
                verify=self.verify,
            )
            events = client.meta.events
            events.register("before-parameter-build.s3.PutObject", _if_none_match)
            events.register("before-parameter-build.s3.CompleteMultipartUpload", _if_none_match)
            self._writers.client = client
        return client

    # --- reading ------------------------------------------------------------------

    def _open(self, name: str, mode: str = "rb") -> File[Any]:
        if any(flag in mode for flag in "wa+") or self.gzip:
            opened: File[Any] = super()._open(name, mode)
            return opened
        key = self._normalize_name(clean_name(name))
        params = {
            k: v for k, v in self.get_object_parameters(key).items() if k in ALLOWED_DOWNLOAD_ARGS
        }
        try:
            response = self.connection.meta.client.get_object(
                Bucket=self.bucket_name, Key=key, **params
            )
        except ClientError as error:
            # A missing bucket is a configuration error, not a missing file.
            if http_status(error) == 404 and error_code(error) != "NoSuchBucket":
                raise FileNotFoundError(f"File does not exist: {key}") from error
            raise
        return _downloaded(name, response, mode, self.max_memory_size)


def _if_none_match(params: dict[str, Any], **kwargs: Any) -> None:
    params.setdefault("IfNoneMatch", "*")


def _downloaded(name: str, response: dict[str, Any], mode: str, memory: int) -> File[Any]:
    """The GET's body as a seekable local file (in memory up to ``memory`` bytes).

    ``memory`` is ``max_memory_size``: 0 (the default) keeps everything in memory, as
    upstream's spool does; then one read() of the body avoids a copy per chunk.
    """
    body = response["Body"]
    try:
        if memory == 0 or int(response.get("ContentLength", memory + 1)) <= memory:
            local: IO[bytes] = io.BytesIO(body.read())
        else:
            # The spool is the returned file's storage; its caller closes it.
            local = tempfile.SpooledTemporaryFile(  # noqa: SIM115
                max_size=memory, suffix=".S3File", dir=django_settings.FILE_UPLOAD_TEMP_DIR
            )
            shutil.copyfileobj(body, local, _COPY_CHUNK)
            local.seek(0)
    finally:
        body.close()
    if "b" in mode:
        return File(local, name=name)
    return File(io.TextIOWrapper(local, encoding="utf-8"), name=name)


def _held_in_memory(content: Any) -> bool:
    """Whether ``content`` (a Django File, or what it wraps) is already in memory."""
    for _ in range(3):  # File -> UploadedFile.file -> BytesIO, at most
        if isinstance(content, io.BytesIO):
            return True
        content = getattr(content, "file", None)
    return False


class _Payload:
    """The bytes of one save, readable again for a retry under a fresh name."""

    def __init__(self, content: Any) -> None:
        if is_seekable(content) and isinstance(content.read(0), str):
            # Text: sizes and offsets must be counted in encoded bytes.
            content.seek(0)
            content = io.BytesIO(content.read().encode("utf-8"))
        if is_seekable(content):
            content.seek(0, os.SEEK_END)
            self.size = int(content.tell())
            content.seek(0)
            self.source: IO[bytes] = ReadBytesWrapper(content)
            self.in_memory = _held_in_memory(content)
        else:
            spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115
            shutil.copyfileobj(ReadBytesWrapper(content), spool, _COPY_CHUNK)
            self.size = spool.tell()
            spool.seek(0)
            self.source = spool
            self.in_memory = False

    def body(self) -> bytes | IO[bytes]:
        """What a single PUT sends: bytes when they are cheap, else the file itself.

        Bytes go out in one send with no ``Expect: 100-continue`` round trip; a big file
        on disk (a large ``TemporaryUploadedFile``) is streamed instead of loaded.
        """
        source = self.rewound()
        if self.in_memory or self.size <= SPOOL_MEMORY:
            return source.read()
        return source

    def rewound(self) -> IO[bytes]:
        self.source.seek(0)
        # s3transfer closes what it uploaded (boto/s3transfer#80); the caller owns it.
        self.source.close = lambda: None  # type: ignore[method-assign]
        return self.source
