"""Deploy warnings W001-W019 and W030-W059 (horizontal/checks/settings.py).

Every test starts from SHARED, a configuration with nothing single-instance in it (and
asserts that it is clean), changes one thing, and asserts the exact ids that come back,
so a rule that fires too often or cascades into a neighbour's id fails here too.
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import global_settings
from django.core import checks
from django.core.checks.registry import registry
from django.test import override_settings

from horizontal.checks import settings as settings_checks

POSTGRES = {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": "app",
    "HOST": "db.internal",
    "OPTIONS": {"connect_timeout": 5},
}
REDIS = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://cache.internal:6379/0",
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
}
LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
CONSOLE_LOGGING = {
    "version": 1,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"]},
}
SHARED: dict[str, Any] = {
    "CACHES": {"default": REDIS},
    "SESSION_ENGINE": "django.contrib.sessions.backends.db",
    "DATABASES": {"default": POSTGRES},
    "TASKS": {},
    "LOGGING": CONSOLE_LOGGING,
    "SETTINGS_MODULE": "tests.checks.settings_modules.stable_key",
}

pytestmark = pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")


@pytest.fixture(autouse=True)
def no_ambient_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks read these variables; the machine running the tests may set them."""
    for name in ("WEB_CONCURRENCY", "PGCONNECT_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


def deploy_ids(**changes: Any) -> list[str]:
    """Ids from this module's deploy checks under SHARED plus ``changes``."""
    own = [
        check
        for check in registry.get_checks(include_deployment_checks=True)
        if check.__module__ == settings_checks.__name__
    ]
    with override_settings(**{**SHARED, **changes}):
        messages = [message for check in own for message in check(app_configs=None)]
    return sorted(message.id for message in messages if message.id != "horizontal.I033")


def test_the_shared_baseline_is_clean() -> None:
    assert deploy_ids() == []


# -- caches ------------------------------------------------------------------------------


def test_locmem_cache_is_w001() -> None:
    assert deploy_ids(CACHES={"default": LOCMEM}) == ["horizontal.W001"]


def test_one_warning_per_offending_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM, "pages": LOCMEM}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001", "horizontal.W001"]


def test_locmem_subclass_is_w001() -> None:
    caches = {"default": {"BACKEND": "tests.checks.backends.MeteredLocMemCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001"]


def test_file_cache_is_w002() -> None:
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": "/var/tmp/cache",
        }
    }
    assert deploy_ids(CACHES=caches) == ["horizontal.W002"]


def test_dummy_cache_is_w003() -> None:
    caches = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W003"]


def test_local_caches_setting_excuses_a_deliberate_per_instance_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM}
    assert deploy_ids(CACHES=caches, HORIZONTAL_LOCAL_CACHES=["l1"]) == []


def test_database_and_memcached_caches_are_shared() -> None:
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache"},
        "memcached": {"BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache"},
        "redis": {"BACKEND": "django.core.cache.backends.redis.RedisCache"},
    }
    assert deploy_ids(CACHES=caches) == []


def test_unimportable_backend_is_not_a_crash_and_not_a_guess() -> None:
    caches = {"default": {"BACKEND": "not_installed_anywhere.cache.FastCache"}}
    assert deploy_ids(CACHES=caches) == []


def test_explicit_locmem_hint_offers_the_opt_out() -> None:
    # override_settings cannot unset a setting, so Django's implicit default (no CACHES
    # at all) is covered end to end by test_project.py on testproject's dev settings.
    with override_settings(CACHES=global_settings.CACHES):
        [warning] = settings_checks.check_locmem_caches()
    assert warning.id == "horizontal.W001"
    assert "HORIZONTAL_LOCAL_CACHES" in (warning.hint or "")


# -- session engines ---------------------------------------------------------------------


def test_file_sessions_are_w010() -> None:
    engine = "django.contrib.sessions.backends.file"
    assert deploy_ids(SESSION_ENGINE=engine) == ["horizontal.W010"]


