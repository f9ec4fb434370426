"""RELIABILITY.md scenarios against real processes and real databases.

Each scenario prints its metrics line (run pytest with -s to see them) and fails on any
non-zero D (duplicates), S (stale writes accepted), M (token regressions) or T (stuck
runs), on lost slots, and on a failover slower than TTL + poll + 1 s.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.chaos.harness import POLL, TTL, Cluster, Metrics, skewed
from tests.support.databases import ScratchDatabase
from tests.support.servers import PrivateMariaDB, PrivatePostgres

pytestmark = [pytest.mark.multiprocess, pytest.mark.chaos]

SLOTS = int(os.environ.get("CHAOS_SLOTS", "60"))
FAILOVER_BOUND = TTL + POLL + 1.0


@pytest.fixture(scope="module", params=["sqlite", "postgresql", "mysql"])
def chaos_db(request: pytest.FixtureRequest) -> Iterator[ScratchDatabase]:
    """A scratch database; ``pgbouncer``: on PostgreSQL, every worker (and the migration)
    connecting through the session's PgBouncer in transaction mode, the checker directly."""
    from tests.chaos.harness import CHAOS_ENV

    if request.param == "pgbouncer":
        bouncer = request.getfixturevalue("pgbouncer")
        database = ScratchDatabase("postgresql", extra_env=dict(CHAOS_ENV))
        database.extra_env["DATABASE_URL"] = bouncer.url(database.name)
    else:
        database = ScratchDatabase(request.param, extra_env=CHAOS_ENV)
    yield database.create()
    if request.param == "pgbouncer":
        # The workers' statements really went through the pooler.
        [stats] = [row for row in bouncer.admin("SHOW STATS") if row["database"] == database.name]
        assert stats["total_xact_count"] > 100, stats
    database.drop()


def route(database: ScratchDatabase) -> str:
    """The vendor, and whether the workers reach it through PgBouncer."""
    via = " via pgbouncer" if "DATABASE_URL" in database.extra_env else ""
    return f"{database.vendor}{via}"


# F1 and F3 also run through PgBouncer (transaction mode; RELIABILITY.md's pooled connections).
WITH_PGBOUNCER = pytest.mark.parametrize(
    "chaos_db", ["sqlite", "postgresql", "mysql", "pgbouncer"], indirect=True
)


def assert_clean(metrics: Metrics, name: str) -> None:
    print(f"\n{name} [{metrics.slots} slots]: {metrics.line()}")
    assert metrics.duplicates == 0, metrics.line()
    assert metrics.stale_accepted == 0, metrics.line()
    assert metrics.token_regressions == 0, metrics.line()
    assert metrics.stuck == 0, metrics.line()
    assert metrics.lost == 0, metrics.line()
    for seconds in metrics.failover:
        assert seconds <= FAILOVER_BOUND, metrics.line()


@WITH_PGBOUNCER
def test_f1_no_faults(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=8)
    try:
        cluster.wait_for_slots(SLOTS, timeout=SLOTS * 3 + 30)
        metrics = cluster.heal_and_measure(0)
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F1 no faults, 8 workers, {route(chaos_db)}")
    assert metrics.slots >= SLOTS


# F2: after the claim, mid-job (before its fenced write), inside the effect transaction
# (its fence's lock held: the server ends the paused transaction after the TTL) and inside
# a lease renewal.
PAUSE_POINTS = ("after_claim", "mid_job", "inside_effect", "before_renew")
# SQLite has one write lock for the whole file and no server to end a paused holder's
# transaction: a writer paused inside one stops every writer until it resumes.
SQLITE_PAUSE_POINTS = tuple(p for p in PAUSE_POINTS if p != "inside_effect")
# F3: every point of a run, from its claim to its completion.
KILL_POINTS = ("after_claim", "mid_job", "before_fenced_write", "before_finish")


