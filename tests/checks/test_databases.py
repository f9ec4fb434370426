"""Deploy checks W030-W036 (horizontal/checks/databases.py).

W030-W032 and the I033 note read settings, from the SHARED baseline. The connection
budget against the real servers' max_connections (W034, I035) and the collation of
horizontal's key columns (W036) are tagged ``database``: they ask only the aliases
Django passes in ``databases``, and read the server's catalogue.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import checks
from django.db import connections
from django.test import override_settings

from horizontal.checks import databases as database_checks
from tests.checks.baseline import (
    POSTGRES,
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_ids,
    shared_settings,
)

NETWORK_ALIASES = ("postgresql", "mysql")


@pytest.fixture(autouse=True)
def no_ambient_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks read these variables; the machine running the tests may set them."""
    for name in ("WEB_CONCURRENCY", "PGCONNECT_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


def test_sqlite_is_w030() -> None:
    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": "/srv/app/db.sqlite3"}
    assert deploy_ids(DATABASES={"default": sqlite}) == ["horizontal.W030"]


def test_spatialite_is_sqlite_too() -> None:
    spatialite = {"ENGINE": "django.contrib.gis.db.backends.spatialite", "NAME": "geo.db"}
    assert deploy_ids(DATABASES={"default": spatialite}) == ["horizontal.W030"]


@pytest.mark.parametrize("max_age", [None, 60])
def test_persistent_connections_without_health_checks_are_w031(max_age: int | None) -> None:
    database = {**POSTGRES, "CONN_MAX_AGE": max_age}
    assert deploy_ids(DATABASES={"default": database}) == ["horizontal.W031"]


def test_a_pool_without_health_checks_is_w031() -> None:
    # Django gives psycopg_pool a check only with CONN_HEALTH_CHECKS: a pooled
    # connection that died with a failover is lent as it is.
    database = {**POSTGRES, "OPTIONS": {**POSTGRES["OPTIONS"], "pool": True}}
    with shared_settings(DATABASES={"default": database}):
        [warning] = database_checks.check_persistent_connections()
    assert warning.id == "horizontal.W031"
    assert "pool" in (warning.hint or "")
    checked = {**database, "CONN_HEALTH_CHECKS": True}
    assert deploy_ids(DATABASES={"default": checked}) == []


@pytest.mark.parametrize(
    "fix",
    [
        {"CONN_HEALTH_CHECKS": True},
        {"CONN_MAX_AGE": 0},
        {"CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": True, "OPTIONS": {"pool": True}},
    ],
)
def test_persistent_connections_fixed(fix: dict[str, Any]) -> None:
    database = {**POSTGRES, "CONN_MAX_AGE": 60, **fix}
    database["OPTIONS"] = {**POSTGRES["OPTIONS"], **database["OPTIONS"]}
    assert deploy_ids(DATABASES={"default": database}) == []


@pytest.mark.parametrize("engine", ["django.db.backends.postgresql", "django.db.backends.mysql"])
def test_no_connect_timeout_is_w032(engine: str) -> None:
    database = {**POSTGRES, "ENGINE": engine, "OPTIONS": {}}
    assert deploy_ids(DATABASES={"default": database}) == ["horizontal.W032"]


def test_connect_timeout_zero_means_forever() -> None:
    database = {**POSTGRES, "OPTIONS": {"connect_timeout": 0}}
    assert deploy_ids(DATABASES={"default": database}) == ["horizontal.W032"]


def test_pgconnect_timeout_environment_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "3")
    database = {**POSTGRES, "OPTIONS": {}}
    assert deploy_ids(DATABASES={"default": database}) == []


def test_every_alias_is_checked() -> None:
    replica = {**POSTGRES, "OPTIONS": {}}
    ids = deploy_ids(DATABASES={"default": POSTGRES, "replica": replica})
    assert ids == ["horizontal.W032"]


# -- the connection budget, settings only (I033) -----------------------------------------


def budget_notes(**changes: Any) -> list[checks.CheckMessage]:
    with shared_settings(**changes):
        return list(database_checks.check_connection_budget_note())


def test_budget_note_without_numbers_names_the_formula() -> None:
    [note] = budget_notes()
    assert note.id == "horizontal.I033"
    assert note.level == checks.INFO
    assert "N instances x P processes x 1" in note.msg


def test_budget_note_names_only_the_missing_setting() -> None:
    [note] = budget_notes(HORIZONTAL_EXPECTED_INSTANCES=3)
    assert "3 instances x P processes x 1" in note.msg
    assert note.hint == (
        "Set HORIZONTAL_PROCESSES_PER_INSTANCE (or WEB_CONCURRENCY) "
        "to have it compared with max_connections."
    )


def test_budget_note_multiplies_pool_size() -> None:
    database = {**POSTGRES, "OPTIONS": {"connect_timeout": 5, "pool": {"max_size": 10}}}
    [note] = budget_notes(
        DATABASES={"default": database},
        HORIZONTAL_EXPECTED_INSTANCES=3,
        HORIZONTAL_PROCESSES_PER_INSTANCE=4,
    )
    assert "3 instances x 4 processes x 10 = 120" in note.msg


