"""Issue 3 figures: session load + modify + save cycles per second, side by side.

    python -m benchmarks.sessions        (starts a private redis-server on a free port;
                                          BENCH_REDIS_URL=redis://... to use another)

Three cycles on the same Redis, the same django-redis connection pool and the same
session (an authenticated one with a small cart), interleaved round by round so that
drift and noise from the machine hit all of them alike:

1. ``horizontal.sessions``: ``SessionStore(key)``, read, modify, ``save()``.
2. Django's cache engine (``django.contrib.sessions.backends.cache``) on django-redis,
   the same cycle.
3. The physical limit: redis-py ``GET`` + ``SET … EX`` of the bytes horizontal stores,
   on the same client, with no session logic at all.
4. For transparency, the same GET + SET on the connection path horizontal.sessions
   uses (``SessionRedis._command``: a connection per thread, no pool checkout per
   command).
5. And what horizontal.sessions sends on that path: the load script (GET, and the
   membership test against the user index that makes log out everywhere independent
   of eviction) + SET. The floor of our own path; 4 against 5 is the price of the
   membership test.

Targets: horizontal >= 0.85x the raw cycle and >= 1.6x Django's cache engine. The
async path (``aget``/``aset``/``asave``, native on ``redis.asyncio``) is reported the
same way against Django's cache engine's async path and a raw ``redis.asyncio``
GET + SET (target >= 0.85x, issue 15). End to end under uvicorn: benchmarks.sessions_http.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Many short interleaved rounds: on a shared machine the load changes by the second,
# and each round's ratio compares variants measured under the same load.
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "25"))
CYCLES = int(os.environ.get("BENCH_CYCLES", "400"))
ASYNC_CYCLES = int(os.environ.get("BENCH_ASYNC_CYCLES", "200"))
TARGET_VS_RAW = 0.85
# The same two commands on the path horizontal.sessions uses for them (its own
# connection per thread, no pool checkout per command): the floor of our own path,
# shown so that the ratio against redis-py's API is not mistaken for "no overhead".
LEAN_RAW = "GET+SET, horizontal's path"
LEAN_OURS = "load script+SET, its path"
TARGET_VS_DJANGO = 1.6


def setup_django(redis_url: str) -> None:
    os.environ["REDIS_URL"] = redis_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "testproject.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def session_data() -> dict[str, Any]:
    return {
        "_auth_user_id": "42",
        "_auth_user_backend": "django.contrib.auth.backends.ModelBackend",
        "_auth_user_hash": "3f" * 32,
        "cart": [101, 202, 303],
        "n": 0,
    }


def rate(cycle: Callable[[], Any], cycles: int) -> float:
    started = time.perf_counter()
    for _ in range(cycles):
        cycle()
    return cycles / (time.perf_counter() - started)


async def arate(cycle: Callable[[], Awaitable[Any]], cycles: int) -> float:
    started = time.perf_counter()
    for _ in range(cycles):
        await cycle()
    return cycles / (time.perf_counter() - started)


def new_session(store_class: Any) -> str:
    store = store_class()
    store.update(session_data())
    store.save()
    return str(store.session_key)


def sync_cycles() -> dict[str, Callable[[], Any]]:
    from django.contrib.sessions.backends.cache import SessionStore as CacheStore
    from django.core.cache import caches

    from horizontal.sessions import SessionStore
    from horizontal.sessions.redis import unpack

    horizontal_key = new_session(SessionStore)
    cache_key = new_session(CacheStore)
    probe = SessionStore(horizontal_key)
    redis_key = probe._redis.session_key(horizontal_key)
    client = caches["default"].client.get_client(write=True)
    # The same client object: horizontal.sessions adds no pool of its own when the
    # alias has timeouts, which testproject's has.
    assert probe._redis.client is client
    stored = client.get(redis_key)
    ttl = probe.get_expiry_age()
    raw_key = redis_key + ":raw"
    client.set(raw_key, stored, ex=ttl)

    def horizontal() -> None:
        session = SessionStore(horizontal_key)
        session["n"] = session.get("n", 0) + 1
        session.save()

    def django_cache() -> None:
        session = CacheStore(cache_key)
        session["n"] = session.get("n", 0) + 1
        session.save()

    def raw() -> None:
        client.get(raw_key)
        client.set(raw_key, stored, ex=ttl)

    lean = probe._redis

    def lean_raw() -> None:
        lean.get(raw_key)
        lean.set(raw_key, stored, ttl, create=False)

    lean_key = redis_key + ":lean"
    client.set(lean_key, stored, ex=ttl)
    # The stored value names the user index; the copy must be a member to be served.
    index_key = unpack(stored).index_key
    client.sadd(index_key, lean_key)

    def lean_ours() -> None:
        assert lean.load(lean_key) is not None
        lean.set(lean_key, stored, ttl, create=False)

    return {
        "horizontal.sessions": horizontal,
        "django cache engine": django_cache,
        "raw GET+SET": raw,
        LEAN_RAW: lean_raw,
        LEAN_OURS: lean_ours,
    }


def async_cycles(redis_url: str) -> tuple[dict[str, Callable[[], Awaitable[Any]]], Any]:
    import redis.asyncio
    from django.contrib.sessions.backends.cache import SessionStore as CacheStore

    from horizontal.sessions import SessionStore

    horizontal_key = new_session(SessionStore)
    cache_key = new_session(CacheStore)
    probe = SessionStore(horizontal_key)
    redis_key = probe._redis.session_key(horizontal_key)
    stored = probe._redis.client.get(redis_key)
    ttl = probe.get_expiry_age()
    client = redis.asyncio.Redis.from_url(redis_url, socket_timeout=0.5)
    raw_key = redis_key + ":araw"

    async def horizontal() -> None:
        session = SessionStore(horizontal_key)
        await session.aset("n", (await session.aget("n", 0)) + 1)
        await session.asave()

    async def django_cache() -> None:
        session = CacheStore(cache_key)
        await session.aset("n", (await session.aget("n", 0)) + 1)
        await session.asave()

    async def raw() -> None:
        await client.get(raw_key)
        await client.set(raw_key, stored, ex=ttl)

    cycles = {
        "horizontal.sessions": horizontal,
        "django cache engine": django_cache,
        "raw redis.asyncio GET+SET": raw,
    }
    return cycles, client


Rounds = dict[str, list[float]]


def measure_sync() -> Rounds:
    cycles = sync_cycles()
    for cycle in cycles.values():
        rate(cycle, CYCLES)  # warm-up: connections, imports, caches
    rounds: Rounds = {name: [] for name in cycles}
    for _ in range(ROUNDS):
        for name, cycle in cycles.items():
            rounds[name].append(rate(cycle, CYCLES))
    return rounds


def measure_async(redis_url: str) -> Rounds:
    from asgiref.sync import async_to_sync

    async def run() -> Rounds:
        cycles, client = async_cycles(redis_url)
        for cycle in cycles.values():
            await arate(cycle, ASYNC_CYCLES)
        rounds: Rounds = {name: [] for name in cycles}
        for _ in range(ROUNDS):
            for name, cycle in cycles.items():
                rounds[name].append(await arate(cycle, ASYNC_CYCLES))
        await client.aclose()
        return rounds

    return async_to_sync(run)()


def ratio(rounds: Rounds, name: str, peer: str) -> float:
    """Median over rounds of the per-round ratio (both measured under the same load)."""
    return statistics.median(a / b for a, b in zip(rounds[name], rounds[peer], strict=True))


def report(title: str, rounds: Rounds, raw_name: str) -> tuple[float, float]:
    ours = "horizontal.sessions"
    print(f"\n{title} ({ROUNDS} interleaved rounds; median rate, median per-round ratio)")
    for name, rates in rounds.items():
        print(f"  {name:<28} {statistics.median(rates):>9,.0f} cycles/s")
    vs_raw = ratio(rounds, ours, raw_name)
    vs_django = ratio(rounds, ours, "django cache engine")
    print(f"  horizontal / {raw_name}: {vs_raw:.2f}x")
    print(f"  horizontal / django cache engine: {vs_django:.2f}x")
    return vs_raw, vs_django


def main() -> None:
    # The tests' own launcher: a redis-server on a free port, waited for until it answers.
    from tests.support.redis_server import RedisServer

    redis_url = os.environ.get("BENCH_REDIS_URL")
    private = None
    if not redis_url:
        private = RedisServer().start()
        redis_url = private.url
    try:
        setup_django(redis_url)
        import django

        print(f"Django {django.get_version()}, Python {sys.version.split()[0]}, {redis_url}")
        rounds = measure_sync()
        vs_raw, vs_django = report("sync: load + modify + save", rounds, "raw GET+SET")
        print(f"  horizontal / {LEAN_RAW}: {ratio(rounds, 'horizontal.sessions', LEAN_RAW):.2f}x")
        print(f"  horizontal / {LEAN_OURS}: {ratio(rounds, 'horizontal.sessions', LEAN_OURS):.2f}x")
        print(f"  {LEAN_OURS} / {LEAN_RAW}: {ratio(rounds, LEAN_OURS, LEAN_RAW):.2f}x")
        met = {True: "met", False: "MISSED"}
        print(
            f"  targets: >= {TARGET_VS_RAW}x raw: {met[vs_raw >= TARGET_VS_RAW]}; "
            f">= {TARGET_VS_DJANGO}x django cache engine: {met[vs_django >= TARGET_VS_DJANGO]}"
        )
        avs_raw, _ = report(
            "async: aget + aset + asave", measure_async(redis_url), "raw redis.asyncio GET+SET"
        )
        print(f"  target: >= {TARGET_VS_RAW}x raw redis.asyncio: {met[avs_raw >= TARGET_VS_RAW]}")
    finally:
        if private is not None:
            private.stop()


if __name__ == "__main__":
    main()
