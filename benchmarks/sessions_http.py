"""Issue 15 target 1, end to end: an async view under uvicorn, 50 concurrent clients.

    python -m benchmarks.sessions_http      (a private redis-server; BENCH_REDIS_URL=...)

Two uvicorn servers (one worker each, asyncio loop) of the same async view, which reads
a counter from the session and writes it back: one on ``horizontal.sessions`` with its
middleware, one on Django's cache engine (django-redis, the same Redis) with Django's
middleware. 50 clients, each with its own keep-alive connection and session cookie,
drive one server at a time, in interleaved rounds (the machine's load hits both alike).
Reported: requests/s and p50/p99 latency per engine, and the ratios.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import path

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "50"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "4"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
ENGINES = {"horizontal.sessions": "horizontal", "django cache engine": "django"}


async def counter(request: HttpRequest) -> HttpResponse:
    n = await request.session.aget("n", 0)
    await request.session.aset("n", n + 1)
    return HttpResponse(str(n))


urlpatterns = [path("count/", counter)]


def app_factory() -> Any:
    """uvicorn --factory: the ASGI application."""
    from django.core.asgi import get_asgi_application

    return get_asgi_application()


async def _client(port: int, until: float, latencies: list[float], errors: list[int]) -> None:
    """One client: its own connection and session cookie, one request at a time.

    HTTP/1.1 by h11 (uvicorn's own parser), so the client costs both servers alike.
    """
    import h11

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = h11.Connection(our_role=h11.CLIENT)
    cookie = b""
    try:
        while time.monotonic() < until:
            headers = [("Host", f"127.0.0.1:{port}")]
            if cookie:
                headers.append(("Cookie", cookie.decode()))
            started = time.perf_counter()
            writer.write(conn.send(h11.Request(method="GET", target="/count/", headers=headers)))
            writer.write(conn.send(h11.EndOfMessage()))
            status = 0
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await reader.read(65536))
                    continue
                if isinstance(event, h11.Response):
                    status = event.status_code
                    for name, value in event.headers:
                        if name == b"set-cookie" and value.startswith(b"sessionid="):
                            cookie = value.split(b";", 1)[0]
                elif isinstance(event, h11.EndOfMessage):
                    break
            if status == 200:
                latencies.append(time.perf_counter() - started)
            else:
                errors.append(status)
                cookie = b""  # a 503 keeps the cookie; start a fresh session
            conn.start_next_cycle()
    finally:
        writer.close()


async def _drive(port: int, seconds: float) -> tuple[list[float], list[int]]:
    latencies: list[float] = []
    errors: list[int] = []
    until = time.monotonic() + seconds
    await asyncio.gather(*(_client(port, until, latencies, errors) for _ in range(CLIENTS)))
    return latencies, errors


def _start(engine: str, port: int, redis_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "benchmarks.sessions_http_settings",
        "BENCH_SESSION_ENGINE": engine,
        "PYTHONPATH": str(ROOT),
    }
    args = [sys.executable, "-m", "uvicorn", "--factory", "benchmarks.sessions_http:app_factory"]
    args += ["--port", str(port), "--loop", "asyncio", "--http", "h11"]
    args += ["--no-access-log", "--log-level", "warning"]
    return subprocess.Popen(args, cwd=ROOT, env=env)


def _wait_ready(port: int) -> None:
    import urllib.request

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/count/", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"uvicorn on {port} did not answer")


def main() -> None:
    from tests.support.processes import free_port
    from tests.support.redis_server import RedisServer

    redis_url = os.environ.get("BENCH_REDIS_URL")
    private = None
    if not redis_url:
        private = RedisServer().start()
        redis_url = private.url
    servers = {name: (free_port(), engine) for name, engine in ENGINES.items()}
    processes = [_start(engine, port, redis_url) for port, engine in servers.values()]
    try:
        for port, _ in servers.values():
            _wait_ready(port)
        warm_errors = {}
        for name, (port, _) in servers.items():
            # Warm-up: each server's Redis pool grows to one connection per client.
            warm_errors[name] = len(asyncio.run(_drive(port, 2.0))[1])
        rates: dict[str, list[float]] = {name: [] for name in servers}
        latencies: dict[str, list[float]] = {name: [] for name in servers}
        errors: dict[str, int] = dict.fromkeys(servers, 0)
        for _ in range(ROUNDS):
            for name, (port, _) in servers.items():
                got, failed = asyncio.run(_drive(port, SECONDS))
                rates[name].append(len(got) / SECONDS)
                latencies[name].extend(got)
                errors[name] += len(failed)
        print(
            f"async view under uvicorn (1 worker), {CLIENTS} concurrent clients, "
            f"{ROUNDS} interleaved rounds of {SECONDS:g} s, {redis_url}"
        )
        for name in servers:
            lat = sorted(latencies[name])
            print(
                f"  {name:<22} {statistics.median(rates[name]):8,.0f} requests/s   "
                f"p50 {lat[len(lat) // 2] * 1000:6.1f} ms   "
                f"p99 {lat[int(len(lat) * 0.99) - 1] * 1000:6.1f} ms   "
                f"non-200 {errors[name]} (warm-up {warm_errors[name]})"
            )
        ours, theirs = "horizontal.sessions", "django cache engine"
        ratio = statistics.median(a / b for a, b in zip(rates[ours], rates[theirs], strict=True))
        print(f"  horizontal / django cache engine requests/s: {ratio:.2f}x")
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)
        if private is not None:
            private.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
