"""Settings for the in-process test suite: testproject plus one alias per real server.

``default`` is whatever ``DATABASE_URL`` says (SQLite file by default); ``postgresql``
and ``mysql`` always point at the real servers so vendor-parametrised tests cover all
three in one run; ``pgbouncer`` reaches the ``postgresql`` test database through a
private PgBouncer in transaction mode (started by the ``pgbouncer`` fixture, only in a
session that uses the alias). ``REDIS_URL`` defaults to the local server.
"""

from __future__ import annotations

import os
import socket
import tempfile

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")

from testproject.dburl import database_from_url, use_pymysql
from testproject.settings import *  # noqa: F403
from testproject.settings import DATABASES

use_pymysql()

TEST_POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/horizontal"
)
TEST_MYSQL_URL = os.environ.get("TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/horizontal")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# Chosen here because Django reads the port from settings; tests/conftest.py's pgbouncer
# fixture listens on it.
TEST_PGBOUNCER_PORT = int(os.environ.get("TEST_PGBOUNCER_PORT") or _free_port())

DATABASES = {
    **DATABASES,
    "postgresql": database_from_url(TEST_POSTGRES_URL),
    "mysql": database_from_url(TEST_MYSQL_URL),
    # Django's defaults, as documented in docs/jobs.md "Behind PgBouncer": no prepared
    # statements (prepare_threshold None). Server-side cursors are left on, so a use of
    # them by horizontal would fail here.
    "pgbouncer": {
        **database_from_url(f"postgres://postgres@127.0.0.1:{TEST_PGBOUNCER_PORT}/horizontal"),
        # The same test database as ``postgresql`` (a mirror is neither created nor
        # flushed itself), reached through the pooler.
        "TEST": {"MIRROR": "postgresql"},
    },
}
# Each pytest process gets its own test databases: runs for two Django versions, or by
# two people on one machine, must not drop each other's.
_run = f"{os.environ.get('HORIZONTAL_TEST_DB_SUFFIX', '')}_{os.getpid()}"
for _alias in ("postgresql", "mysql"):
    DATABASES[_alias]["TEST"] = {"NAME": f"test_horizontal{_run}"}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"horizontal-test{_run}.sqlite3")
    }
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_horizontal_default{_run}"}
# The MySQL test database again, through connections under REPEATABLE READ (MariaDB's
# server default, and a level Django supports): gap locks behave differently there.
DATABASES["mysql_repeatable_read"] = {
    **DATABASES["mysql"],
    "OPTIONS": {**DATABASES["mysql"]["OPTIONS"], "isolation_level": "repeatable read"},
    "TEST": {"MIRROR": "mysql"},
}

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
HORIZONTAL_FLEET_INTERVAL = 0  # no registry thread in the test process
