"""A broken S3 endpoint or bucket: a clear error within the configured bound, never a hang.

Each fault is real: a port nobody listens on, a TCP server that accepts and never
answers, a bucket that does not exist, a server that refuses the access key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from django.core.files.base import ContentFile

from horizontal.storage import S3Storage, probe, readiness
from tests.support.s3 import REGION, MotoServer, SilentServer

# Small bounds so the suite stays fast; the defaults (2 s, 5 s, 3 attempts) scale the
# same way: storage.worst_case_seconds is the bound either way.
FAST = {"connect_timeout": 0.5, "read_timeout": 1.0, "max_attempts": 2}
# Scheduling slack for a loaded CI machine, on top of the configured bound.
SLACK = 1.5


def timed(action: Callable[[], Any]) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        action()
    except BaseException as error:  # the error is the result under test
        return time.monotonic() - started, error
    return time.monotonic() - started, None


def storage_at(endpoint: str, bucket: str = "any-bucket", **options: Any) -> S3Storage:
    defaults = {
        "bucket_name": bucket,
        "endpoint_url": endpoint,
        "region_name": REGION,
        "access_key": "testing-access-key",
        "secret_key": "testing-secret-key",
        **FAST,
    }
    return S3Storage(**{**defaults, **options})


def test_endpoint_down_fails_fast_with_a_connection_error(closed_port: int) -> None:
    storage = storage_at(f"http://127.0.0.1:{closed_port}")
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, EndpointConnectionError)
    assert f"127.0.0.1:{closed_port}" in str(error)
    assert seconds < storage.worst_case_seconds + SLACK


def test_endpoint_that_never_answers_times_out_within_the_bound(
    silent_server: SilentServer,
) -> None:
    storage = storage_at(silent_server.url)
    assert storage.worst_case_seconds == 2 * (0.5 + 1.0 + 1.0) + 1.0
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, ReadTimeoutError), error
    assert "Read timeout" in str(error)
    # Both attempts really waited for their read timeout: the bound is not vacuous.
    assert 2 * 1.0 <= seconds < storage.worst_case_seconds + SLACK


def test_reading_from_an_endpoint_that_never_answers_times_out(
    silent_server: SilentServer,
) -> None:
    storage = storage_at(silent_server.url, max_attempts=1)
    seconds, error = timed(lambda: storage.open("a.txt").read())
    assert isinstance(error, ReadTimeoutError), error
    assert seconds < storage.worst_case_seconds + SLACK


def test_missing_bucket_is_a_clear_error(moto: MotoServer) -> None:
    storage = storage_at(moto.url, bucket="no-such-bucket-here")
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, ClientError)
    assert error.response["Error"]["Code"] == "NoSuchBucket"
    assert seconds < storage.worst_case_seconds + SLACK


def test_reading_from_a_missing_bucket_is_not_a_missing_file(moto: MotoServer) -> None:
    storage = storage_at(moto.url, bucket="no-such-bucket-here")
    with pytest.raises(ClientError, match="NoSuchBucket"):
        storage.open("a.txt")


def test_probe_reports_a_healthy_bucket(moto: MotoServer, bucket: str) -> None:
    result = probe(storage_at(moto.url, bucket=bucket), timeout=2)
    assert result.ok, result
    assert result.problem is None
    assert bucket in result.detail


def test_probe_with_writes_finds_create_only_writes_honoured_and_cleans_up(
    moto: MotoServer, bucket: str
) -> None:
    result = probe(storage_at(moto.url, bucket=bucket, location="tenant"), timeout=3, writes=True)
    assert result.ok, result
    leftovers = moto.client().list_objects_v2(Bucket=bucket).get("Contents", [])
    assert leftovers == []


def test_probe_with_writes_reports_refused_credentials(strict_moto: MotoServer) -> None:
    storage = storage_at(strict_moto.url, access_key="AKIAUNKNOWNKEY000000")
    result = probe(storage, timeout=2, writes=True)
    assert result.problem == readiness.CREDENTIALS_REFUSED


def test_probe_reports_endpoint_down(closed_port: int) -> None:
    result = probe(storage_at(f"http://127.0.0.1:{closed_port}"), timeout=2)
    assert not result.ok
    assert result.problem == readiness.UNREACHABLE
    assert f"127.0.0.1:{closed_port}" in result.detail
    assert result.seconds < 2 + SLACK


def test_probe_reports_an_endpoint_that_never_answers(silent_server: SilentServer) -> None:
    started = time.monotonic()
    result = probe(storage_at(silent_server.url), timeout=1)
    elapsed = time.monotonic() - started
    assert not result.ok
    assert result.problem == readiness.TIMEOUT
    assert "no answer" in result.detail
    assert 1.0 <= elapsed < 1 + SLACK


def test_probe_reports_a_missing_bucket(moto: MotoServer) -> None:
    result = probe(storage_at(moto.url, bucket="no-such-bucket-here"), timeout=2)
    assert result.problem == readiness.BUCKET_MISSING
    assert "NoSuchBucket" in result.detail


def test_probe_reports_refused_credentials(strict_moto: MotoServer) -> None:
    result = probe(storage_at(strict_moto.url, access_key="AKIAUNKNOWNKEY000000"), timeout=2)
    assert not result.ok
    assert result.problem == readiness.CREDENTIALS_REFUSED
    assert "InvalidAccessKeyId" in result.detail


def test_probe_of_local_storage_is_ok_and_says_so() -> None:
    from django.core.files.storage import FileSystemStorage

    result = probe(FileSystemStorage(), timeout=1)
    assert result.ok
    assert "FileSystemStorage is not S3" in result.detail


@pytest.mark.parametrize("timeout", [0.5, 1.0])
def test_probe_never_outlives_its_timeout(silent_server: SilentServer, timeout: float) -> None:
    result = probe(storage_at(silent_server.url, read_timeout=30), timeout=timeout)
    assert result.problem == readiness.TIMEOUT
    assert result.seconds < timeout + 0.5
