"""RELIABILITY.md L3: a dependency down, seen by a real gunicorn instance's readiness.

The instance runs on dependencies of its own, so each can be broken for real: a private
PostgreSQL (``pg_ctl stop``), a private Redis (kill -9: a closed port; SIGSTOP: a wedged
socket that accepts and never answers), a private moto S3 server (SIGSTOP: wedged).
Readiness must answer 503 naming that dependency within its timeout, never hang, and
come back to 200 once the dependency is back; liveness stays 200 throughout.
"""

from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from tests.support.databases import ScratchDatabase
from tests.support.processes import Instance, manage, start_gunicorn
from tests.support.redis_server import RedisServer
from tests.support.s3 import start_moto_server
from tests.support.servers import PrivatePostgres

pytestmark = [pytest.mark.multiprocess, pytest.mark.balancer]

TIMEOUT = 1.0  # HORIZONTAL_HEALTH_TIMEOUT of the instance
CACHE_SECONDS = 0.2
# Scheduling slack on a loaded machine, on top of the bound.
SLACK = 1.5


def get(url: str) -> tuple[int, dict, float]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            status, body = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    return status, json.loads(body), time.monotonic() - started


@pytest.fixture(scope="module")
def instance() -> Iterator[tuple[Instance, PrivatePostgres, RedisServer, object]]:
    postgres = PrivatePostgres()
    postgres.start()
    redis_server = RedisServer().start()
    moto = start_moto_server()
    bucket = moto.create_bucket("deps")
    database = ScratchDatabase("postgresql", server=postgres.server_url)
    database.create(migrate=False)
    env = {
        **database.env,
        **moto.project_env(bucket),
        "REDIS_URL": redis_server.url,
        "HORIZONTAL_HEALTH_TIMEOUT": str(TIMEOUT),
        "HORIZONTAL_HEALTH_CACHE_SECONDS": str(CACHE_SECONDS),
    }
    manage("migrate", "-v0", env=env)  # not needed by readiness; the instance starts clean
    gunicorn = start_gunicorn(env, workers=1, ready_path="/horizontal/live/")
    # Warm up: the first readiness request loads the URLconf and builds the S3 probe's
    # client (boto3), which a starved machine may take seconds over; the bounds below
    # are about outages, not a cold start.
    deadline = time.monotonic() + 60
    while get(gunicorn.url + "/horizontal/ready/")[0] != 200:
        assert time.monotonic() < deadline, "the instance never became ready"
        time.sleep(0.2)
    try:
        yield gunicorn, postgres, redis_server, moto
    finally:
        gunicorn.stop()
        moto.stop()
        redis_server.stop()
        postgres.close()


def wait_for_ready(instance: Instance, expect: int, timeout: float = 20) -> tuple[dict, float]:
    """Poll readiness until it answers ``expect``; every answer must come within the bound.

    Returns the matching body and the seconds from the first poll to it.
    """
    started = time.monotonic()
    slowest = 0.0
    while True:
        status, body, elapsed = get(instance.url + "/horizontal/ready/")
        slowest = max(slowest, elapsed)
        assert elapsed < TIMEOUT + SLACK, f"readiness took {elapsed:.2f} s: {body}"
        if status == expect:
            return body, time.monotonic() - started
        assert time.monotonic() - started < timeout, f"still {status} after {timeout} s: {body}"
        time.sleep(0.05)


def outage(
    instance: Instance, name: str, label: str, breaks: Callable[[], None], heals: Callable[[], None]
) -> None:
    wait_for_ready(instance, 200)
    breaks()  # returns once the dependency is down (pg_ctl stop waits for the shutdown)
    broke_at = time.monotonic()
    try:
        body, _ = wait_for_ready(instance, 503)
        seen = time.monotonic() - broke_at
        status, _, live_seconds = get(instance.url + "/horizontal/live/")
        assert status == 200
        # Ask again while it is down: the answer stays quick (one probe in flight at most).
        _, again, again_seconds = get(instance.url + "/horizontal/ready/")
        check = body["checks"][name]
        print(
            f"L3 {label}: 503 naming {name} ({check['status']}, {check['latency_ms']:.0f} ms: "
            f"{check['detail'][:70]}) {seen:.2f} s after the outage; next answer in "
            f"{again_seconds * 1000:.0f} ms; live 200 in {live_seconds * 1000:.0f} ms"
        )
        assert check["status"] in ("error", "timeout")
        failing = [n for n, c in body["checks"].items() if c["status"] != "ok"]
        assert failing == [name], body
        assert seen < CACHE_SECONDS + TIMEOUT + SLACK
        assert again["checks"][name]["status"] != "ok"
    finally:
        heals()
    _, back = wait_for_ready(instance, 200)
    print(f"L3 {label}: back to 200 {back:.2f} s after it healed")


def test_redis_on_a_closed_port(instance):
    gunicorn, _, redis_server, _ = instance
    outage(gunicorn, "sessions", "Redis closed port", redis_server.kill, redis_server.start)


def test_redis_wedged(instance):
    gunicorn, _, redis_server, _ = instance
    outage(gunicorn, "sessions", "Redis wedged socket", redis_server.pause, redis_server.resume)


def test_s3_endpoint_wedged(instance):
    gunicorn, _, _, moto = instance

    def wedge() -> None:
        moto.process.send_signal(signal.SIGSTOP)

    def unwedge() -> None:
        moto.process.send_signal(signal.SIGCONT)

    outage(gunicorn, "storage", "S3 endpoint wedged", wedge, unwedge)


def test_database_stopped(instance):
    gunicorn, postgres, _, _ = instance
    outage(gunicorn, "database:default", "PostgreSQL stopped", postgres.stop, postgres.start)
