"""A real HAProxy (Debian's package, installed by ``scripts/services``) in front of
gunicorn instances on loopback, health-checking their readiness view.

The configuration is written to a temporary directory and HAProxy runs in the
foreground on a free port. Its admin socket answers ``show stat``, which is how a test
reads what the balancer believes: each server's state (UP, DOWN, …) and how many
requests it has sent there.
"""

from __future__ import annotations

import csv
import io
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.processes import free_port

READY_PATH = "/horizontal/ready/"

CONFIG = """\
global
    maxconn 512
    stats socket {socket} mode 600 level admin
    log stderr format short local0 info

defaults
    mode http
    log global
    option dontlognull
    option httplog
    timeout connect 500ms
    timeout client 30s
    timeout server 30s
    # The readiness view answers within its own bound (HORIZONTAL_HEALTH_TIMEOUT).
    timeout check 2s
    # A refused connection (an instance that has stopped) is tried on another server.
    retries 3
    option redispatch 1

frontend web
    bind 127.0.0.1:{port}
    default_backend app

backend app
    balance roundrobin
    option httpchk
    http-check send meth GET uri {ready_path} ver HTTP/1.1 hdr Host localhost
    http-check expect status 200
    default-server check inter {inter_ms}ms fall {fall} rise {rise}
{servers}
"""


@dataclass(frozen=True)
class ServerStat:
    name: str
    status: str  # "UP", "DOWN", "MAINT", "UP 1/2", "DOWN 1/2", ...
    sessions_total: int  # requests (sessions) the balancer has sent to it
    current: int  # sessions in flight now


class HAProxy:
    def __init__(
        self,
        ports: Sequence[int],
        *,
        inter_ms: int = 500,
        fall: int = 2,
        rise: int = 1,
        ready_path: str = READY_PATH,
        log_path: Path | None = None,
    ) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise AssertionError("haproxy is not installed (scripts/services installs it)")
        self.binary = binary
        self.port = free_port()
        self.inter_ms, self.fall, self.rise = inter_ms, fall, rise
        self.names = [f"web{i}" for i in range(len(ports))]
        self._dir = tempfile.TemporaryDirectory(prefix="hz-haproxy-")
        self.socket_path = Path(self._dir.name) / "admin.sock"
        self.config_path = Path(self._dir.name) / "haproxy.cfg"
        servers = "\n".join(
            f"    server {name} 127.0.0.1:{port}"
            for name, port in zip(self.names, ports, strict=True)
        )
        self.config_path.write_text(
            CONFIG.format(
                socket=self.socket_path,
                port=self.port,
                ready_path=ready_path,
                inter_ms=inter_ms,
                fall=fall,
                rise=rise,
                servers=servers,
            )
        )
        self.log_path = log_path or Path(self._dir.name) / "haproxy.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HAProxy:
        subprocess.run(
            [self.binary, "-c", "-q", "-f", str(self.config_path)], check=True, capture_output=True
        )
        self.process = subprocess.Popen(
            [self.binary, "-db", "-f", str(self.config_path)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.log_path, "ab"),  # noqa: SIM115
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"haproxy exited: {self.log_path.read_text()}")
            try:
                self.stats()
                return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError("haproxy's admin socket did not answer")

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(2)
            connection.connect(str(self.socket_path))
            connection.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stats(self) -> dict[str, ServerStat]:
        text = self.command("show stat").lstrip("# ")
        found = {}
        for row in csv.DictReader(io.StringIO(text)):
            if row["pxname"] == "app" and row["svname"] in self.names:
                found[row["svname"]] = ServerStat(
                    row["svname"], row["status"], int(row["stot"] or 0), int(row["scur"] or 0)
                )
        return found

    def set_address(self, name: str, port: int) -> None:
        """Point server ``name`` at another loopback port (a replacement instance)."""
        answer = self.command(f"set server app/{name} addr 127.0.0.1 port {port}")
        assert "changed" in answer or not answer.strip(), answer

    def status(self, name: str) -> str:
        return self.stats()[name].status

    def wait_for(self, name: str, status: str, timeout: float = 30) -> float:
        """Wait until the balancer says ``name`` is ``status`` ("UP"/"DOWN"); seconds taken."""
        started = time.monotonic()
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.status(name) == status:
                return time.monotonic() - started
            time.sleep(0.02)
        raise AssertionError(f"{name} is {self.status(name)!r}, not {status!r}, after {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._dir.cleanup()
