"""Behind a real load balancer: HAProxy in front of three gunicorn instances of testproject.

RELIABILITY.md L1 and L2. Every process is real: HAProxy (Debian's package) health-checks
``/horizontal/ready/`` every 500 ms (fall 2, rise 1); each gunicorn master runs the drain
hook (``-c python:horizontal.health.gunicorn``); sessions are in one Redis and files in
one S3 bucket (moto's server), so any instance can serve any request. A bounded client
(``tests/support/load.py``) logs in, uploads, reads and keeps requesting throughout.

``HORIZONTAL_BALANCER_LONG=1`` runs the long version (five times the requests).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.databases import ScratchDatabase
from tests.support.haproxy import HAProxy
from tests.support.load import LoadClient, Session, summarize
from tests.support.processes import Instance, manage, start_gunicorn
from tests.support.redis_server import RedisServer
from tests.support.s3 import MotoServer, start_moto_server

pytestmark = [pytest.mark.multiprocess, pytest.mark.balancer]

LONG = os.environ.get("HORIZONTAL_BALANCER_LONG") == "1"
SCALE = 5 if LONG else 1
INTER_MS, FALL = 500, 2
# Longer than the balancer needs to see a 503 (fall × inter, plus a check's time).
DRAIN_SECONDS = 3.0
RATE = 12.0  # requests per second, all kinds
GUNICORN_CONFIG = "python:horizontal.health.gunicorn"


@dataclass
class Fleet:
    env: dict[str, str]
    instances: list[Instance]
    balancer: HAProxy
    username: str

    def name(self, index: int) -> str:
        return self.balancer.names[index]

    def replace(self, index: int) -> Instance:
        """Start a new instance in slot ``index`` on a port of its own and point the
        balancer's server there; the old process may still be finishing its requests."""
        new = start(self.instances[index].env, wait=False)
        self.instances[index] = new
        self.balancer.set_address(self.name(index), new.port)
        return new


LOGS = Path(os.environ.get("HORIZONTAL_BALANCER_LOGS", "/tmp")) / f"hz-balancer-{os.getpid()}"


def start(env: dict[str, str], wait: bool = True) -> Instance:
    LOGS.mkdir(parents=True, exist_ok=True)
    return start_gunicorn(
        env,
        log=LOGS / f"{env['HORIZONTAL_INSTANCE_ID']}.log",
        config=GUNICORN_CONFIG,
        workers=2,
        preload=True,
        wait=wait,
        ready_path="/horizontal/live/",
    )


def instance_env(index: int, base: dict[str, str]) -> dict[str, str]:
    return {**base, "HORIZONTAL_INSTANCE_ID": f"web-{index}"}


@pytest.fixture(scope="module")
def fleet() -> Iterator[Fleet]:
    database = ScratchDatabase("postgresql").create()
    redis_server = RedisServer().start()
    moto: MotoServer = start_moto_server()
    bucket = moto.create_bucket("balancer")
    env = {
        **database.env,
        **moto.project_env(bucket),
        "REDIS_URL": redis_server.url,
        "HORIZONTAL_DRAIN_SECONDS": str(DRAIN_SECONDS),
    }
    username = f"u{uuid.uuid4().hex[:8]}"
    manage(
        "shell",
        "-c",
        f"from django.contrib.auth.models import User; "
        f"User.objects.create_user({username!r}, password='pw')",
        env=env,
    )
    instances: list[Instance] = []
    balancer: HAProxy | None = None
    try:
        instances.extend(start(instance_env(index, env), wait=False) for index in range(3))
        balancer = HAProxy(
            [i.port for i in instances],
            inter_ms=INTER_MS,
            fall=FALL,
            log_path=LOGS / "haproxy.log",
        ).start()
        for name in balancer.names:
            balancer.wait_for(name, "UP", timeout=60)
        yield Fleet(env, instances, balancer, username)
    finally:
        if balancer is not None:
            balancer.stop()
        for instance in instances:
            instance.stop(signal.SIGKILL)
        moto.stop()
        redis_server.stop()
        database.drop()


def logged_in_with_uploads(fleet: Fleet, count: int = 3) -> tuple[Session, dict[str, bytes]]:
    session = Session(fleet.balancer.url)
    session.log_in(fleet.username)
    files = {}
    for i in range(count):
        data = f"upload {i} {uuid.uuid4()}".encode() * 100
        files[session.upload(f"start-{i}.txt", data)] = data
    return session, files