def test_f2_runner_paused_past_its_ttl_at_each_failpoint(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=4)
    zombies = []
    points = SQLITE_PAUSE_POINTS if chaos_db.vendor == "sqlite" else PAUSE_POINTS
    try:
        cluster.wait_for_slots(5, timeout=60)
        for point in points:
            # Every node runs slots: the first to reach `point` SIGSTOPs itself there. What
            # it held (its claims; leadership, if it led) must pass to the others in time.
            zombie, was_leader, paused_at = cluster.pause_any(point)
            claims = cluster.claims_of(zombie)
            cluster.fault_recovered_after(paused_at, zombie, was_leader, claims)
            time.sleep(max(0.0, paused_at + 3 * TTL - time.time()))
            os.kill(zombie.process.pid, signal.SIGCONT)
            zombies.append(zombie.name)
        metrics = cluster.heal_and_measure()
    finally:
        cluster.stop_all()
    assert_clean(
        metrics,
        f"F2 SIGSTOP the first runner 3xTTL at {', '.join(points)}, {chaos_db.vendor}"
        f" ({cluster.frozen_write_locks} pauses that froze SQLite's write lock undone)",
    )
    assert metrics.attempts_lost >= 1, "no resumed zombie's write was rejected\n" + "\n".join(
        f"--- {w.name} (last lines of its log)\n" + "\n".join(w.output().splitlines()[-12:])
        for w in cluster.workers
        if w.name in zombies
    )
    # No zombie's fenced write was accepted after a newer token's for the same slot (commit
    # order is id order). A write it made while it still held the claim is legitimate, even
    # though the slot was claimed again once it froze (paused in a heartbeat, say).
    for zombie in zombies:
        zombie_rows = chaos_db.query(
            "SELECT count(*) FROM chaos_fencedwrite f WHERE f.owner = %s AND EXISTS ("
            "SELECT 1 FROM chaos_fencedwrite g WHERE g.slot = f.slot AND g.token > f.token"
            " AND g.id < f.id)",
            (zombie,),
        )
        assert zombie_rows[0][0] == 0, zombie


@WITH_PGBOUNCER
def test_f3_runner_killed_at_each_failpoint(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=4)
    victims = []
    try:
        cluster.wait_for_slots(5, timeout=60)
        for point in KILL_POINTS:
            # The first node to reach `point` dies there (os._exit(137), like kill -9).
            victim, was_leader = cluster.arm_any(point, "exit")
            killed_at = time.time()
            victim.process.wait(30)
            victims.append(victim)
            claims = cluster.claims_of(victim)
            cluster.fault_recovered_after(killed_at, victim, was_leader, claims)
            cluster.start_worker(f"{victim.name}r")  # keep four workers
        metrics = cluster.heal_and_measure()
    finally:
        cluster.stop_all()
    assert_clean(
        metrics, f"F3 kill -9 the first runner at {', '.join(KILL_POINTS)}, {route(chaos_db)}"
    )
    assert [victim.process.returncode for victim in victims] == [137] * len(KILL_POINTS)


def test_f5_sigterm_hands_over_within_one_poll(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=4)
    try:
        cluster.wait_for_slots(5, timeout=60)
        leaving = cluster.leader()
        token_before = max(t for t, _ in leaving.leader_since())
        stopped_at = time.time()
        leaving.process.send_signal(signal.SIGTERM)
        leaving.process.wait(30)
        handover = cluster.new_leader_after(stopped_at, leaving)
        successor = cluster.leader()
        metrics = cluster.heal_and_measure(TTL)
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F5 SIGTERM leader (hand-over {handover:.2f}s), {chaos_db.vendor}")
    assert handover < TTL, f"hand-over took {handover:.2f} s"
    assert min(t for t, _ in successor.leader_since()) == token_before + 1


def test_f4_all_killed_then_restarted_catches_up(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=3)
    try:
        cluster.wait_for_slots(5, timeout=60)
        for worker in cluster.workers:
            worker.process.send_signal(signal.SIGKILL)
            worker.process.wait(10)
        time.sleep(10)
        for name in ("r0", "r1", "r2"):
            cluster.start_worker(name)
        metrics = cluster.heal_and_measure(TTL * 2 + 6)
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F4 kill -9 all, restart after 10 s, {chaos_db.vendor}")


