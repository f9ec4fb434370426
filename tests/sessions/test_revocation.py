"""Log out everywhere, the per-user index behind it, and round trips per operation."""

from __future__ import annotations

import logging
import time

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.base import UpdateError
from django.test import Client, override_settings

from horizontal.sessions import (
    SessionStore,
    SessionStoreUnavailable,
    aend_user_sessions,
    end_user_sessions,
)
from horizontal.sessions.redis import pack, unpack
from tests.sessions.conftest import redis_caches
from tests.support.redis_server import RedisServer

# Every test under its own key prefix: user ids repeat across concurrent test runs,
# and so would the user index keys.
pytestmark = pytest.mark.usefixtures("redis_sessions")


class FakeUser:
    """Not a model instance: end_user_sessions must refuse it clearly."""

    pk = 1


def session_of(user_pk: str, **data) -> SessionStore:
    store = SessionStore()
    store[SESSION_KEY] = user_pk
    store.update(data)
    store.save()
    return store


@pytest.mark.django_db
def test_end_user_sessions_ends_only_that_users_sessions(redis_sessions):
    ann = User.objects.create_user("ann")
    bob = User.objects.create_user("bob")
    ann_laptop, ann_phone = session_of(str(ann.pk)), session_of(str(ann.pk))
    bob_laptop = session_of(str(bob.pk))

    assert end_user_sessions(ann) == 2

    assert SessionStore(ann_laptop.session_key).load() == {}
    assert SessionStore(ann_phone.session_key).load() == {}
    assert SessionStore(bob_laptop.session_key)[SESSION_KEY] == str(bob.pk)
    assert not redis_sessions.exists(ann_laptop._redis.user_index_key(str(ann.pk)))


@pytest.mark.django_db
def test_a_request_racing_the_logout_cannot_resurrect_the_session():
    ann = User.objects.create_user("ann")
    in_flight = SessionStore(session_of(str(ann.pk)).session_key)
    in_flight["cart"] = [1]  # loaded before the logout, saved after it
    end_user_sessions(ann)

    with pytest.raises(UpdateError):
        in_flight.save()
    assert SessionStore(in_flight.session_key).load() == {}


@pytest.mark.django_db
def test_index_outlives_its_sessions_and_forgets_dead_ones(redis_sessions):
    ann = User.objects.create_user("ann")
    first = session_of(str(ann.pk))
    index = first._redis.user_index_key(str(ann.pk))
    session_ttl = redis_sessions.ttl(first._redis.session_key(first.session_key))
    assert redis_sessions.ttl(index) >= session_ttl

    first.flush()  # logout: deleted, and taken out of the index
    second = session_of(str(ann.pk))
    assert redis_sessions.smembers(index) == {
        second._redis.session_key(second.session_key).encode()
    }


@pytest.mark.django_db
def test_cycle_key_indexes_the_new_key():
    ann = User.objects.create_user("ann")
    store = session_of(str(ann.pk))
    store.cycle_key()
    assert end_user_sessions(ann) == 1
    assert SessionStore(store.session_key).load() == {}


@pytest.mark.django_db
def test_login_through_the_stack_then_end_everywhere():
    User.objects.create_user("ann", password="pw")
    laptop, phone = Client(), Client()
    for client in (laptop, phone):
        response = client.post("/accounts/login/", {"username": "ann", "password": "pw"})
        assert response.status_code == 200
    assert laptop.get("/accounts/whoami/").json()["user"] == "ann"

    assert phone.post("/accounts/logout-everywhere/").json()["ended"] == 2

    assert laptop.get("/accounts/whoami/").json()["user"] is None
    assert phone.get("/accounts/whoami/").json()["user"] is None


@pytest.mark.django_db
def test_async_end_user_sessions():
    ann = User.objects.create_user("ann")
    store = session_of(str(ann.pk))
    assert async_to_sync(aend_user_sessions)(ann) == 1
    assert SessionStore(store.session_key).load() == {}


@pytest.mark.parametrize("bad", [None, FakeUser(), User(username="unsaved")])
def test_end_user_sessions_refuses_what_is_not_a_saved_user(bad):
    with pytest.raises(ValueError, match="saved user"):
        end_user_sessions(bad)


