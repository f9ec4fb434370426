from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import ScratchDatabase
from tests.triggers.harness import TABLES, scratch_database


@pytest.fixture(scope="session")
def trigger_db() -> Iterator[ScratchDatabase]:
    """One migrated scratch PostgreSQL database for the session's trigger tests."""
    database = scratch_database()
    yield database
    database.drop()


@pytest.fixture
def workload_db(trigger_db: ScratchDatabase) -> ScratchDatabase:
    """The trigger tests' database, emptied."""
    trigger_db.reset(TABLES)
    return trigger_db