# Server databases only. SQLite runs inside each process, so its 'now' is that process's
# wall clock: under libfaketime every worker would have its own "database clock". On a real
# host every process reads one kernel clock, so the skew F12 injects cannot arise there.
@pytest.mark.parametrize("chaos_db", ["postgresql", "mysql"], indirect=True)
def test_f12_client_clocks_skewed_and_running_at_other_rates(chaos_db: ScratchDatabase) -> None:
    # The fake clock really applies to a child process: an hour ahead is an hour ahead.
    probe = subprocess.run(
        [sys.executable, "-c", "import time; print(time.time())"],
        env={**os.environ, **skewed("+1h")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert 3590 < float(probe.stdout) - time.time() < 3610
    cluster = Cluster(chaos_db, workers=0)
    for name, spec in (("ahead", "+1h"), ("behind", "-1h"), ("fast", "+0 x2"), ("slow", "+0 x0.5")):
        cluster.start_worker(name, skewed(spec))
    try:
        cluster.wait_for_slots(8, timeout=90)
        for _ in range(2):  # force hand-overs between differently skewed workers
            leader = cluster.leader()
            leader.process.send_signal(signal.SIGKILL)
            leader.process.wait(10)
            cluster.start_worker(
                f"{leader.name}-again",
                skewed(
                    {
                        "ahead": "+1h",
                        "behind": "-1h",
                        "fast": "+0 x2",
                        "slow": "+0 x0.5",
                    }[leader.name.split("-")[0]]
                ),
            )
            cluster.wait_for_slots(8, timeout=60)
            time.sleep(TTL * 2)
        metrics = cluster.heal_and_measure()
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F12 clocks +1h/-1h/x2/x0.5, {chaos_db.vendor}")


KILL_CONNECTIONS = {
    "postgresql": [
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    ],
}


def _kill_connections(db: ScratchDatabase) -> int:
    if db.vendor == "postgresql":
        return len(db.query(KILL_CONNECTIONS["postgresql"][0]))
    conn = db.connect()
    try:
        cur = conn.cursor()
        cur.execute(
            "SELECT id FROM information_schema.processlist "
            "WHERE db = DATABASE() AND id <> CONNECTION_ID()"
        )
        ids = [row[0] for row in cur.fetchall()]
        for thread in ids:
            with contextlib.suppress(Exception):  # it may have ended on its own meanwhile
                cur.execute(f"KILL {int(thread)}")
        return len(ids)
    finally:
        conn.close()


# SQLite has no server connections to kill.
@pytest.mark.parametrize("chaos_db", ["postgresql", "mysql"], indirect=True)
def test_f8_every_worker_connection_killed(chaos_db: ScratchDatabase) -> None:
    cluster = Cluster(chaos_db, workers=4)
    try:
        cluster.wait_for_slots(5, timeout=60)
        killed = 0
        for _ in range(3):
            killed += _kill_connections(chaos_db)
            time.sleep(2)
        assert killed >= 3
        metrics = cluster.heal_and_measure(require_alive=True)
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F8 {killed} connections killed, {chaos_db.vendor}")


@pytest.fixture(params=["postgresql-fast", "postgresql-immediate", "mariadb-kill"])
def restartable_db(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[PrivatePostgres | PrivateMariaDB, str, ScratchDatabase]]:
    """A scratch database on a private server that the test may restart (F6)."""
    from tests.chaos.harness import CHAOS_ENV

    kind, mode = request.param.split("-")
    server = PrivatePostgres() if kind == "postgresql" else PrivateMariaDB()
    server.start()
    try:
        vendor = "postgresql" if kind == "postgresql" else "mysql"
        database = ScratchDatabase(vendor, extra_env=CHAOS_ENV, server=server.server_url)
        yield server, mode, database.create()
    finally:
        server.close()


def test_f6_database_restarted_under_a_running_scheduler(
    restartable_db: tuple[PrivatePostgres | PrivateMariaDB, str, ScratchDatabase],
) -> None:
    server, mode, database = restartable_db
    cluster = Cluster(database, workers=4)
    try:
        cluster.wait_for_slots(5, timeout=60)
        for _ in range(2):
            # Down for longer than a TTL: the leader cannot renew and must step down,
            # and the slots of the outage are caught up (chaos_tick: catchup="all").
            server.stop(mode)
            time.sleep(TTL + 1)
            server.start()
            cluster.wait_for_slots(cluster.slots_done() + 3, timeout=60)
        metrics = cluster.heal_and_measure(require_alive=True)
    finally:
        cluster.stop_all()
    assert_clean(metrics, f"F6 server down {TTL + 1:.0f} s twice ({mode}), {database.vendor}")
    logs = "".join(worker.output() for worker in cluster.workers)
    assert logs.count("scheduler poll failed") >= 2, "no worker saw the outage"
    # The leader could not renew through either outage: it stepped down, and a leader was
    # elected again afterwards, with a higher token (M above checks that tokens rose).
    acquisitions = sum(len(worker.leader_since()) for worker in cluster.workers)
    assert acquisitions >= 3, f"{acquisitions} leader acquisitions for two outages"