@pytest.mark.django_db
@pytest.mark.parametrize("enabled", [True, False])
# Both module paths that name this engine; Django loads either.
@pytest.mark.parametrize("engine", ["horizontal.sessions", "horizontal.sessions.store"])
def test_password_change_ends_sessions_when_enabled(settings, enabled, engine):
    settings.HORIZONTAL_SESSION_END_ON_PASSWORD_CHANGE = enabled
    settings.SESSION_ENGINE = engine
    ann = User.objects.create_user("ann", password="old")
    store = session_of(str(ann.pk))
    ann.first_name = "Ann"
    ann.save()  # not a password change
    assert SessionStore(store.session_key).get(SESSION_KEY) == str(ann.pk)
    ann.set_password("new")
    ann.save()
    ended = SessionStore(store.session_key).load() == {}
    assert ended is enabled


@pytest.mark.usefixtures("closed_port_sessions")
@pytest.mark.django_db
def test_end_user_sessions_on_a_dead_store_raises():
    ann = User.objects.create_user("ann")
    with pytest.raises(SessionStoreUnavailable):
        end_user_sessions(ann)


# -- round trips -----------------------------------------------------------------


def command_calls(client) -> dict[str, int]:
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): value["calls"] for name, value in stats.items()}


def calls_during(client, action) -> dict[str, int]:
    before = command_calls(client)
    action()
    after = command_calls(client)
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


def test_one_round_trip_per_load_and_one_set_per_save(own_redis):
    admin = own_redis.client()
    with override_settings(CACHES=redis_caches(own_redis.url, "rt")):
        store = SessionStore()
        store[SESSION_KEY] = "7"
        store.save()  # login-like: creates the key and indexes it
        SessionStore(store.session_key).load()  # warm the connection and the script cache
        loaded = SessionStore(store.session_key)
        # One EVALSHA; inside it (Redis counts those too) the GET and, for a user's
        # session, the membership test against the user index.
        assert calls_during(admin, lambda: loaded.get(SESSION_KEY)) == {
            "evalsha": 1,
            "get": 1,
            "sismember": 1,
            "info": 1,
        }

        def modify_and_save():
            loaded["n"] = 1
            loaded.save()

        # The index is fresh: an ordinary save is one SET with its TTL, no GET first.
        assert calls_during(admin, modify_and_save) == {"set": 1, "info": 1}
        assert admin.ttl(loaded._redis.session_key(loaded.session_key)) > 0

        anonymous = SessionStore()
        assert calls_during(admin, anonymous.save) == {"set": 1, "info": 1}
        reloaded = SessionStore(anonymous.session_key)
        assert calls_during(admin, reloaded.load) == {"evalsha": 1, "get": 1, "info": 1}


def test_load_survives_a_server_that_forgot_the_script(own_redis):
    with override_settings(CACHES=redis_caches(own_redis.url, "noscript")):
        store = session_of("7", a=1)
        assert SessionStore(store.session_key)["a"] == 1
        own_redis.client().script_flush()  # as after a restart
        assert SessionStore(store.session_key)["a"] == 1


# -- item 12: revocation never depends on a key that eviction can take -----------


@pytest.mark.django_db
def test_hardening_12_a_session_its_index_no_longer_holds_is_never_served(redis_sessions):
    ann = User.objects.create_user("ann")
    laptop, phone = session_of(str(ann.pk)), session_of(str(ann.pk))
    index = laptop._redis.user_index_key(str(ann.pk))
    redis_sessions.delete(index)  # what eviction does to a key with a TTL

    # A new login re-creates the index: it vouches for the new session only.
    tablet = session_of(str(ann.pk))
    assert SessionStore(tablet.session_key)[SESSION_KEY] == str(ann.pk)
    for orphan in (laptop, phone):
        loaded = SessionStore(orphan.session_key)
        assert loaded.load() == {}
        assert loaded.session_key is None  # a new cookie, as for a missing session
        assert not redis_sessions.exists(orphan._redis.session_key(orphan.session_key))

    assert end_user_sessions(ann) == 1
    assert SessionStore(tablet.session_key).load() == {}


