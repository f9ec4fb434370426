"""Zero-logout migration: sessions found only in the old engine move into Redis."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.core.exceptions import ImproperlyConfigured

from horizontal.sessions import SessionStore, end_user_sessions

DB_ENGINE = "django.contrib.sessions.backends.db"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("redis_sessions")]


def database_session(**data) -> str:
    old = DatabaseStore()
    old.update(data)
    old.set_expiry(600)
    old.save()
    return old.session_key


def test_without_fallback_an_old_session_is_not_found():
    key = database_session(a=1)
    assert SessionStore(key).load() == {}


def test_old_session_is_moved_on_first_read(redis_sessions, settings):
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = DB_ENGINE
    key = database_session(a=1)

    store = SessionStore(key)
    assert store["a"] == 1
    assert store.session_key == key  # same cookie: nobody is logged out

    assert not Session.objects.filter(session_key=key).exists()  # moved, not copied
    redis_key = store._redis.session_key(key)
    assert 590 <= redis_sessions.ttl(redis_key) <= 600  # the old expiry is kept
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = None
    assert SessionStore(key)["a"] == 1


def test_moved_session_of_a_user_is_indexed(settings):
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = DB_ENGINE
    ann = User.objects.create_user("ann")
    key = database_session(**{SESSION_KEY: str(ann.pk)})
    assert SessionStore(key)[SESSION_KEY] == str(ann.pk)
    assert end_user_sessions(ann) == 1
    assert SessionStore(key).load() == {}


def test_revoked_user_old_sessions_are_not_moved(settings):
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = DB_ENGINE
    ann = User.objects.create_user("ann")
    key = database_session(**{SESSION_KEY: str(ann.pk)})
    end_user_sessions(ann)  # before the old session was ever read

    store = SessionStore(key)
    assert store.load() == {}
    assert store.session_key is None
    assert not Session.objects.filter(session_key=key).exists()


def test_unknown_key_with_fallback_is_still_empty(settings):
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = DB_ENGINE
    store = SessionStore("q" * 32)
    assert store.load() == {}
    assert store.session_key is None


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        ("horizontal.sessions", "falls back from"),
        ("horizontal.sessions.store", "falls back from"),  # the same engine, by its module
        ("no.such.engine", "cannot be imported"),
    ],
)
def test_bad_fallback_engine_is_a_clear_error(settings, engine, message):
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = engine
    with pytest.raises(ImproperlyConfigured, match=message):
        SessionStore("q" * 32).load()
