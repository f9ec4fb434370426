"""Token monotonicity and gate rows across a database restart (RELIABILITY F6, guarantee 1).

Each test runs its own real server (tests/support/servers.py) so it can restart it:
PostgreSQL with a fast and an immediate (crash) shutdown, MariaDB with kill -9.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.support.processes import manage
from tests.support.servers import PrivateMariaDB, PrivatePostgres

pytestmark = pytest.mark.multiprocess

LEASE_STEP = """
import json
from horizontal import leases
lease = leases.acquire("nightly", ttl={ttl}, owner="{owner}")
token = lease.token if lease else None
if lease and {release}:
    lease.release()
print(json.dumps(token))
"""


def lease_step(env: dict[str, str], owner: str, ttl: float, release: bool) -> int | None:
    code = LEASE_STEP.format(ttl=ttl, owner=owner, release=release)
    done = manage("shell", "-c", code, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(params=["postgresql-fast", "postgresql-immediate", "mariadb-kill9"])
def restartable(request: pytest.FixtureRequest) -> Iterator[tuple[object, str, dict[str, str]]]:
    kind, mode = request.param.split("-")
    server = PrivatePostgres() if kind == "postgresql" else PrivateMariaDB()
    server.start()
    try:
        url = server.create_database("horizontal_restart")
        env = {"DATABASE_URL": url}
        manage("migrate", "-v0", env=env)
        yield server, mode, env
    finally:
        server.close()


def test_tokens_only_increase_across_release_takeover_and_restart(
    restartable: tuple[object, str, dict[str, str]],
) -> None:
    server, mode, env = restartable
    tokens = [lease_step(env, "a", ttl=30, release=True) for _ in range(3)]  # release
    tokens.append(lease_step(env, "b", ttl=0.5, release=False))  # held, then abandoned
    time.sleep(0.6)
    tokens.append(lease_step(env, "c", ttl=0.5, release=False))  # takeover after expiry
    server.restart(mode)  # type: ignore[attr-defined]
    time.sleep(0.6)
    tokens.append(lease_step(env, "d", ttl=30, release=False))  # after the restart
    assert tokens == [1, 2, 3, 4, 5, 6]
    assert lease_step(env, "e", ttl=30, release=False) is None  # d holds it, still


def test_a_done_slot_stays_done_across_a_restart(
    restartable: tuple[object, str, dict[str, str]],
) -> None:
    server, mode, env = restartable
    manage("seed_demo", "--accounts", "2", "--refunds", "6", env=env)
    first = manage("runjob", "refund_balances", env=env)
    assert "succeeded" in first.stdout
    server.restart(mode)  # type: ignore[attr-defined]
    second = manage("runjob", "refund_balances", env=env)
    assert "already succeeded" in second.stdout
