"""horizontal/checks/migrations.py: ``horizontal.W070``–``W076`` as a check.

The rules themselves (``horizontal.deploy.compat``) are tested in
tests/deploy/test_compat.py, with ``check --deploy --database`` on a real database at
its first migration.
"""

from __future__ import annotations

import pytest

from horizontal.checks.migrations import IDS, check_pending_migrations
from horizontal.deploy.compat import RECIPES


def test_every_id_has_a_recipe_and_the_check_asks_only_named_databases() -> None:
    assert tuple(f"horizontal.{code}" for code in RECIPES) == IDS
    assert check_pending_migrations(databases=None) == []


@pytest.mark.django_db
def test_a_database_with_every_migration_applied_has_nothing_to_flag() -> None:
    assert check_pending_migrations(databases=["default"]) == []
