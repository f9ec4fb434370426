"""Deploy checks horizontal.W010-W025 (horizontal/checks/sessions.py).

W010/W011 (Django's engines) start from the SHARED baseline of ``baseline.py``;
W020-W025 (the Redis session store) from a good ``horizontal.sessions`` configuration.
"""

from __future__ import annotations

import pytest
from django.conf import global_settings
from django.core import checks
from django.test import override_settings

from horizontal.checks import sessions as session_checks_module
from tests.checks import baseline
from tests.checks.baseline import assert_follows_the_contract, deploy_ids

REDIS = "django_redis.cache.RedisCache"
GOOD_OPTIONS = {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}
OUR_MIDDLEWARE = [
    "horizontal.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
DJANGO_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]


def session_ids(**overrides) -> list[str]:
    base = {
        "SESSION_ENGINE": "horizontal.sessions",
        "SESSION_CACHE_ALIAS": "sessions",
        "MIDDLEWARE": OUR_MIDDLEWARE,
        "CACHES": {
            "default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
            "sessions": {"BACKEND": REDIS, "LOCATION": "redis://r:6379/1", "OPTIONS": GOOD_OPTIONS},
        },
    }
    with override_settings(**{**base, **overrides}):
        messages = [m for check in session_checks(deploy=True) for m in check()]
    return sorted(m.id for m in messages)


def session_checks(*, deploy: bool) -> list:
    """The registered checks of horizontal.checks.sessions, as Django would run them."""
    registered = checks.registry.registry.get_checks(include_deployment_checks=deploy)
    return [check for check in registered if check.__module__ == "horizontal.checks.sessions"]


def sessions_cache(**config) -> dict:
    return {
        "default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
        "sessions": {"BACKEND": REDIS, "LOCATION": "redis://r:6379/1", **config},
    }


def test_a_good_configuration_is_silent():
    assert session_ids() == []


def test_nothing_is_said_when_the_engine_is_not_ours():
    assert session_ids(SESSION_ENGINE="django.contrib.sessions.backends.db", CACHES={}) == []


def test_w020_alias_is_not_django_redis():
    caches = {"sessions": {"BACKEND": "django.core.cache.backends.redis.RedisCache"}}
    assert session_ids(CACHES=caches) == ["horizontal.W020"]


def test_w020_alias_is_missing():
    assert session_ids(SESSION_CACHE_ALIAS="nope") == ["horizontal.W020"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, ["horizontal.W021"]),
        ({"SOCKET_TIMEOUT": 1}, ["horizontal.W021"]),
        ({"SOCKET_CONNECT_TIMEOUT": 1}, ["horizontal.W021"]),
        ({"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 0}, ["horizontal.W021"]),
        (GOOD_OPTIONS, []),
    ],
)
def test_w021_missing_timeouts(options, expected):
    assert session_ids(CACHES=sessions_cache(OPTIONS=options)) == expected


def test_w021_names_the_missing_option():
    from horizontal.checks.sessions import check_session_cache_timeouts

    with override_settings(
        CACHES=sessions_cache(OPTIONS={"SOCKET_TIMEOUT": 1}),
        SESSION_ENGINE="horizontal.sessions",
        SESSION_CACHE_ALIAS="sessions",
    ):
        (message,) = check_session_cache_timeouts()
    assert "SOCKET_CONNECT_TIMEOUT" in message.msg and "SOCKET_TIMEOUT or" not in message.msg


def test_w022_ignore_exceptions_on_the_alias_or_globally():
    ignoring = sessions_cache(OPTIONS={**GOOD_OPTIONS, "IGNORE_EXCEPTIONS": True})
    assert session_ids(CACHES=ignoring) == ["horizontal.W022"]
    assert session_ids(DJANGO_REDIS_IGNORE_EXCEPTIONS=True) == ["horizontal.W022"]
    explicit_off = sessions_cache(OPTIONS={**GOOD_OPTIONS, "IGNORE_EXCEPTIONS": False})
    assert session_ids(CACHES=explicit_off, DJANGO_REDIS_IGNORE_EXCEPTIONS=True) == []


@pytest.mark.parametrize(
    "location", [["redis://a:6379/1", "redis://b:6379/1"], "redis://a:6379/1,redis://b:6379/1"]
)
def test_w023_replicas(location):
    caches = sessions_cache(OPTIONS=GOOD_OPTIONS)
    caches["sessions"]["LOCATION"] = location
    assert session_ids(CACHES=caches) == ["horizontal.W023"]