@pytest.mark.django_db
def test_hardening_12_a_users_session_is_served_only_from_that_users_index(redis_sessions, caplog):
    """Defence in depth: a stored session that says user A but names (and is in) the
    index of B would survive end_user_sessions(A); the store refuses it."""
    ann = User.objects.create_user("ann")
    bob = User.objects.create_user("bob")
    store = session_of(str(ann.pk))
    key = store._redis.session_key(store.session_key)
    bobs_index = store._redis.user_index_key(str(bob.pk))
    payload = unpack(redis_sessions.get(key)).payload
    redis_sessions.set(key, pack(0, bobs_index.encode(), payload))
    redis_sessions.sadd(bobs_index, key)
    with caplog.at_level(logging.WARNING, logger="django.security.SuspiciousSession"):
        assert SessionStore(store.session_key).load() == {}
    assert "Session data corrupted" in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize("save", ["ordinary", "refreshing the index"])
def test_hardening_12_a_save_in_flight_cannot_revive_an_orphaned_session(redis_sessions, save):
    """Loaded before its index was evicted and the user was logged out everywhere
    (which then found nothing to delete), saved after: the save must not make the
    session valid again."""
    ann = User.objects.create_user("ann")
    in_flight = SessionStore(session_of(str(ann.pk)).session_key)
    in_flight["cart"] = [1]
    redis_sessions.delete(in_flight._redis.user_index_key(str(ann.pk)))  # evicted
    session_of(str(ann.pk))  # a login elsewhere re-creates the index without it
    end_user_sessions(ann)

    if save == "ordinary":
        in_flight.save()  # one SET XX: the key is still there, so it writes
    else:
        # Longer than the index is known to last: the save refreshes the index.
        in_flight.set_expiry(3 * settings.SESSION_COOKIE_AGE)
        with pytest.raises(UpdateError):
            in_flight.save()
    assert SessionStore(in_flight.session_key).load() == {}


def evicted_keys(admin) -> int:
    return int(admin.info("stats")["evicted_keys"])


# Memory the evicting Redis has for data, above what it uses empty.
EVICTING_ROOM = 768 * 1024


@pytest.fixture
def evicting_redis():
    # Every key horizontal.sessions writes has a TTL, so volatile-lru may take any.
    server = RedisServer({"maxmemory-policy": "volatile-lru"}).start()
    admin = server.client()
    admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + EVICTING_ROOM)
    yield server
    server.stop()


@pytest.mark.django_db
def test_hardening_12_log_out_everywhere_ends_every_session_under_volatile_lru(evicting_redis):
    """A real Redis under memory pressure with volatile-lru: the user's sessions are
    read on every request, the index behind them much less, so the index is what LRU
    takes first. None of the user's sessions may outlive end_user_sessions."""
    admin = evicting_redis.client()
    with override_settings(CACHES=redis_caches(evicting_redis.url, "evict")):
        ann = User.objects.create_user("ann")
        keys = [session_of(str(ann.pk)).session_key for _ in range(5)]
        # Redis's LRU clock ticks once a second: let the logins be a tick older than
        # the traffic that follows.
        time.sleep(1.1)
        filler, written = b"x" * 4096, 0
        deadline = time.monotonic() + 60
        # About 400 KB/s of other keys with a TTL (the memory holds about two seconds
        # of them, so the oldest are always a tick older than the sessions, read every
        # 50 ms) until twice the memory has been evicted: LRU samples 5 keys at a time,
        # and by then a key older than all the others has been taken but for a chance
        # of about e^-10.
        while evicted_keys(admin) * len(filler) < 2 * EVICTING_ROOM:
            assert time.monotonic() < deadline, "Redis never evicted"
            for _ in range(5):
                admin.set(f"evict:filler:{written}", filler, ex=3600)
                written += 1
            for key in keys:
                SessionStore(key).load()  # a request of each device
            time.sleep(0.05)

        ended = end_user_sessions(ann)

        survivors = [key for key in keys if SessionStore(key).get(SESSION_KEY) is not None]
        assert survivors == [], f"{len(survivors)} sessions outlived logout (ended {ended})"
