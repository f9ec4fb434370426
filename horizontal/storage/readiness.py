"""A bounded, explaining probe of the S3 storage, for readiness views.

Import it as ``horizontal.storage.probe`` (``horizontal.storage_probe.probe``, the path
of earlier releases, still works): this module loads boto3 only when the storage is S3,
so a health view can import it in a project without the ``s3`` extra. (The module is
not called ``probe``: that name on the package is the function.)

``probe()`` lists at most one key of the bucket with a dedicated client (one attempt,
short timeouts) on a worker thread, and waits for it no longer than ``timeout``. It
never raises for an S3 problem: it says which one it found, so a broken bucket is
found by the readiness check before the first upload, not by it.

Listing (not HEAD) is used because a HEAD error has no body: a 403 could not tell
"these credentials are refused" from "this key may not list the bucket" — and
``S3Storage.exists()`` needs ``s3:ListBucket`` anyway (without it S3 answers 403 for a
missing key).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
import weakref
from typing import Any, NamedTuple

from django.core.files.storage import Storage, storages

from horizontal.storage.s3_common import NAME_TAKEN_STATUSES, error_code, http_status, is_s3

__all__ = [
    "ACCESS_DENIED",
    "BUCKET_MISSING",
    "CONDITIONAL_WRITES_UNSUPPORTED",
    "CREDENTIALS_MISSING",
    "CREDENTIALS_REFUSED",
    "DEFAULT_TIMEOUT",
    "ERROR",
    "TIMEOUT",
    "UNREACHABLE",
    "Probe",
    "probe",
]

# What ``Probe.problem`` can be. Stable strings: dashboards and alerts match on them.
UNREACHABLE = "endpoint_unreachable"
TIMEOUT = "endpoint_timeout"
BUCKET_MISSING = "bucket_missing"
CREDENTIALS_REFUSED = "credentials_refused"
CREDENTIALS_MISSING = "credentials_missing"
ACCESS_DENIED = "access_denied"
CONDITIONAL_WRITES_UNSUPPORTED = "conditional_writes_unsupported"
ERROR = "error"

DEFAULT_TIMEOUT = 3.0

# S3 error codes that mean "the endpoint does not accept these credentials".
_REFUSED_CODES = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "InvalidToken",
    "TokenRefreshRequired",
    "InvalidSecurity",
}
_DENIED_CODES = {"AccessDenied", "AllAccessDisabled", "403"}
_MISSING_BUCKET_CODES = {"NoSuchBucket", "404"}


class Probe(NamedTuple):
    """The outcome of one probe. ``problem`` is None when ``ok``."""

    ok: bool
    problem: str | None
    detail: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


def probe(
    storage: Storage | None = None, *, timeout: float = DEFAULT_TIMEOUT, writes: bool = False
) -> Probe:
    """Check that ``storage`` (``STORAGES["default"]``) answers, within ``timeout`` seconds.

    ``writes=True`` also creates a probe object twice with ``If-None-Match: *`` and
    deletes it: the second write must be refused, or saves could overwrite each other
    (``conditional_writes_unsupported``). Meant for a release step, not for every
    readiness call.
    """
    target = storages["default"] if storage is None else storage
    if not is_s3(target):
        return Probe(True, None, f"{type(target).__name__} is not S3; nothing to probe", 0.0)
    started = time.monotonic()
    outcome: list[BaseException | None] = []
    worker = threading.Thread(
        target=_exercise,
        args=(target, timeout, writes, outcome),
        name="horizontal-storage-probe",
        daemon=True,  # a wedged endpoint must not keep the process alive at exit
    )
    worker.start()
    worker.join(timeout)
    seconds = time.monotonic() - started
    if not outcome:
        return Probe(
            False, TIMEOUT, f"{_where(target)} gave no answer within {timeout:g} s", seconds
        )
    return _explain(outcome[0], target, seconds)


class ConditionalWritesIgnored(Exception):
    """The endpoint stored a second create-only write of one key."""


def _exercise(
    storage: Any, timeout: float, writes: bool, outcome: list[BaseException | None]
) -> None:
    try:
        client = _probe_client(storage, timeout)
        client.list_objects_v2(Bucket=storage.bucket_name, Prefix=storage.location, MaxKeys=1)
        if writes:
            _create_twice(client, storage)
    except Exception as exc:
        outcome.append(exc)
    else:
        outcome.append(None)


def _create_twice(client: Any, storage: Any) -> None:
    from botocore.exceptions import ClientError

    key = storage._normalize_name(f".horizontal-probe/{uuid.uuid4().hex}")
    create = {"Bucket": storage.bucket_name, "Key": key, "Body": b"", "IfNoneMatch": "*"}
    try:
        client.put_object(**create)
        try:
            client.put_object(**create)
        except ClientError as error:
            if http_status(error) in NAME_TAKEN_STATUSES:
                return  # refused, as S3 does: saves cannot overwrite each other
            raise
        raise ConditionalWritesIgnored(
            f"a second If-None-Match: * write of {key!r} was accepted; set OPTIONS "
            "conditional_writes=False (see horizontal.W064)"
        )
    finally:
        with contextlib.suppress(Exception):  # best effort: the answer matters more
            client.delete_object(Bucket=storage.bucket_name, Key=key)


# One client per (storage, timeout): building a boto3 client costs tens of
# milliseconds, a readiness view runs every few seconds.
_clients: weakref.WeakKeyDictionary[Any, dict[float, Any]] = weakref.WeakKeyDictionary()
_clients_lock = threading.Lock()


def _probe_client(storage: Any, timeout: float) -> Any:
    from botocore.config import Config

    with _clients_lock:
        per_timeout = _clients.setdefault(storage, {})
        client = per_timeout.get(timeout)
        if client is None:
            # One attempt: the readiness view asks again on its own schedule.
            bounded = Config(
                connect_timeout=timeout,
                read_timeout=timeout,
                retries={"mode": "standard", "total_max_attempts": 1},
            )
            config = storage.client_config.merge(bounded)
            client = storage._create_session().client(
                "s3",
                region_name=storage.region_name,
                use_ssl=storage.use_ssl,
                endpoint_url=storage.endpoint_url,
                config=config,
                verify=storage.verify,
            )
            per_timeout[timeout] = client
        return client


def _where(storage: Any) -> str:
    endpoint = storage.endpoint_url or f"S3 ({storage.region_name or 'default region'})"
    return f"{endpoint} bucket {storage.bucket_name!r}"


def _explain(error: BaseException | None, storage: Any, seconds: float) -> Probe:
    from botocore.exceptions import (
        ClientError,
        ConnectTimeoutError,
        EndpointConnectionError,
        NoCredentialsError,
        PartialCredentialsError,
        ReadTimeoutError,
    )

    where = _where(storage)
    if error is None:
        return Probe(True, None, f"{where} answered", seconds)
    if isinstance(error, ConnectTimeoutError):
        return Probe(False, UNREACHABLE, f"{where}: connect timed out ({error})", seconds)
    if isinstance(error, EndpointConnectionError):
        return Probe(False, UNREACHABLE, f"{where}: cannot connect ({error})", seconds)
    if isinstance(error, ReadTimeoutError):
        return Probe(False, TIMEOUT, f"{where}: connected, no answer ({error})", seconds)
    if isinstance(error, ConditionalWritesIgnored):
        return Probe(False, CONDITIONAL_WRITES_UNSUPPORTED, f"{where}: {error}", seconds)
    if isinstance(error, (NoCredentialsError, PartialCredentialsError)):
        return Probe(False, CREDENTIALS_MISSING, f"{where}: {error}", seconds)
    if isinstance(error, ClientError):
        problem = _problem_for_code(error_code(error))
        return Probe(False, problem, f"{where}: {error}", seconds)
    return Probe(False, ERROR, f"{where}: {type(error).__name__}: {error}", seconds)


def _problem_for_code(code: str) -> str:
    if code in _MISSING_BUCKET_CODES:
        return BUCKET_MISSING
    if code in _REFUSED_CODES:
        return CREDENTIALS_REFUSED
    if code in _DENIED_CODES:
        return ACCESS_DENIED
    if code == "NotImplemented":  # a server that rejects If-None-Match outright
        return CONDITIONAL_WRITES_UNSUPPORTED
    return ERROR