def test_w024_djangos_middleware_instead_of_ours():
    assert session_ids(MIDDLEWARE=DJANGO_MIDDLEWARE) == ["horizontal.W024"]


SUBCLASSES = "tests.checks.horizontal_subclasses"


def test_a_project_subclass_of_our_store_and_middleware_is_ours():
    middleware = [f"{SUBCLASSES}.AuditedSessionMiddleware", *OUR_MIDDLEWARE[1:]]
    assert session_ids(SESSION_ENGINE=SUBCLASSES, MIDDLEWARE=middleware) == []
    # ... and still judged as ours: Django's middleware beside it is W024, a local Redis W026.
    assert session_ids(SESSION_ENGINE=SUBCLASSES, MIDDLEWARE=DJANGO_MIDDLEWARE) == [
        "horizontal.W024"
    ]
    local = sessions_cache(LOCATION="redis://127.0.0.1:6379/1", OPTIONS=GOOD_OPTIONS)
    assert session_ids(SESSION_ENGINE=SUBCLASSES, CACHES=local) == ["horizontal.W026"]


def test_w025_shared_with_a_general_cache():
    caches = sessions_cache(OPTIONS=GOOD_OPTIONS)
    caches["default"] = {"BACKEND": REDIS, "LOCATION": "redis://r:6379/1"}
    assert session_ids(CACHES=caches) == ["horizontal.W025"]
    caches["default"]["LOCATION"] = "redis://r:6379/2"
    assert session_ids(CACHES=caches) == []


@pytest.mark.parametrize(
    "other",
    [
        "redis://R:6379/1",
        "redis://r/1",
        "rediss://r:6379?db=1",
        ["redis://x:6379/0", "redis://r/1"],
    ],
)
def test_w025_compares_the_server_and_database_not_the_spelling(other):
    caches = sessions_cache(OPTIONS=GOOD_OPTIONS)
    caches["sessions"]["LOCATION"] = "redis://r:6379/1"
    caches["default"] = {"BACKEND": REDIS, "LOCATION": other}
    assert session_ids(CACHES=caches) == ["horizontal.W025"]


def test_w025_a_url_with_no_number_is_database_zero():
    caches = sessions_cache(OPTIONS=GOOD_OPTIONS)
    caches["sessions"]["LOCATION"] = "redis://r:6379"
    caches["default"] = {"BACKEND": REDIS, "LOCATION": "redis://r:6379/0"}
    assert session_ids(CACHES=caches) == ["horizontal.W025"]
    caches["default"]["LOCATION"] = "redis://r:6380/0"  # another server
    assert session_ids(CACHES=caches) == []


def test_checks_are_deploy_only():
    baseline.assert_registered_deploy_only(session_checks_module)
    assert session_checks(deploy=False) == []


# -- W010/W011: Django's engines, from the SHARED baseline ---------------------------------


def test_file_sessions_are_w010() -> None:
    engine = "django.contrib.sessions.backends.file"
    assert deploy_ids(SESSION_ENGINE=engine) == ["horizontal.W010"]


def test_file_session_subclass_is_w010() -> None:
    assert deploy_ids(SESSION_ENGINE="tests.checks.backends") == ["horizontal.W010"]


@pytest.mark.parametrize("engine", ["cache", "cached_db"])
def test_cache_sessions_on_a_local_cache_are_w011(engine: str) -> None:
    caches = {"default": baseline.REDIS, "sessions": baseline.LOCMEM}
    ids = deploy_ids(
        SESSION_ENGINE=f"django.contrib.sessions.backends.{engine}",
        SESSION_CACHE_ALIAS="sessions",
        CACHES=caches,
        HORIZONTAL_LOCAL_CACHES=["sessions"],  # does not excuse the session cache
    )
    assert ids == ["horizontal.W011"]


DUMMY = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}


def test_cached_db_sessions_on_a_dummy_cache_read_the_shared_database() -> None:
    # Every read misses the cache and goes to the database: nothing per instance. The
    # DummyCache itself is still W003; the cache engine on it loses sessions (W011).
    caches = {"default": baseline.REDIS, "sessions": DUMMY}
    settings = {"SESSION_CACHE_ALIAS": "sessions", "CACHES": caches}
    cached_db = "django.contrib.sessions.backends.cached_db"
    assert deploy_ids(SESSION_ENGINE=cached_db, **settings) == ["horizontal.W003"]
    cache = "django.contrib.sessions.backends.cache"
    assert deploy_ids(SESSION_ENGINE=cache, **settings) == ["horizontal.W003", "horizontal.W011"]


