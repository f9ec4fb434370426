"""A private, real redis-server for the tests that break Redis.

The shared Redis on 6379 is never stopped or paused; these tests start their own on a
free port and stop, kill or SIGSTOP that one.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import redis

from tests.support.processes import free_port


class RedisServer:
    """``config``: more directives for the server's command line, e.g.
    ``{"maxmemory": "4mb", "maxmemory-policy": "volatile-lru"}`` for a server that evicts.
    """

    def __init__(self, config: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.config = dict(config or {})
        self._dir = tempfile.TemporaryDirectory(prefix="hz-redis-")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._dir.name,
                "--dbfilename",
                "dump.rdb",
                *(arg for name, value in self.config.items() for arg in (f"--{name}", value)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                self.client().ping()
                return self
            except redis.RedisError:
                time.sleep(0.05)
        raise AssertionError(f"redis-server on port {self.port} did not start")

    def kill(self, *, keep_data: bool = True) -> None:
        """Close the port abruptly (SIGKILL); with ``keep_data`` snapshot first."""
        if keep_data:
            self.client().save()
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)

    def pause(self) -> None:
        """SIGSTOP: the port stays open, nothing answers (a wedged server)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(10)
        self._dir.cleanup()

    def has_snapshot(self) -> bool:
        return (Path(self._dir.name) / "dump.rdb").exists()
