"""The async session path on redis.asyncio: one client per event loop, the same failure
policy, timeouts and revocation as the sync path, and the middleware under ASGI."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.base import UpdateError
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, override_settings
from django.urls import path

from horizontal.sessions import SessionStore, SessionStoreUnavailable, aend_user_sessions
from horizontal.sessions.redis import session_redis
from horizontal.sessions.redis_async import AsyncSessionRedis
from tests.sessions.conftest import redis_caches

COOKIE_KEY = "k" * 32


async def counter(request: HttpRequest) -> HttpResponse:
    n = await request.session.aget("n", 0)
    await request.session.aset("n", n + 1)
    return HttpResponse(str(n))


urlpatterns = [path("count/", counter)]


def run(coroutine_function, *args):
    return async_to_sync(coroutine_function)(*args)


def test_each_event_loop_gets_its_own_client_and_ended_loops_are_forgotten(redis_sessions):
    async def side() -> AsyncSessionRedis | None:
        store = SessionStore()
        await store.aset("a", 1)
        await store.asave()
        assert await SessionStore(store.session_key).aget("a") == 1
        return store._redis.asession()

    first = run(side)
    second = run(side)  # async_to_sync: a new loop, closed when the call returns
    assert isinstance(first, AsyncSessionRedis) and isinstance(second, AsyncSessionRedis)
    assert first is not second
    # The first loop is closed: its client is no longer kept.
    clients = session_redis("default")._async_clients._by_loop
    assert first not in clients.values() and list(clients.values()) == [second]

    # Two loops alive at once, in two threads: each uses only its own client.
    seen: list[AsyncSessionRedis | None] = []

    def in_thread() -> None:
        seen.append(asyncio.run(side()))

    threads = [threading.Thread(target=in_thread) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(seen) == 2 and seen[0] is not seen[1]


@pytest.mark.django_db
def test_async_saves_are_indexed_and_ended_everywhere(redis_sessions):
    ann = User.objects.create_user("ann")

    async def scenario() -> tuple[str, str, int]:
        laptop, phone = SessionStore(), SessionStore()
        for store in (laptop, phone):
            await store.aset(SESSION_KEY, str(ann.pk))
            await store.asave()
        ended = await aend_user_sessions(ann)
        return str(laptop.session_key), str(phone.session_key), ended

    laptop, phone, ended = run(scenario)
    assert ended == 2
    assert SessionStore(laptop).load() == {}

    async def stale_save() -> None:
        # A request that loaded the session before the logout cannot write it back.
        store = SessionStore(phone)
        assert await store.aload() == {}
        store._session_key = phone
        store._session_cache = {SESSION_KEY: str(ann.pk)}
        store._indexed_user = str(ann.pk)
        store.modified = True
        await store.asave()

    with pytest.raises(UpdateError):
        run(stale_save)


@pytest.mark.usefixtures("closed_port_sessions")
def test_async_closed_policy_raises_fast_and_keeps_the_key():
    async def scenario() -> SessionStore:
        store = SessionStore(COOKIE_KEY)
        with pytest.raises(SessionStoreUnavailable):
            await store.aload()
        with pytest.raises(SessionStoreUnavailable):
            await store.aexists(COOKIE_KEY)
        with pytest.raises(SessionStoreUnavailable):
            await store.adelete(COOKIE_KEY)
        fresh = SessionStore()
        await fresh.aset("a", 1)
        with pytest.raises(SessionStoreUnavailable):
            await fresh.asave()
        return store

    started = time.monotonic()
    store = run(scenario)
    assert time.monotonic() - started < 3  # four operations, each bounded by 0.5 s
    assert store.session_key == COOKIE_KEY


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(HORIZONTAL_SESSION_FAILURE="open")
def test_async_open_policy_is_empty_and_refuses_to_save():
    async def scenario() -> SessionStore:
        store = SessionStore(COOKIE_KEY)
        assert await store.aload() == {}
        assert store.session_key == COOKIE_KEY
        store._session_cache = {"a": 1}
        with pytest.raises(SessionStoreUnavailable):
            await store.asave()
        return store

    assert run(scenario).store_error is not None


def test_wedged_server_times_out_on_the_async_path(own_redis, key_prefix):
    own_redis.pause()
    try:
        with override_settings(
            CACHES=redis_caches(own_redis.url, key_prefix),
            SESSION_ENGINE="horizontal.sessions",
            HORIZONTAL_SESSION_FAILURE="closed",
        ):

            async def scenario() -> None:
                with pytest.raises(SessionStoreUnavailable):
                    await SessionStore(COOKIE_KEY).aload()

            started = time.monotonic()
            run(scenario)
            assert time.monotonic() - started < 1.5
    finally:
        own_redis.resume()


@override_settings(ROOT_URLCONF=__name__)
def test_middleware_under_asgi_saves_on_redis_asyncio(redis_sessions):
    async def scenario() -> tuple[list[str], str]:
        client = AsyncClient()
        answers = [(await client.get("/count/")).content.decode() for _ in range(3)]
        return answers, client.cookies["sessionid"].value

    answers, key = run(scenario)
    assert answers == ["0", "1", "2"]
    # Loaded and saved on redis.asyncio: the sync client of this thread (where
    # sync_to_async would have run process_response's save) never connected.
    assert getattr(session_redis("default")._local, "connection", None) is None
    assert SessionStore(key)["n"] == 3


@pytest.mark.usefixtures("closed_port_sessions")
@override_settings(ROOT_URLCONF=__name__)
def test_middleware_under_asgi_answers_503_when_the_store_is_down():
    async def scenario() -> int:
        client = AsyncClient()
        client.cookies["sessionid"] = COOKIE_KEY
        return (await client.get("/count/")).status_code

    assert run(scenario) == 503