def test_cache_sessions_on_redis_are_fine() -> None:
    assert deploy_ids(SESSION_ENGINE="django.contrib.sessions.backends.cache") == []


def test_cache_sessions_on_the_implicit_default_cache_warn_twice() -> None:
    ids = deploy_ids(
        SESSION_ENGINE="django.contrib.sessions.backends.cache",
        CACHES=global_settings.CACHES,
    )
    assert ids == ["horizontal.W001", "horizontal.W011"]


@pytest.mark.parametrize(
    "message",
    [session_checks_module.W010, session_checks_module.W011("default")],
    ids=lambda m: m.id,
)
def test_engine_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)


def test_w025_during_a_migration_names_the_revoked_list() -> None:
    from horizontal.checks.sessions import check_session_cache_has_its_own_database

    caches = sessions_cache(OPTIONS=GOOD_OPTIONS)
    caches["default"] = {"BACKEND": REDIS, "LOCATION": "redis://r:6379/1"}
    base = {"CACHES": caches, "SESSION_ENGINE": "horizontal.sessions"}
    with override_settings(**base, SESSION_CACHE_ALIAS="sessions"):
        (plain,) = check_session_cache_has_its_own_database()
    with override_settings(
        **base,
        SESSION_CACHE_ALIAS="sessions",
        HORIZONTAL_SESSION_FALLBACK_ENGINE="django.contrib.sessions.backends.db",
    ):
        (migrating,) = check_session_cache_has_its_own_database()
    assert "noeviction" in plain.hint and "FALLBACK" not in plain.hint
    assert "logged out everywhere back in" in migrating.hint
    assert "\n" not in migrating.hint


# -- W026: the session store is a cache on this host ------------------------------------


@pytest.mark.parametrize(
    "location", ["redis://localhost:6379/1", "redis://127.0.0.1:6379/1", "unix:///run/r.sock"]
)
def test_w026_our_session_redis_on_this_host(location: str) -> None:
    caches = sessions_cache(LOCATION=location, OPTIONS=GOOD_OPTIONS)
    assert session_ids(CACHES=caches) == ["horizontal.W026"]


def test_w026_djangos_cached_db_engine_on_a_local_redis_and_only_once() -> None:
    """One root cause, one finding: the caches check (W004) leaves the sessions alias to W026."""
    caches = {"default": {**baseline.REDIS, "LOCATION": "redis://localhost:6379/0"}}
    ids = deploy_ids(CACHES=caches, SESSION_ENGINE="django.contrib.sessions.backends.cached_db")
    assert ids == ["horizontal.W026"]


def test_w026_not_raised_for_a_shared_session_redis_nor_the_db_engine() -> None:
    assert (
        session_ids(
            CACHES=sessions_cache(LOCATION="redis://sessions.internal:6379/1", OPTIONS=GOOD_OPTIONS)
        )
        == []
    )
    caches = {"default": {**baseline.REDIS, "LOCATION": "redis://localhost:6379/0"}}
    # The db engine keeps nothing in the cache: the local cache is W004's, not W026's.
    assert deploy_ids(CACHES=caches) == ["horizontal.W004"]


def test_w026_message_follows_the_contract() -> None:
    assert_follows_the_contract(session_checks_module.W026("sessions", "redis://localhost:6379/1"))


# -- W026 for django-redis-sessions: its own client, configured by SESSION_REDIS ----------


@pytest.mark.parametrize(
    "session_redis",
    [
        None,  # the package's default: localhost:6379
        {"host": "localhost", "port": 6379, "db": 0},
        {"url": "redis://127.0.0.1:6379/2"},
        {"unix_domain_socket_path": "/var/run/redis/redis.sock"},
        {"sentinel_list": [("localhost", 26379)], "sentinel_master_alias": "m"},
    ],
)
def test_django_redis_sessions_on_this_host_is_w026(session_redis):
    settings = {"SESSION_ENGINE": "redis_sessions.session"}
    if session_redis is not None:
        settings["SESSION_REDIS"] = session_redis
    assert "horizontal.W026" in deploy_ids(**settings)


@pytest.mark.parametrize(
    "session_redis",
    [{"host": "sessions.internal", "port": 6379}, {"url": "redis://sessions.internal:6379/2"}],
)
def test_django_redis_sessions_on_the_shared_redis_is_silent(session_redis):
    ids = deploy_ids(SESSION_ENGINE="redis_sessions.session", SESSION_REDIS=session_redis)
    assert "horizontal.W026" not in ids
