"""Log out everywhere, the per-user index behind it, and round trips per operation."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.test import Client, override_settings

from horizontal.sessions import (
    SessionStore,
    SessionStoreUnavailable,
    aend_user_sessions,
    end_user_sessions,
)
from tests.sessions.conftest import redis_caches

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
    from django.contrib.sessions.backends.base import UpdateError

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


def test_one_get_per_load_and_one_set_per_save(own_redis):
    admin = own_redis.client()
    with override_settings(CACHES=redis_caches(own_redis.url, "rt")):
        store = SessionStore()
        store[SESSION_KEY] = "7"
        store.save()  # login-like: creates the key and indexes it
        SessionStore(store.session_key).load()  # warm the connection pool
        loaded = SessionStore(store.session_key)
        assert calls_during(admin, lambda: loaded.get(SESSION_KEY)) == {"get": 1, "info": 1}

        def modify_and_save():
            loaded["n"] = 1
            loaded.save()

        # The index is fresh: an ordinary save is one SET with its TTL, no GET first.
        assert calls_during(admin, modify_and_save) == {"set": 1, "info": 1}
        assert admin.ttl(loaded._redis.session_key(loaded.session_key)) > 0

        anonymous = SessionStore()
        assert calls_during(admin, anonymous.save) == {"set": 1, "info": 1}
