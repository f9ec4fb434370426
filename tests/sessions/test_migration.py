"""Zero-logout migration: sessions found only in the old engine move into Redis."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.core.exceptions import ImproperlyConfigured

from horizontal.sessions import SessionStore, end_user_sessions
from horizontal.sessions.redis import SessionRedis

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


@contextmanager
def before_round_trip(
    redis: SessionRedis, number: int, action: Callable[[], Any]
) -> Iterator[list[int]]:
    """Run ``action`` just before the store's ``number``-th round trip to Redis (from 0).

    Every command the store sends goes through ``SessionRedis._command`` (its own
    connection) or the redis-py client's ``execute_command`` (scripts, EXISTS, DEL):
    both are wrapped, so the action lands between two steps of an operation, as
    another instance's request can. Yields the count of round trips seen so far.
    """
    seen = [0]
    acting = False

    def hooked(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal acting
            if not acting:  # the action's own commands are not counted
                if seen[0] == number:
                    acting = True
                    try:
                        action()
                    finally:
                        acting = False
                seen[0] += 1
            return real(*args, **kwargs)

        return call

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redis, "_command", hooked(redis._command))
        patch.setattr(redis.client, "execute_command", hooked(redis.client.execute_command))
        yield seen


def test_hardening_13_log_out_everywhere_racing_the_move_never_lets_the_session_through(
    settings,
):
    """end_user_sessions lands before each round trip of the first read of an old
    session in turn, and once after them all: wherever it lands, the session is
    not served afterwards and no copy is left in the old engine."""
    settings.HORIZONTAL_SESSION_FALLBACK_ENGINE = DB_ENGINE
    redis = SessionStore()._redis
    survivors = []
    for number in range(8):
        user = User.objects.create_user(f"user{number}")
        key = database_session(**{SESSION_KEY: str(user.pk)})

        def revoke(user: User = user) -> None:
            end_user_sessions(user)

        with before_round_trip(redis, number, revoke) as seen:
            SessionStore(key).load()  # the first read: the move
        if number >= seen[0]:  # the read made fewer round trips: the revocation is after it
            revoke()
        if SessionStore(key).get(SESSION_KEY) is not None:
            survivors.append(number)
        assert not Session.objects.filter(session_key=key).exists()
    assert survivors == [], f"revoked before round trip {survivors} of the move: still served"


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
