"""The SessionBase contract of Django 5.2 / 6.1, sync and async, on the real Redis."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.contrib.sessions.backends.base import CreateError, UpdateError
from django.core.management import call_command
from django.utils import timezone

from horizontal.sessions import SessionStore
from horizontal.sessions.redis import unpack

pytestmark = pytest.mark.usefixtures("redis_sessions")


def stored_key(store: SessionStore, session_key: str | None = None) -> str:
    return store._redis.session_key(session_key or store.session_key)


# -- sync ------------------------------------------------------------------------


def test_new_session_is_empty_and_has_no_key():
    store = SessionStore()
    assert store.session_key is None
    assert store.is_empty()
    assert dict(store.items()) == {}
    assert not store.accessed or store.session_key is None


def test_save_creates_a_key_another_instance_loads(redis_sessions):
    store = SessionStore()
    store["cart"] = [1, 2]
    store.save()
    assert store.session_key is not None and len(store.session_key) == 32
    other = SessionStore(store.session_key)
    assert other["cart"] == [1, 2]
    assert redis_sessions.exists(stored_key(store))


def test_update_is_seen_by_a_fresh_store():
    store = SessionStore()
    store["n"] = 1
    store.save()
    again = SessionStore(store.session_key)
    again["n"] += 1
    again.save()
    assert SessionStore(store.session_key)["n"] == 2


def test_unknown_key_loads_empty_and_is_replaced_on_save():
    # Like Django's cache engine: an unknown key is not adopted (no session fixation).
    store = SessionStore("a" * 32)
    assert store.get("x") is None
    assert store.session_key is None
    store["x"] = 1
    store.save()
    assert store.session_key not in (None, "a" * 32)


@pytest.mark.parametrize("bad_key", ["", "short", None, "1234567"])
def test_invalid_keys_are_rejected(bad_key):
    store = SessionStore(bad_key)
    assert store.session_key is None
    assert store.load() == {}


def test_ttl_follows_the_default_cookie_age(redis_sessions, settings):
    store = SessionStore()
    store["a"] = 1
    store.save()
    ttl = redis_sessions.ttl(stored_key(store))
    assert settings.SESSION_COOKIE_AGE - 5 <= ttl <= settings.SESSION_COOKIE_AGE


def test_per_session_expiry_in_seconds_and_as_a_date(redis_sessions):
    store = SessionStore()
    store.set_expiry(300)
    store.save()
    assert 295 <= redis_sessions.ttl(stored_key(store)) <= 300
    assert SessionStore(store.session_key).get_expiry_age() == 300

    store.set_expiry(timezone.now() + timedelta(seconds=120))
    store.save()
    assert 115 <= redis_sessions.ttl(stored_key(store)) <= 120


def test_expire_at_browser_close_keeps_the_cookie_age_in_redis(redis_sessions, settings):
    store = SessionStore()
    store.set_expiry(0)
    store.save()
    assert SessionStore(store.session_key).get_expire_at_browser_close()
    assert redis_sessions.ttl(stored_key(store)) > settings.SESSION_COOKIE_AGE - 5


def test_past_expiry_forgets_the_session(redis_sessions):
    store = SessionStore()
    store["a"] = 1
    store.save()
    key = store.session_key
    store.set_expiry(timezone.now() - timedelta(seconds=10))
    store.save()
    assert not redis_sessions.exists(stored_key(store, key))
    assert SessionStore(key).load() == {}


def test_cycle_key_keeps_data_under_a_new_key(redis_sessions):
    store = SessionStore()
    store["a"] = "b"
    store.save()
    old = store.session_key
    store.cycle_key()
    assert store.session_key != old
    assert store["a"] == "b"
    assert not redis_sessions.exists(stored_key(store, old))
    assert SessionStore(store.session_key)["a"] == "b"


def test_flush_deletes_the_data_and_the_key(redis_sessions):
    store = SessionStore()
    store["a"] = 1
    store.save()
    old = store.session_key
    store.flush()
    assert store.session_key is None
    assert dict(store.items()) == {}
    assert not redis_sessions.exists(stored_key(store, old))


def test_exists_and_delete_by_key():
    store = SessionStore()
    store.save()
    key = store.session_key
    assert store.exists(key)
    assert not store.exists("z" * 32)
    assert not store.exists("")
    SessionStore().delete(key)
    assert not store.exists(key)


def test_save_after_a_concurrent_delete_is_an_update_error():
    # Another request logged the user out meanwhile: the save must not resurrect it.
    store = SessionStore()
    store["a"] = 1
    store.save()
    SessionStore().delete(store.session_key)
    store["a"] = 2
    with pytest.raises(UpdateError):
        store.save()
    assert not store.exists(store.session_key)


def test_must_create_on_an_existing_key_is_a_create_error():
    store = SessionStore()
    store.save()
    twin = SessionStore(store.session_key)
    with pytest.raises(CreateError):
        twin.save(must_create=True)


def test_clear_expired_is_a_no_op():
    assert SessionStore.clear_expired() is None
    assert async_to_sync(SessionStore.aclear_expired)() is None


def test_clearsessions_command_runs_and_keeps_live_sessions():
    store = SessionStore()
    store["a"] = 1
    store.save()
    call_command("clearsessions")
    assert SessionStore(store.session_key)["a"] == 1


def test_stored_value_is_the_session_serializer_payload(redis_sessions):
    store = SessionStore()
    store["k"] = "v"
    store.save()
    stored = unpack(redis_sessions.get(stored_key(store)))
    assert store.serializer().loads(stored.payload) == {"k": "v"}


# -- async -----------------------------------------------------------------------


def run(coroutine_function, *args):
    return async_to_sync(coroutine_function)(*args)


def test_async_create_load_update():
    async def scenario():
        store = SessionStore()
        await store.aset("cart", [1])
        await store.asave()
        key = store.session_key
        other = SessionStore(key)
        assert await other.aget("cart") == [1]
        await other.aset("cart", [1, 2])
        await other.asave()
        return key

    key = run(scenario)
    assert SessionStore(key)["cart"] == [1, 2]


def test_async_expiry_cycle_flush(redis_sessions):
    async def scenario():
        store = SessionStore()
        await store.aset_expiry(60)
        await store.aset("a", 1)
        await store.asave()
        first = store.session_key
        assert await store.aget_expiry_age() == 60
        await store.acycle_key()
        second = store.session_key
        assert await SessionStore(second).aget("a") == 1
        assert not await store.aexists(first)
        await store.aflush()
        return first, second, store.session_key

    first, second, after_flush = run(scenario)
    assert first != second and after_flush is None
    assert not redis_sessions.exists(SessionStore()._redis.session_key(second))


def test_async_update_error_and_create_error():
    async def scenario():
        store = SessionStore()
        await store.asave()
        twin = SessionStore(store.session_key)
        with pytest.raises(CreateError):
            await twin.asave(must_create=True)
        await SessionStore().adelete(store.session_key)
        await store.aset("a", 1)
        with pytest.raises(UpdateError):
            await store.asave()

    run(scenario)


def test_async_unknown_key_loads_empty():
    async def scenario():
        store = SessionStore("b" * 32)
        assert await store.aget("x") is None
        return store.session_key

    assert run(scenario) is None


def test_async_mapping_helpers_load_once_and_save():
    async def scenario():
        store = SessionStore()
        await store.aupdate({"a": 1, "b": 2})
        assert await store.asetdefault("c", 3) == 3
        await store.aset_test_cookie()
        await store.asave()
        loaded = SessionStore(store.session_key)
        assert await loaded.ahas_key("a")
        assert sorted(await loaded.akeys()) == ["a", "b", "c", "testcookie"]
        assert await loaded.atest_cookie_worked()
        await loaded.adelete_test_cookie()
        assert await loaded.apop("b") == 2
        assert not await loaded.aget_expire_at_browser_close()
        assert (await loaded.aget_expiry_date()) > timezone.now()
        await loaded.asave()
        return store.session_key

    key = run(scenario)
    assert dict(SessionStore(key).items()) == {"a": 1, "c": 3}


def test_sync_mapping_helpers():
    store = SessionStore()
    store.update({"a": 1})
    store.setdefault("b", 2)
    store.set_test_cookie()
    store.save()
    loaded = SessionStore(store.session_key)
    assert loaded.test_cookie_worked()
    loaded.delete_test_cookie()
    assert loaded.pop("a") == 1
    assert "b" in loaded and loaded.has_key("b")
    loaded.save()
    assert dict(SessionStore(store.session_key).items()) == {"b": 2}
