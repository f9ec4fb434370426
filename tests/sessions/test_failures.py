"""Store errors are not missing sessions; corrupt data is an empty session, not a 500."""

from __future__ import annotations

import logging
import time

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches as django_caches
from django.test import Client, override_settings

from horizontal.sessions import SessionStore, SessionStoreUnavailable
from horizontal.sessions import store as session_store
from horizontal.sessions.redis import (
    DEFAULT_SOCKET_CONNECT_TIMEOUT,
    DEFAULT_SOCKET_TIMEOUT,
    pack,
)
from tests.sessions.conftest import SHARED_REDIS_URL, redis_caches

SHARD_CLIENT = "django_redis.client.ShardClient"

COOKIE_KEY = "k" * 32


@pytest.fixture(autouse=True)
def fresh_failure_log(monkeypatch):
    # Each test sees the first failure logged (the limiter is process-wide).
    fresh = session_store.StoreFailureLog(session_store.logger, logging.ERROR, 10.0)
    monkeypatch.setattr(session_store, "failure_log", fresh)


# -- the store, unreachable ------------------------------------------------------


@pytest.mark.usefixtures("closed_port_sessions")
def test_closed_load_raises_instead_of_logging_out():
    store = SessionStore(COOKIE_KEY)
    started = time.monotonic()
    with pytest.raises(SessionStoreUnavailable):
        store.load()
    assert time.monotonic() - started < 1
    assert store.session_key == COOKIE_KEY  # the cookie is not given up


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open")
def test_open_load_is_empty_keeps_the_key_and_refuses_to_save(caplog):
    store = SessionStore(COOKIE_KEY)
    with caplog.at_level(logging.ERROR, logger="horizontal.sessions"):
        assert store.load() == {}
        store.load()
    assert store.session_key == COOKIE_KEY
    assert not store.is_empty()  # so SessionMiddleware does not delete the cookie
    failures = [r for r in caplog.records if "Session store unavailable" in r.getMessage()]
    assert len(failures) == 1  # rate-limited, not once per failure
    store._session_cache = {"a": 1}
    with pytest.raises(SessionStoreUnavailable):
        store.save()


@pytest.mark.usefixtures("closed_port_sessions")
@pytest.mark.parametrize("policy", ["closed", "open"])
def test_writes_raise_under_both_policies(settings, policy):
    settings.HORIZONTAL_SESSION_FAILURE = policy
    with pytest.raises(SessionStoreUnavailable):
        SessionStore().save()
    with pytest.raises(SessionStoreUnavailable):
        SessionStore().delete(COOKIE_KEY)
    with pytest.raises(SessionStoreUnavailable):
        SessionStore().exists(COOKIE_KEY)


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open", HORIZONTAL_INSTANCE_ID="web-7")
def test_every_store_failure_is_signalled_though_the_log_is_rate_limited():
    from horizontal import signals

    got = []

    def receive(sender, **kwargs):
        got.append((sender, kwargs))

    signals.session_store_unavailable.connect(receive)
    try:
        store = SessionStore(COOKIE_KEY)
        store.load()
        store.load()
    finally:
        signals.session_store_unavailable.disconnect(receive)
    assert [sender for sender, _ in got] == [SessionStore, SessionStore]
    _, first = got[0]
    assert (first["operation"], first["policy"], first["instance"]) == ("load", "open", "web-7")
    assert isinstance(first["error"], Exception)


