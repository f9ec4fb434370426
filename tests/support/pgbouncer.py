"""A private, real PgBouncer in transaction pooling mode in front of the local PostgreSQL.

Debian's ``pgbouncer`` package provides the binary (``scripts/services`` installs it);
its service unit is never used. Each test session starts its own process with its own
config in a temporary directory: loopback on a free port, any client user accepted and
forwarded as ``postgres`` (the local server trusts it), every database name mapped to
the server, and a pool of ``POOL_SIZE`` server connections per database, so that client
connections really share server connections between transactions.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.processes import free_port

# Server connections per database: fewer than the clients of any test that uses it.
POOL_SIZE = 2
UPSTREAM = urlsplit(os.environ.get("TEST_POSTGRES_SERVER", "postgres://postgres@127.0.0.1:5432"))
# PgBouncer refuses to run as root; the postgres user exists wherever the server does.
UNPRIVILEGED_USER = "postgres"

CONFIG = """\
[databases]
* = host={host} port={upstream_port} user={user}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = {pool_size}
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 500
admin_users = {user}
# A client waiting this long for a server connection gets an error instead of hanging:
# a pool held by a client that never ends its transaction shows as a failure.
query_wait_timeout = 10
logfile = {dir}/pgbouncer.log
pidfile = {dir}/pgbouncer.pid
"""


# Parameters PgBouncer remembers per client and sets on whichever server connection the
# client gets (track_extra_parameters adds more only from 1.20 on).
TRACKED_PARAMETERS = (
    "client_encoding",
    "datestyle",
    "timezone",
    "standard_conforming_strings",
    "application_name",
)


class PgBouncer:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="hz-pgbouncer-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def server_url(self) -> str:
        """A URL without a database, like ``ScratchDatabase``'s ``server``."""
        return f"postgres://{UPSTREAM.username or 'postgres'}@127.0.0.1:{self.port}"

    def url(self, database: str) -> str:
        return f"{self.server_url}/{database}"

    def start(self) -> PgBouncer:
        binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        assert Path(binary).exists(), "pgbouncer is not installed (scripts/services installs it)"
        config = self.dir / "pgbouncer.ini"
        config.write_text(
            CONFIG.format(
                host=UPSTREAM.hostname or "127.0.0.1",
                upstream_port=UPSTREAM.port or 5432,
                user=UPSTREAM.username or "postgres",
                port=self.port,
                pool_size=POOL_SIZE,
                dir=self.dir,
            )
        )
        run_as: dict[str, Any] = {}
        if os.geteuid() == 0:
            account = pwd.getpwnam(UNPRIVILEGED_USER)
            os.chown(self.dir, account.pw_uid, account.pw_gid)
            os.chown(config, account.pw_uid, account.pw_gid)
            run_as = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        self.process = subprocess.Popen(
            [binary, str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **run_as,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                self.admin("SHOW VERSION")
                return self
            except Exception:
                time.sleep(0.05)
        self.stop()
        raise AssertionError(f"pgbouncer did not start on port {self.port}:\n{self.log()}")

    def admin(self, command: str) -> list[dict[str, Any]]:
        """Run one admin console command (``SHOW POOLS``, ``SHOW CONFIG``) and return its rows."""
        import psycopg

        with psycopg.connect(self.url("pgbouncer"), autocommit=True, connect_timeout=2) as conn:
            cursor = conn.execute(command)
            if cursor.description is None:
                return []
            names = [column.name for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def pool(self, database: str) -> dict[str, Any]:
        """This database's row of ``SHOW POOLS``."""
        pools = [row for row in self.admin("SHOW POOLS") if row["database"] == database]
        assert pools, f"pgbouncer has no pool for {database!r}"
        return pools[0]

    def server_sessions(self, database: str) -> list[dict[str, Any]]:
        """What each server connection of ``database``'s pool would hand its next client.

        ``POOL_SIZE`` clients each open a transaction, so each holds a different server
        connection of the pool, and read that session's state: prepared statements, open
        (holdable) cursors, advisory locks, channels listened to, and settings changed
        for the session (without the parameters PgBouncer itself tracks per client).
        """
        import psycopg

        clients = [
            psycopg.connect(self.url(database), prepare_threshold=None, connect_timeout=5)
            for _ in range(POOL_SIZE)
        ]
        try:
            sessions = []
            for client in clients:
                sessions.append(
                    {
                        "pid": _one(client, "SELECT pg_backend_pid()"),
                        "prepared statements": _all(
                            client, "SELECT name FROM pg_prepared_statements"
                        ),
                        "cursors": _all(client, "SELECT name FROM pg_cursors"),
                        "advisory locks": _all(
                            client,
                            "SELECT objid FROM pg_locks"
                            " WHERE pid = pg_backend_pid() AND locktype = 'advisory'",
                        ),
                        "listening": _all(client, "SELECT pg_listening_channels()"),
                        "session settings": _all(
                            client,
                            "SELECT name || '=' || setting FROM pg_settings"
                            " WHERE source = 'session' AND lower(name) <> ALL(%s)",
                            [list(TRACKED_PARAMETERS)],
                        ),
                    }
                )
            assert len({session["pid"] for session in sessions}) == POOL_SIZE, sessions
            return sessions
        finally:
            for client in clients:
                client.close()

    def log(self) -> str:
        path = self.dir / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """SIGTERM: PgBouncer closes its server connections, so the databases can be dropped."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def _one(client: Any, sql: str) -> Any:
    return client.execute(sql).fetchone()[0]


def _all(client: Any, sql: str, params: list[Any] | None = None) -> list[Any]:
    return [row[0] for row in client.execute(sql, params).fetchall()]


def assert_handed_on_clean(bouncer: PgBouncer, alias: str = "pgbouncer") -> None:
    """Nothing left on any server connection of the Django alias's pool for the next client."""
    from django.db import connections

    for session in bouncer.server_sessions(connections[alias].settings_dict["NAME"]):
        leftovers = {key: value for key, value in session.items() if key != "pid" and value}
        assert not leftovers, f"server connection {session['pid']} carries {leftovers}"
