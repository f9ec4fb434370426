"""``horizontal.storage.probe``: a bounded, explaining readiness probe, against real faults.

Each fault is real: a port nobody listens on, a TCP server that accepts and never
answers, a bucket that does not exist, a server that refuses the access key.
"""

from __future__ import annotations

import time

import pytest

from horizontal.storage import probe, readiness
from tests.storage.conftest import SLACK, storage_at
from tests.support.s3 import MotoServer, SilentServer


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


def test_the_probe_client_keeps_its_own_timeout_under_the_storage_deadline(
    silent_server: SilentServer,
) -> None:
    # The probe's client comes from the storage's session, which carries the deadline's
    # hooks; they may shorten its read timeout, never stretch it to the storage's 5 s.
    storage = storage_at(silent_server.url, connect_timeout=2.0, read_timeout=5.0)
    client = readiness._probe_client(storage, 1.0)
    started = time.monotonic()
    with pytest.raises(Exception, match="Read timeout"):
        client.list_objects_v2(Bucket=storage.bucket_name, MaxKeys=1)
    assert time.monotonic() - started < 1.0 + SLACK
