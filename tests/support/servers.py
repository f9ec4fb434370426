"""Private, throwaway database servers for tests that restart or kill the server.

The shared servers on 5432/3306 serve every test at once, so a restart test starts its
own real PostgreSQL or MariaDB on a free loopback port, in a temporary directory, and
may stop it fast, immediately (crash), or with kill -9.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.processes import free_port


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise AssertionError(f"PostgreSQL server binaries ({name}) are not installed")
    return found[-1]


def _as_postgres(*args: str) -> list[str]:
    # initdb and postgres refuse to run as root.
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else list(args)


class PrivatePostgres:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hz-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        subprocess.run(
            _as_postgres(_pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"),
            check=True,
            capture_output=True,
        )

    @property
    def server_url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}"

    def start(self) -> None:
        subprocess.run(
            _as_postgres(
                _pg_bin("pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.dir / "log"),
                "-w",
                "-o",
                f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1",
                "start",
            ),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            _as_postgres(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"),
            check=False,
            capture_output=True,
        )

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"{self.server_url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.server_url}/{name}"

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateMariaDB:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hz-mariadb-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={self.data}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
        )

    @property
    def server_url(self) -> str:
        return f"mysql://root@127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> None:
        self.process = subprocess.Popen(
            [
                "mariadbd",
                "--no-defaults",
                f"--datadir={self.data}",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--socket={self.dir / 'sock'}",
                "--user=root",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=32M",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "log", "ab"),  # noqa: SIM115
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self._connect().close()
                return
            except Exception:
                time.sleep(0.2)
        raise AssertionError(f"MariaDB on port {self.port} did not start")

    def _connect(self, database: str | None = None):  # type: ignore[no-untyped-def]
        import pymysql

        return pymysql.connect(
            host="127.0.0.1",
            port=self.port,
            user="root",
            password="",
            database=database,
            autocommit=True,
            connect_timeout=2,
        )

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self, mode: str = "term") -> None:
        """Stop with SIGTERM (a clean shutdown), or with kill -9 when ``mode`` is "kill"."""
        if mode == "kill":
            self.kill()
        elif self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(60)

    def restart(self, mode: str = "kill") -> None:
        self.stop(mode)
        self.start()

    def create_database(self, name: str) -> str:
        conn = self._connect()
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        conn.close()
        return f"{self.server_url}/{name}"

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