def test_rolling_restart_behind_haproxy_fails_no_request_and_keeps_sessions_and_files(fleet):
    session, files = logged_in_with_uploads(fleet)
    client = LoadClient(session, fleet.username, files, rate=RATE, limit=100_000).start()
    time.sleep(3 * SCALE)
    during_from = time.monotonic()
    timings = []
    for index in range(3):
        name = fleet.name(index)
        old = fleet.instances[index]
        sigterm_at = time.monotonic()
        old.process.send_signal(signal.SIGTERM)
        left = fleet.balancer.wait_for(name, "DOWN", timeout=10)
        assert old.process.poll() is None, "the instance stopped before it left rotation"
        # Out of rotation: its replacement boots while it finishes what it was serving.
        fleet.replace(index)
        back = fleet.balancer.wait_for(name, "UP", timeout=30)
        assert old.process.wait(30) == 0
        stopped = time.monotonic() - sigterm_at
        timings.append((name, left, stopped, back))
        time.sleep(2 * (SCALE - 1))  # the long version keeps requesting between restarts
    during_to = time.monotonic()
    client.stop()

    before = summarize(client.between(0, during_from))
    during = summarize(client.between(during_from, during_to))
    print(before.line("L1 before"))
    print(during.line("L1 during the rolling restart"))
    for name, left, stopped, back in timings:
        print(
            f"L1 {name}: out of rotation {left:.2f} s after SIGTERM, replacement UP "
            f"{back:.2f} s later, old process exited 0 (by {stopped:.2f} s)"
        )
    assert before.failed == 0, before.reasons
    assert during.failed == 0, during.reasons
    assert during.sent >= RATE * 5

    # Still logged in, and every file readable through every (new) instance.
    for instance in fleet.instances:
        assert session.whoami(instance.url) == fleet.username
        for name, data in files.items():
            assert session.download(name, instance.url) == data
    uploaded = len(files)
    print(f"L1 {uploaded} uploads, each read back through all 3 instances")
    assert uploaded >= 3 + during.sent // 10 * 0.5


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(child) for child in text)
    return found


def test_kill_9_mid_request_fails_only_what_was_in_flight_and_haproxy_drops_it(fleet):
    session, files = logged_in_with_uploads(fleet, count=2)
    for name in fleet.balancer.names:
        fleet.balancer.wait_for(name, "UP")
    client = LoadClient(
        session, fleet.username, files, rate=RATE, limit=100_000, slow_ms=400
    ).start()
    time.sleep(2 * SCALE)
    victim_index = 1
    victim, name = fleet.instances[victim_index], fleet.name(victim_index)
    # Mid-request: wait until the balancer has a request in flight on it.
    deadline = time.monotonic() + 10
    while fleet.balancer.stats()[name].current == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    in_flight = fleet.balancer.stats()[name].current
    pids = [victim.process.pid, *children(victim.process.pid)]
    killed_at = time.monotonic()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    down_after = fleet.balancer.wait_for(name, "DOWN", timeout=10)
    routed_at_down = fleet.balancer.stats()[name].sessions_total
    time.sleep(2.5 * SCALE)
    routed_later = fleet.balancer.stats()[name].sessions_total
    client.stop()
    victim.process.wait(5)

    # In flight at the kill: sent before it, answered after it.
    outcomes = client.outcomes
    settle = killed_at + down_after + 0.5
    before = summarize([o for o in outcomes if o.sent_at + o.seconds < killed_at])
    after_kill = summarize(
        [o for o in outcomes if o.sent_at < settle and o.sent_at + o.seconds >= killed_at]
    )
    settled = summarize([o for o in outcomes if o.sent_at >= settle])
    print(before.line("L2 before the kill"))
    label = f"L2 in flight at the kill or sent until DOWN (+0.5 s), {in_flight} on {name}"
    print(after_kill.line(label))
    print(settled.line("L2 after"))
    print(
        f"L2 HAProxy marked {name} DOWN {down_after:.2f} s after kill -9 "
        f"(inter {INTER_MS} ms, fall {FALL}); requests routed to it afterwards: "
        f"{routed_later - routed_at_down}"
    )
    assert before.failed == 0, before.reasons
    # Only what was in flight on the victim fails; a refused connection is redispatched.
    assert after_kill.failed <= client.workers, after_kill.reasons
    assert down_after <= FALL * INTER_MS / 1000 + 1.5
    assert routed_later == routed_at_down
    assert settled.failed == 0, settled.reasons
    assert settled.sent >= RATE * 1.5 * SCALE

    fleet.replace(victim_index)
    fleet.balancer.wait_for(name, "UP", timeout=30)