def test_file_session_subclass_is_w010() -> None:
    assert deploy_ids(SESSION_ENGINE="tests.checks.backends") == ["horizontal.W010"]


@pytest.mark.parametrize("engine", ["cache", "cached_db"])
def test_cache_sessions_on_a_local_cache_are_w011(engine: str) -> None:
    caches = {"default": REDIS, "sessions": LOCMEM}
    ids = deploy_ids(
        SESSION_ENGINE=f"django.contrib.sessions.backends.{engine}",
        SESSION_CACHE_ALIAS="sessions",
        CACHES=caches,
        HORIZONTAL_LOCAL_CACHES=["sessions"],  # does not excuse the session cache
    )
    assert ids == ["horizontal.W011"]


def test_cache_sessions_on_redis_are_fine() -> None:
    assert deploy_ids(SESSION_ENGINE="django.contrib.sessions.backends.cache") == []


def test_cache_sessions_on_the_implicit_default_cache_warn_twice() -> None:
    ids = deploy_ids(
        SESSION_ENGINE="django.contrib.sessions.backends.cache",
        CACHES=global_settings.CACHES,
    )
    assert ids == ["horizontal.W001", "horizontal.W011"]


# -- databases ---------------------------------------------------------------------------


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


@pytest.mark.parametrize(
    "fix", [{"CONN_HEALTH_CHECKS": True}, {"CONN_MAX_AGE": 0}, {"OPTIONS": {"pool": True}}]
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


# -- the connection budget (settings only) -----------------------------------------------


def budget_notes(**changes: Any) -> list[checks.CheckMessage]:
    with override_settings(**{**SHARED, **changes}):
        return list(settings_checks.check_connection_budget_note())


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
    assert settings_checks.check_connection_budget(databases=None) == []


# -- background work ---------------------------------------------------------------------


def test_in_memory_channel_layer_is_w040() -> None:
    layers = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
        "redis": {"BACKEND": "channels_redis.core.RedisChannelLayer"},
    }
    assert deploy_ids(CHANNEL_LAYERS=layers) == ["horizontal.W040"]


def test_immediate_tasks_are_w041() -> None:
    tasks = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    assert deploy_ids(TASKS=tasks) == ["horizontal.W041"]


def test_backported_immediate_tasks_are_w041() -> None:
    tasks = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    assert deploy_ids(TASKS=tasks) == ["horizontal.W041"]


def test_dummy_tasks_are_w042() -> None:
    tasks = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    assert deploy_ids(TASKS=tasks) == ["horizontal.W042"]


def test_implicit_tasks_default_on_django_6() -> None:
    """Django 6 defaults TASKS to ImmediateBackend; 5.2 has no TASKS at all."""
    default = getattr(global_settings, "TASKS", None)
    expected = ["horizontal.W041"] if default else []
    assert deploy_ids(TASKS=default) == expected


def with_app(app: str) -> list[str]:
    return [*SHARED_APPS, app]


SHARED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "horizontal",
]


def test_apscheduler_is_w043() -> None:
    ids = deploy_ids(INSTALLED_APPS=with_app("django_apscheduler"))
    assert ids == ["horizontal.W043"]


def test_crontab_is_w044() -> None:
    assert deploy_ids(INSTALLED_APPS=with_app("django_crontab")) == ["horizontal.W044"]


def test_django_cron_file_lock_is_w045() -> None:
    ids = deploy_ids(
        INSTALLED_APPS=with_app("django_cron"),
        DJANGO_CRON_LOCK_BACKEND="django_cron.backends.lock.file.FileLock",
    )
    assert ids == ["horizontal.W045"]


def test_django_cron_default_cache_lock_is_w046() -> None:
    [warning] = [
        m
        for m in run_own(INSTALLED_APPS=with_app("django_cron"))
        if m.id.startswith("horizontal.W04")
    ]
    assert warning.id == "horizontal.W046"
    assert "not atomic" in warning.msg


