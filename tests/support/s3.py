"""A real S3 endpoint for tests and benchmarks: moto's server in its own process.

The server is a separate ``moto_server`` process on a free loopback port, so every
request crosses a real socket and HTTP stack exactly as it would against AWS, MinIO or
R2; nothing in the test process patches boto. One server serves a whole test session;
each test takes its own bucket.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.processes import free_port

_BIN = Path(sys.executable).parent
REGION = "us-east-1"
ACCESS_KEY = "testing-access-key"
SECRET_KEY = "testing-secret-key"

# Keeps the developer's own ~/.aws out of every client and child process.
ISOLATED_AWS_ENV = {
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@dataclass
class MotoServer:
    process: subprocess.Popen[bytes]
    port: int
    buckets: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, **config: Any) -> Any:
        """A plain boto3 client for this endpoint (what the tests compare against)."""
        import boto3
        from botocore.config import Config

        return boto3.session.Session(
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, region_name=REGION
        ).client("s3", endpoint_url=self.url, config=Config(**config))

    def create_bucket(self, prefix: str = "hz") -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        self.buckets.append(name)
        return name

    def storage_options(self, bucket: str, **extra: Any) -> dict[str, Any]:
        """``STORAGES[...]["OPTIONS"]`` for ``horizontal.storage.S3Storage`` on this server."""
        return {
            "bucket_name": bucket,
            "endpoint_url": self.url,
            "region_name": REGION,
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            **extra,
        }

    def project_env(self, bucket: str) -> dict[str, str]:
        """Environment for a testproject process that stores its files in ``bucket``."""
        return {
            **ISOLATED_AWS_ENV,
            "AWS_STORAGE_BUCKET_NAME": bucket,
            "AWS_S3_ENDPOINT_URL": self.url,
            "AWS_S3_REGION_NAME": REGION,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        }

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_moto_server(env: Mapping[str, str] | None = None, timeout: float = 30) -> MotoServer:
    """Start ``moto_server`` on a free loopback port and wait until it answers HTTP.

    ``env`` reaches the server process, e.g. ``INITIAL_NO_AUTH_ACTION_COUNT=0`` makes it
    check signatures and access keys like real S3 does.
    """
    port = free_port()
    process = subprocess.Popen(
        [str(_BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        env={**os.environ, **ISOLATED_AWS_ENV, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = MotoServer(process, port)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"moto_server exited {process.returncode} before answering")
        try:
            urllib.request.urlopen(f"{server.url}/moto-api/", timeout=1).close()
            return server
        except urllib.error.HTTPError:
            return server  # it answered, with whatever status
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise AssertionError(f"moto_server on port {port} did not answer within {timeout} s")


class SilentServer:
    """A loopback TCP server that accepts connections and never sends a byte.

    The worst kind of broken endpoint: connecting succeeds, so only a read timeout
    stands between a request and a hang.
    """

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.socket.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return  # closed
            self.accepted.append(connection)  # held open, never answered

    def close(self) -> None:
        self.socket.close()
        for connection in self.accepted:
            connection.close()
