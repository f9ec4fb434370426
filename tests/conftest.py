"""Fixtures shared by the whole suite.

The real servers (PostgreSQL, MariaDB, Redis) must be up: ``scripts/services`` starts
them, and a test that cannot reach one fails rather than skips.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import VENDORS, ScratchDatabase
from tests.support.pgbouncer import PgBouncer

_scratch: dict[str, ScratchDatabase] = {}


@pytest.fixture(scope="session")
def scratch_databases() -> Iterator[dict[str, ScratchDatabase]]:
    yield _scratch
    for database in _scratch.values():
        database.drop()


@pytest.fixture(params=VENDORS)
def project_db(
    request: pytest.FixtureRequest, scratch_databases: dict[str, ScratchDatabase]
) -> ScratchDatabase:
    """A migrated scratch database for real ``manage.py`` processes, emptied per test.

    Parametrised over SQLite, PostgreSQL and MariaDB; created once per vendor per run.
    """
    vendor = request.param
    if vendor not in scratch_databases:
        scratch_databases[vendor] = ScratchDatabase(vendor).create()
    database = scratch_databases[vendor]
    database.reset()
    return database


@pytest.fixture(scope="session")
def pgbouncer(django_db_setup: None) -> Iterator[PgBouncer]:
    """The session's private PgBouncer in transaction mode (tests/support/pgbouncer.py).

    It listens where tests/settings.py points the ``pgbouncer`` alias. Started after the
    test databases exist (``django_db_setup``), so it stops, closing its idle server
    connections, before they are dropped.
    """
    from django.conf import settings

    bouncer = PgBouncer(port=int(settings.DATABASES["pgbouncer"]["PORT"])).start()
    yield bouncer
    bouncer.stop()


# Every vendor alias the in-process suite knows; see tests/settings.py.
DB_ALIASES = ("default", "postgresql", "mysql", "pgbouncer")


@pytest.fixture(params=DB_ALIASES)
def db_alias(request: pytest.FixtureRequest, transactional_db: None, settings: object) -> str:
    """Run the test against each real database in turn, as HORIZONTAL_DATABASE."""
    alias = str(request.param)
    if alias == "pgbouncer":
        request.getfixturevalue("pgbouncer")
    settings.HORIZONTAL_DATABASE = alias  # type: ignore[attr-defined]
    return alias
