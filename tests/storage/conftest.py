"""Fixtures for the storage tests: moto's server as a real S3 endpoint over HTTP."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from horizontal.storage import S3Storage
from tests.support.s3 import (
    ISOLATED_AWS_ENV,
    REGION,
    MotoServer,
    SilentServer,
    start_moto_server,
)

# Small bounds so the fault tests stay fast; the defaults (2 s, 5 s, 3 attempts) scale
# the same way: storage.worst_case_seconds is the bound either way.
FAST = {"connect_timeout": 0.5, "read_timeout": 1.0, "max_attempts": 2}
# Scheduling slack for a loaded CI machine, on top of the configured bound.
SLACK = 1.5


def storage_at(endpoint: str, bucket: str = "any-bucket", **options: Any) -> S3Storage:
    """An ``S3Storage`` on ``endpoint`` with the FAST bounds and the test credentials."""
    defaults = {
        "bucket_name": bucket,
        "endpoint_url": endpoint,
        "region_name": REGION,
        "access_key": "testing-access-key",
        "secret_key": "testing-secret-key",
        **FAST,
    }
    return S3Storage(**{**defaults, **options})


@pytest.fixture(autouse=True)
def isolated_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer credentials, config files or instance metadata reach a client."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    for name, value in ISOLATED_AWS_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="session")
def moto() -> Iterator[MotoServer]:
    server = start_moto_server()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def strict_moto() -> Iterator[MotoServer]:
    """A moto server that checks access keys and signatures, as real S3 does."""
    server = start_moto_server({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    # moto loads its access-key machinery on the first checked request (seconds on a
    # loaded machine): pay that here, so a test's own bound measures the code under test.
    with contextlib.suppress(Exception):
        server.client(read_timeout=60, retries={"max_attempts": 0}).list_buckets()
    yield server
    server.stop()


@pytest.fixture
def bucket(moto: MotoServer) -> str:
    return moto.create_bucket()


@pytest.fixture
def storage(moto: MotoServer, bucket: str) -> S3Storage:
    return S3Storage(**moto.storage_options(bucket))


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nobody listens on (connection refused)."""
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return int(probe_socket.getsockname()[1])