def test_budget_note_reads_web_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "8")
    [note] = budget_notes(HORIZONTAL_EXPECTED_INSTANCES=2)
    assert "2 instances x 8 processes x 1 = 16" in note.msg


@pytest.mark.parametrize("engine", ["django.db.backends.dummy", "not_installed.db.backend"])
def test_serverless_or_unimportable_engines_get_nothing(engine: str) -> None:
    databases = {"default": {"ENGINE": engine}}
    assert deploy_ids(DATABASES=databases) == []
    assert budget_notes(DATABASES=databases) == []


def test_no_budget_note_for_sqlite() -> None:
    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}
    assert budget_notes(DATABASES={"default": sqlite}) == []


def test_database_budget_check_does_nothing_without_databases() -> None:
    assert database_checks.check_connection_budget(databases=None) == []


# -- the connection budget against the server (W034, I035) ------------------------------


@pytest.fixture(params=NETWORK_ALIASES)
def alias(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def budget(alias: str, **overrides: Any) -> list[Any]:
    with override_settings(**overrides):
        return list(database_checks.check_connection_budget(databases=[alias]))


def server_limit(alias: str) -> int:
    limit = database_checks._server_connection_limit(alias)
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
def test_unknown_fleet_size_gets_the_capacity_note(alias: str) -> None:
    limit = server_limit(alias)
    [note] = budget(alias, HORIZONTAL_PROCESSES_PER_INSTANCE=4)
    assert note.id == "horizontal.I035"
    assert f"{limit // 4} instances of 4" in note.msg


def test_sqlite_alias_is_never_asked() -> None:
    # No django_db mark: asking SQLite would raise "Database access not allowed".
    assert database_checks.check_connection_budget(databases=["default"]) == []


# -- horizontal's key columns compare byte for byte (W036) -------------------------------


def inexact(alias: str) -> list[checks.CheckMessage]:
    return list(database_checks.check_exact_text_columns(databases=[alias]))


def test_exact_text_columns_check_does_nothing_without_databases() -> None:
    assert database_checks.check_exact_text_columns(databases=None) == []


def test_exact_text_columns_never_ask_sqlite() -> None:
    assert database_checks.check_exact_text_columns(databases=["default"]) == []


@pytest.mark.django_db(transaction=True, databases=["default", *NETWORK_ALIASES])
def test_hardening_01_migrated_key_columns_are_byte_exact(alias: str) -> None:
    # The mysql test database has the server's default collation (utf8mb4_general_ci):
    # horizontal's migrations alone make the four columns exact.
    assert inexact(alias) == []


@pytest.mark.parametrize("collation", ["utf8mb4_general_ci", "utf8mb4_bin"])
@pytest.mark.django_db(transaction=True, databases=["default", "mysql"])
def test_hardening_01_mysql_column_that_folds_or_pads_is_w036(collation: str) -> None:
    # utf8mb4_bin is binary but PAD SPACE: 'foo' and 'foo ' are still one key.
    with connections["mysql"].cursor() as cursor:
        cursor.execute(
            f"ALTER TABLE horizontal_effect MODIFY `key` varchar(255) COLLATE {collation} NOT NULL"
        )
        try:
            [warning] = inexact("mysql")
        finally:
            cursor.execute(
                "ALTER TABLE horizontal_effect MODIFY `key` varchar(255)"
                " COLLATE utf8mb4_nopad_bin NOT NULL"
            )
    assert warning.id == "horizontal.W036"
    assert f"horizontal_effect.key ({collation})" in warning.hint
    assert inexact("mysql") == []


@pytest.mark.django_db(transaction=True, databases=["default", "postgresql"])
def test_hardening_01_postgresql_nondeterministic_column_is_w036() -> None:
    with connections["postgresql"].cursor() as cursor:
        cursor.execute(
            "CREATE COLLATION IF NOT EXISTS hz_case_insensitive"
            " (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
        )
        # The slot column: the lease name's varchar_pattern_ops index refuses such a collation.
        cursor.execute(
            "ALTER TABLE horizontal_jobrun ALTER COLUMN slot TYPE varchar(64)"
            " COLLATE hz_case_insensitive"
        )
        try:
            [warning] = inexact("postgresql")
        finally:
            cursor.execute(
                'ALTER TABLE horizontal_jobrun ALTER COLUMN slot TYPE varchar(64) COLLATE "default"'
            )
    assert "horizontal_jobrun.slot (hz_case_insensitive)" in warning.hint
    assert inexact("postgresql") == []


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(database_checks)


def every_message() -> list[checks.CheckMessage]:
    alias = "default"
    demand = database_checks.Demand(instances=12, processes=8, per_process=10)
    return [
        database_checks.W030(alias),
        database_checks.W031(alias),
        database_checks.W032(alias),
        database_checks.I033(alias, demand),
        database_checks.W034(alias, demand, 500),
        database_checks.I035(alias, demand, 500),
        database_checks.W036(alias, [("horizontal_effect", "key", "utf8mb4_general_ci")]),
    ]


@pytest.mark.parametrize("message", every_message(), ids=lambda m: m.id)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)
