"""Scratch databases on the real servers for tests that start real processes.

A ``ScratchDatabase`` is created empty, migrated by a real ``manage.py migrate`` and
dropped afterwards; tests read it back with the vendor's own driver so that what they
assert is what the processes committed.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.processes import manage

VENDORS = ("sqlite", "postgresql", "mysql")

PG_SERVER = os.environ.get("TEST_POSTGRES_SERVER", "postgres://postgres@127.0.0.1:5432")
MYSQL_SERVER = os.environ.get("TEST_MYSQL_SERVER", "mysql://root@127.0.0.1:3306")

# Tables a test may leave rows in, children first (for reset()).
TABLES = (
    "horizontal_effect",
    "horizontal_jobattempt",
    "horizontal_jobcontrol",
    "horizontal_jobrun",
    "horizontal_lease",
    "horizontal_instance",
    "billing_refund",
    "billing_account",
    "django_session",
)


def _pg_admin(server: str = PG_SERVER) -> Any:
    import psycopg

    return psycopg.connect(f"{server}/postgres", autocommit=True, connect_timeout=5)


def _mysql_admin(database: str | None = None, server: str = MYSQL_SERVER) -> Any:
    import pymysql

    url = urlsplit(server)
    return pymysql.connect(
        host=url.hostname or "127.0.0.1",
        port=url.port or 3306,
        user=url.username or "root",
        password=url.password or "",
        database=database,
        autocommit=True,
        connect_timeout=5,
    )


class ScratchDatabase:
    def __init__(
        self, vendor: str, extra_env: dict[str, str] | None = None, server: str | None = None
    ) -> None:
        """``server`` (a URL without a database) points at a private server instead."""
        self.vendor = vendor
        self.server = server or (MYSQL_SERVER if vendor == "mysql" else PG_SERVER)
        self.extra_env = extra_env or {}
        self.name = f"hz_{uuid.uuid4().hex[:10]}"
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if vendor == "sqlite":
            self._tmp = tempfile.TemporaryDirectory(prefix="hz-sqlite-")
            self.path = Path(self._tmp.name) / "db.sqlite3"
            self.url = f"sqlite:///{self.path}"
        elif vendor in ("postgresql", "mysql"):
            self.url = f"{self.server}/{self.name}"
        else:
            raise ValueError(vendor)

    @property
    def env(self) -> dict[str, str]:
        return {"DATABASE_URL": self.url, **self.extra_env}

    def create(self, *, migrate: bool = True) -> ScratchDatabase:
        if self.vendor == "postgresql":
            with _pg_admin(self.server) as conn:
                conn.execute(f'CREATE DATABASE "{self.name}"')
        elif self.vendor == "mysql":
            with _mysql_admin(server=self.server) as conn, conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE `{self.name}` CHARACTER SET utf8mb4")
        if migrate:
            manage("migrate", "-v0", env=self.env)
        return self

    def drop(self) -> None:
        if self.vendor == "postgresql":
            with _pg_admin(self.server) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        elif self.vendor == "mysql":
            with _mysql_admin(server=self.server) as conn, conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS `{self.name}`")
        elif self._tmp is not None:
            self._tmp.cleanup()

    def connect(self) -> Any:
        if self.vendor == "postgresql":
            import psycopg

            return psycopg.connect(self.url, autocommit=True, connect_timeout=5)
        if self.vendor == "mysql":
            return _mysql_admin(self.name, self.server)
        conn = sqlite3.connect(self.path, timeout=20, isolation_level=None)
        return conn

    def write_locked(self, wait: float = 2.0) -> bool:
        """Whether another connection keeps SQLite's one write lock for ``wait`` seconds."""
        assert self.vendor == "sqlite", self.vendor
        conn = sqlite3.connect(self.path, timeout=wait, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return True
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.close()
        return False

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement with ``%s`` placeholders and return every row."""
        if self.vendor == "sqlite":
            sql = sql.replace("%s", "?")
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql, params)
            rows = list(cur.fetchall()) if cur.description else []
            cur.close()
            return rows
        finally:
            conn.close()

    def reset(self, tables: tuple[str, ...] = TABLES) -> None:
        for table in tables:
            self.query(f"DELETE FROM {table}")