def test_django_cron_cache_lock_on_a_local_cache_says_so() -> None:
    [warning] = [
        m
        for m in run_own(
            INSTALLED_APPS=with_app("django_cron"),
            CACHES={"default": REDIS, "cron": LOCMEM},
            HORIZONTAL_LOCAL_CACHES=["cron"],
            DJANGO_CRON_CACHE="cron",
        )
        if m.id.startswith("horizontal.W04")
    ]
    assert warning.id == "horizontal.W046"
    assert "uses local cache 'cron'" in warning.msg


def test_django_cron_database_lock_is_not_flagged() -> None:
    ids = deploy_ids(
        INSTALLED_APPS=with_app("django_cron"),
        DJANGO_CRON_LOCK_BACKEND="django_cron.backends.lock.database.DatabaseLock",
    )
    assert ids == []


def run_own(**changes: Any) -> list[checks.CheckMessage]:
    own = [
        check
        for check in registry.get_checks(include_deployment_checks=True)
        if check.__module__ == settings_checks.__name__
    ]
    with override_settings(**{**SHARED, **changes}):
        return [message for check in own for message in check(app_configs=None)]


@pytest.fixture
def celery_beat_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """celery.beat's embedded-service classes, as celery defines them (not installed here)."""
    module = types.ModuleType("celery.beat")

    class _Threaded(threading.Thread):
        pass

    class _Process:
        pass

    module._Threaded = _Threaded  # type: ignore[attr-defined]
    module._Process = _Process  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "celery.beat", module)
    return module


@pytest.fixture
def running_beat(celery_beat_module: types.ModuleType) -> Iterator[None]:
    stop = threading.Event()
    thread = celery_beat_module._Threaded(target=stop.wait, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join()


def test_celery_beat_thread_in_this_process_is_w047(running_beat: None) -> None:
    assert deploy_ids() == ["horizontal.W047"]


def test_celery_imported_without_beat_running_is_fine(celery_beat_module: object) -> None:
    assert deploy_ids() == []


# -- SECRET_KEY, logging, email ----------------------------------------------------------


def secret_key_sites(module: str) -> list[str]:
    __import__(module)
    warnings = [m for m in run_own(SETTINGS_MODULE=module) if m.id == "horizontal.W050"]
    return [str(w.obj) for w in warnings]


def test_random_secret_key_is_w050() -> None:
    [site] = secret_key_sites("tests.checks.settings_modules.random_key")
    assert site.endswith("settings_modules/random_key.py:9")


def test_random_secret_key_in_a_star_imported_base_is_w050() -> None:
    [site] = secret_key_sites("tests.checks.settings_modules.random_key_child")
    assert site.endswith("settings_modules/random_key_base.py:7")


def test_secret_key_from_the_environment_is_fine() -> None:
    assert secret_key_sites("tests.checks.settings_modules.stable_key") == []


def test_file_log_handlers_are_w051() -> None:
    logging = {
        "version": 1,
        "handlers": {
            "console": {"class": "logging.StreamHandler"},
            "file": {"class": "logging.FileHandler", "filename": os.devnull},
            "rotating": {
                "class": "tests.checks.backends.CompressingRotatingFileHandler",
                "filename": os.devnull,
            },
        },
    }
    assert deploy_ids(LOGGING=logging) == ["horizontal.W051", "horizontal.W051"]


def test_logging_config_none_means_logging_is_not_ours() -> None:
    logging = {
        "version": 1,
        "handlers": {"f": {"class": "logging.FileHandler", "filename": os.devnull}},
    }
    assert deploy_ids(LOGGING=logging, LOGGING_CONFIG=None) == []


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.mail.backends.filebased.EmailBackend",
        "tests.checks.backends.ArchivingEmailBackend",
    ],
)
@pytest.mark.filterwarnings("ignore:The EMAIL_BACKEND setting is deprecated")
def test_file_email_is_w052(backend: str) -> None:
    assert deploy_ids(EMAIL_BACKEND=backend) == ["horizontal.W052"]


