"""The connection budget against the real servers' max_connections (W034, I035).

``check_connection_budget`` is tagged ``database``: it asks only the aliases Django
passes in ``databases``, and reads one server variable.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from horizontal.checks import settings as settings_checks

NETWORK_ALIASES = ("postgresql", "mysql")


@pytest.fixture(params=NETWORK_ALIASES)
def alias(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def budget(alias: str, **overrides: Any) -> list[Any]:
    with override_settings(**overrides):
        return list(settings_checks.check_connection_budget(databases=[alias]))


def server_limit(alias: str) -> int:
    limit = settings_checks._server_connection_limit(alias)
    assert limit is not None and limit > 0
    return limit


@pytest.mark.django_db(databases=["default", *NETWORK_ALIASES])
def test_fleet_larger_than_the_server_is_w034(alias: str) -> None:
    limit = server_limit(alias)
    [warning] = budget(
        alias, HORIZONTAL_EXPECTED_INSTANCES=limit + 1, HORIZONTAL_PROCESSES_PER_INSTANCE=1
    )
    assert warning.id == "horizontal.W034"
    assert f"the server allows {limit}" in warning.msg


@pytest.mark.django_db(databases=["default", *NETWORK_ALIASES])
def test_fleet_that_fits_is_silent(alias: str) -> None:
    limit = server_limit(alias)
    assert (
        budget(alias, HORIZONTAL_EXPECTED_INSTANCES=limit, HORIZONTAL_PROCESSES_PER_INSTANCE=1)
        == []
    )


@pytest.mark.django_db(databases=["default", *NETWORK_ALIASES])
def test_unknown_fleet_size_gets_the_capacity_note(
    alias: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    limit = server_limit(alias)
    [note] = budget(alias, HORIZONTAL_PROCESSES_PER_INSTANCE=4)
    assert note.id == "horizontal.I035"
    assert f"{limit // 4} instances of 4" in note.msg


def test_sqlite_alias_is_never_asked() -> None:
    # No django_db mark: asking SQLite would raise "Database access not allowed".
    assert settings_checks.check_connection_budget(databases=["default"]) == []
