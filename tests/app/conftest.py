"""Fixtures of the app room: one scratch SQLite project database for the monitoring tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import ScratchDatabase


@pytest.fixture(scope="session")
def monitoring_db() -> Iterator[ScratchDatabase]:
    """A migrated SQLite project database shared by the metrics, fleet and log tests.

    They write disjoint rows (runs of the monitoring demo's jobs, fleet rows by instance
    name), so one migrate (several seconds) serves them all.
    """
    db = ScratchDatabase("sqlite").create()
    yield db
    db.drop()
