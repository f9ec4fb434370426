"""`manage.py check` on testproject as real processes: what CI and developers run.

- the production settings (environment-driven: PostgreSQL, Redis, S3) pass
  ``check --deploy --fail-level WARNING`` with nothing from horizontal above INFO;
- the development settings (SQLite, no CACHES, local files) get the expected warnings,
  including Django's implicit defaults, and only under ``--deploy``.
"""

from __future__ import annotations

import importlib
import secrets
import subprocess
import sys
from typing import Any

import django
import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from tests.support.processes import manage

pytestmark = pytest.mark.multiprocess

# Everything the production settings require. The database need not hold horizontal's
# tables: checks read settings; only `--database` asks the server for max_connections.
PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "testproject.settings_production",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DJANGO_ALLOWED_HOSTS": "app.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
    # A name, not this host's address (W026 would say so): nothing here connects to Redis.
    "REDIS_URL": "redis://redis.internal:6379/15",
    "AWS_STORAGE_BUCKET_NAME": "testproject-media",
    "AWS_S3_REGION_NAME": "us-east-1",
}
# The variables that switch the development settings onto shared services.
SHARED_SERVICES = ("DATABASE_URL", "REDIS_URL", "AWS_STORAGE_BUCKET_NAME", "AWS_S3_ENDPOINT_URL")


def check(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return manage("check", *args, env=env, check=False)


def horizontal_lines(done: subprocess.CompletedProcess[str], level: str = "W") -> list[str]:
    output = done.stdout + done.stderr
    return [line for line in output.splitlines() if f"(horizontal.{level}" in line]


def is_settings_check(check_id: str) -> bool:
    """W001-W019 and W030-W059: the checks of Django's own settings (caches.py, the engine
    checks of sessions.py, databases.py, background.py, secret_key.py, logging_email.py)."""
    number = int(check_id.removeprefix("horizontal.W"))
    return 1 <= number <= 19 or 30 <= number <= 59


@pytest.fixture
def development(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in SHARED_SERVICES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("HORIZONTAL_EXPECTED_INSTANCES", raising=False)
    return {"DJANGO_SETTINGS_MODULE": "testproject.settings"}


def test_production_settings_pass_deploy_check_at_warning_level() -> None:
    done = check("--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert horizontal_lines(done, "W") == []
    assert horizontal_lines(done, "E") == []


def test_production_settings_pass_with_the_database_budget() -> None:
    env = {**PRODUCTION, "HORIZONTAL_EXPECTED_INSTANCES": "2", "WEB_CONCURRENCY": "2"}
    done = check("--deploy", "--fail-level", "WARNING", "--database", "default", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert horizontal_lines(done, "W") == []


def test_production_settings_fail_when_the_fleet_outgrows_the_server() -> None:
    env = {**PRODUCTION, "HORIZONTAL_EXPECTED_INSTANCES": "100000", "WEB_CONCURRENCY": "4"}
    done = check("--deploy", "--fail-level", "WARNING", "--database", "default", env=env)
    assert done.returncode == 1
    assert [line.split(")")[0] for line in horizontal_lines(done)] == [
        "DATABASES['default']: (horizontal.W034"
    ]


def test_unreachable_database_is_skipped_by_the_budget_check() -> None:
    """Nothing listens on port 1: the budget cannot be compared, and that is no warning."""
    env = {
        **PRODUCTION,
        "DATABASE_URL": "postgres://postgres@127.0.0.1:1/postgres",
        "HORIZONTAL_EXPECTED_INSTANCES": "100000",
        "WEB_CONCURRENCY": "4",
    }
    done = check("--deploy", "--fail-level", "WARNING", "--database", "default", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert horizontal_lines(done, "W") == []
    assert "(horizontal.I033)" in done.stdout + done.stderr


def test_development_settings_get_the_single_instance_warnings(
    development: dict[str, str],
) -> None:
    done = check("--deploy", env=development)
    assert done.returncode == 0  # warnings do not fail at the default level
    ids = sorted({line.split("(")[1].split(")")[0] for line in horizontal_lines(done)})
    expected = ["horizontal.W030"]
    assert [i for i in ids if is_settings_check(i) and i[11] == "W"] == expected
    if django.VERSION >= (6, 0):
        # TASKS left at ImmediateBackend, but testproject defines no task: a note, not W041.
        assert "(horizontal.I041)" in done.stdout + done.stderr
    # CACHES is not set, sessions are in the database and the code only memoises through
    # the cache: the implicit LocMemCache is a note, as the audit leaves it unreported.
    assert "(horizontal.I001)" in done.stdout + done.stderr
    assert "implicit LocMemCache" in done.stdout + done.stderr


def test_development_settings_fail_ci_at_warning_level(development: dict[str, str]) -> None:
    done = check("--deploy", "--fail-level", "WARNING", env=development)
    assert done.returncode == 1
    assert "SystemCheckError" in done.stderr


def test_plain_check_on_development_settings_has_no_deploy_warnings(
    development: dict[str, str],
) -> None:
    done = check(env=development)
    assert done.returncode == 0, done.stdout + done.stderr
    assert horizontal_lines(done, "W") == []
    assert horizontal_lines(done, "I") == []


@pytest.mark.django_db(databases=["default", "postgresql", "mysql", "mysql_repeatable_read"])
def test_call_command_check_deploy_fails_under_a_bad_configuration(settings: Any) -> None:
    # Django 6.1 hands every check all databases (MySQL's field checks connect, through
    # every alias that reaches it); the mark lets them connect. PgBouncer is left out: its
    # field checks do not connect, and the pooler runs only while its tests run.
    bad = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=bad), pytest.raises(SystemCheckError) as raised:
        call_command("check", "--deploy", "--fail-level", "WARNING")
    assert "(horizontal.W001)" in str(raised.value)


@pytest.mark.django_db(databases=["default", "postgresql", "mysql", "mysql_repeatable_read"])
@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_call_command_check_deploy_passes_under_the_production_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same module the processes above load, applied in process with override_settings."""
    for name, value in PRODUCTION.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delitem(sys.modules, "testproject.settings_production", raising=False)
    production = importlib.import_module("testproject.settings_production")
    values = {name: value for name, value in vars(production).items() if name.isupper()}
    with override_settings(**values):
        call_command("check", "--deploy", "--fail-level", "WARNING")