def test_file_mailer_is_w052() -> None:
    """Django 6.1's MAILERS: one warning per mailer that writes files."""
    mailers = {
        "default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend"},
        "archive": {"BACKEND": "django.core.mail.backends.filebased.EmailBackend"},
    }
    [warning] = [m for m in run_own(MAILERS=mailers) if m.id == "horizontal.W052"]
    assert warning.obj == "MAILERS['archive']"


# -- what a real check run does ----------------------------------------------------------

SINGLE_INSTANCE: dict[str, Any] = {
    "CACHES": {"default": LOCMEM},
    "SESSION_ENGINE": "django.contrib.sessions.backends.file",
    "TASKS": {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}},
}


def test_plain_check_raises_none_of_the_deploy_warnings() -> None:
    # Only horizontal's checks: Django's model checks would query every database on 6.1.
    # test_project.py runs the real plain `manage.py check` as a process.
    with override_settings(**SINGLE_INSTANCE):
        plain = {m.id for m in checks.run_checks(tags=["horizontal"], databases=[])}
        deploy = {
            m.id
            for m in checks.run_checks(
                tags=["horizontal"], include_deployment_checks=True, databases=[]
            )
        }
    assert {"horizontal.W001", "horizontal.W010", "horizontal.W042"} <= deploy
    assert {i for i in plain if i.startswith(("horizontal.W", "horizontal.I"))} == set()


def test_every_deploy_check_is_registered_deploy_only() -> None:
    own = [c for c in registry.registered_checks if c.__module__ == settings_checks.__name__]
    deploy = [c for c in registry.deployment_checks if c.__module__ == settings_checks.__name__]
    assert own == []
    assert len(deploy) == 21
    assert all("horizontal" in c.tags for c in deploy)


@pytest.mark.parametrize(
    "changes",
    [
        {"HORIZONTAL_EXPECTED_INSTANCES": "many"},
        {"HORIZONTAL_PROCESSES_PER_INSTANCE": 0},
        {"HORIZONTAL_LOCAL_CACHES": 5},
    ],
)
def test_invalid_horizontal_settings_do_not_crash_the_deploy_run(changes: dict[str, Any]) -> None:
    """E001/E002 report them on the same run; the deploy checks must still finish."""
    with override_settings(**{**SHARED, **changes}):
        messages = checks.run_checks(
            tags=["horizontal"], include_deployment_checks=True, databases=[]
        )
    assert {m.id for m in messages if m.level >= checks.ERROR} <= {
        "horizontal.E001",
        "horizontal.E002",
    }


# -- the message contract (Django's topic guide): msg < 80 chars, no newline, one-line hint


def every_message() -> list[checks.CheckMessage]:
    alias = "default"
    demand = settings_checks.Demand(instances=12, processes=8, per_process=10)
    builders = [
        settings_checks.W001(alias, implicit=True),
        settings_checks.W001(alias, implicit=False),
        settings_checks.W002(alias),
        settings_checks.W003(alias),
        settings_checks.W010,
        settings_checks.W011(alias),
        settings_checks.W030(alias),
        settings_checks.W031(alias),
        settings_checks.W032(alias),
        settings_checks.I033(alias, demand),
        settings_checks.W034(alias, demand, 500),
        settings_checks.I035(alias, demand, 500),
        settings_checks.W040(alias),
        settings_checks.W041(alias, implicit=True),
        settings_checks.W041(alias, implicit=False),
        settings_checks.W042(alias),
        settings_checks.W043,
        settings_checks.W044,
        settings_checks.W045,
        settings_checks.W046("uses local cache 'default'"),
        settings_checks.W046("is not atomic"),
        settings_checks.W047,
        settings_checks.W050("settings.py:12"),
        settings_checks.W051("file"),
        settings_checks.W052("EMAIL_BACKEND"),
    ]
    return builders


@pytest.mark.parametrize("message", every_message(), ids=lambda m: m.id)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert len(message.msg) < 80, message.msg
    assert "\n" not in message.msg
    assert message.hint and "\n" not in message.hint
    assert message.id.startswith("horizontal.")