@pytest.mark.usefixtures("closed_port_sessions")
def test_unknown_policy_is_a_clear_error(settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.HORIZONTAL_SESSION_FAILURE = "sometimes"
    with pytest.raises(ImproperlyConfigured, match="'closed' or 'open'"):
        SessionStore(COOKIE_KEY).load()


# -- through the middleware ------------------------------------------------------


@pytest.mark.usefixtures("closed_port_sessions")
def test_closed_answers_503_with_retry_after_and_keeps_the_cookie():
    client = Client()
    client.cookies["sessionid"] = COOKIE_KEY
    started = time.monotonic()
    response = client.get("/accounts/whoami/")
    assert time.monotonic() - started < 1
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    assert "sessionid" not in response.cookies


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open")
def test_open_proceeds_anonymous_and_keeps_the_cookie():
    client = Client()
    client.cookies["sessionid"] = COOKIE_KEY
    response = client.get("/accounts/whoami/")
    assert response.status_code == 200
    assert response.json()["user"] is None
    assert "sessionid" not in response.cookies  # neither refreshed nor deleted
    # A modified session is not written (it is not the stored one) and not a 500.
    response = client.post("/accounts/visit/")
    assert response.status_code == 200
    assert "sessionid" not in response.cookies


@pytest.mark.django_db
@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open")
def test_open_login_that_cannot_write_is_503_not_a_fake_login():
    User.objects.create_user("ann", password="pw")
    response = Client().post("/accounts/login/", {"username": "ann", "password": "pw"})
    assert response.status_code == 503


@pytest.mark.usefixtures("closed_port_sessions")
def test_closed_turns_a_500_from_another_middleware_into_503(settings):
    settings.MIDDLEWARE = [
        "horizontal.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "tests.support.middleware.ReadsUserMiddleware",
    ]
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = COOKIE_KEY
    response = client.get("/accounts/whoami/")
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()


def test_alias_without_timeouts_still_fails_fast(own_redis, key_prefix):
    # No SOCKET_*TIMEOUT on the alias: the store bounds its own pool, and leaves the
    # cache's pool as configured.
    caches = redis_caches(own_redis.url, key_prefix)
    caches["default"]["OPTIONS"] = {}
    with override_settings(CACHES=caches):
        store = SessionStore()
        store["a"] = 1
        store.save()
        pool_kwargs = store._redis.client.connection_pool.connection_kwargs
        assert pool_kwargs["socket_timeout"] == DEFAULT_SOCKET_TIMEOUT
        assert pool_kwargs["socket_connect_timeout"] == DEFAULT_SOCKET_CONNECT_TIMEOUT
        cache_pool = django_caches["default"].client.get_client(write=True).connection_pool
        assert not cache_pool.connection_kwargs.get("socket_timeout")

        own_redis.pause()  # the port stays open; nothing answers
        try:
            started = time.monotonic()
            with pytest.raises(SessionStoreUnavailable):
                SessionStore(store.session_key).load()
            assert time.monotonic() - started < 1
        finally:
            own_redis.resume()
        assert SessionStore(store.session_key)["a"] == 1  # and it recovers


# -- corrupt data ----------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"garbage",
        b"h2:notanumber:0:{}",
        b"h2:0:99:{}",  # an index key longer than the value
        pack(0, b"", b'{"_auth_user_id": "1", "trunc'),  # truncated payload
        pack(0, b"", b"[1, 2]"),  # valid JSON, not a session
        b"\x80\x04\x95",  # a pickle from another engine
    ],
)
def test_corrupt_data_is_an_empty_session_and_a_security_log(redis_sessions, caplog, raw):
    store = SessionStore()
    store["a"] = 1
    store.save()
    redis_sessions.set(store._redis.session_key(store.session_key), raw)
    with caplog.at_level(logging.WARNING, logger="django.security.SuspiciousSession"):
        assert SessionStore(store.session_key).load() == {}
    assert [r.getMessage() for r in caplog.records if r.name.startswith("django.security")] == [
        "Session data corrupted"
    ]


def test_truncated_session_through_the_stack_is_anonymous_not_500(redis_sessions, caplog):
    store = SessionStore()
    store["_auth_user_id"] = "1"
    store.save()
    key = store._redis.session_key(store.session_key)
    redis_sessions.set(key, redis_sessions.get(key)[:-7])
    client = Client()
    client.cookies["sessionid"] = store.session_key
    with caplog.at_level(logging.WARNING, logger="django.security.SuspiciousSession"):
        response = client.get("/accounts/whoami/")
    assert response.status_code == 200
    assert response.json()["user"] is None
    assert any(r.getMessage() == "Session data corrupted" for r in caplog.records)


def test_sharded_client_is_refused_clearly(key_prefix):
    from django.core.exceptions import ImproperlyConfigured

    caches = redis_caches(SHARED_REDIS_URL, key_prefix, CLIENT_CLASS=SHARD_CLIENT)
    with override_settings(CACHES=caches), pytest.raises(ImproperlyConfigured, match="Shard"):
        SessionStore()


def test_non_redis_alias_is_refused_clearly(key_prefix):
    from django.core.exceptions import ImproperlyConfigured

    caches = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with (
        override_settings(CACHES=caches),
        pytest.raises(ImproperlyConfigured, match="django-redis"),
    ):
        SessionStore()


def test_next_request_after_a_redis_restart_just_works(own_redis, key_prefix):
    # The thread's connection was closed by the old server; it must be noticed and
    # replaced before use, not turned into one failed request.
    with override_settings(CACHES=redis_caches(own_redis.url, key_prefix)):
        store = SessionStore()
        store["a"] = 1
        store.save()
        assert SessionStore(store.session_key)["a"] == 1
        own_redis.kill(keep_data=True)
        own_redis.start()
        assert SessionStore(store.session_key)["a"] == 1


def test_each_thread_has_its_own_connection(redis_sessions):
    import threading

    seen = []

    def use_store():
        store = SessionStore()
        store.save()
        seen.append(store._redis._local.connection)

    threads = [threading.Thread(target=use_store) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(connection) for connection in seen}) == 3


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open", HORIZONTAL_INSTANCE_ID="web-8")
def test_every_store_failure_counts_in_the_session_store_errors_metric():
    from prometheus_client import REGISTRY

    import horizontal.metrics  # noqa: F401  (what HORIZONTAL_METRICS = True imports)

    labels = {"operation": "load", "instance": "web-8"}
    name = "horizontal_session_store_errors_total"
    before = REGISTRY.get_sample_value(name, labels) or 0
    store = SessionStore(COOKIE_KEY)
    store.load()
    store.load()
    assert REGISTRY.get_sample_value(name, labels) == before + 2
