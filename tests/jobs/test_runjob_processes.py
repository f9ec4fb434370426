"""``manage.py runjob`` as real, concurrent OS processes against each real database.

These are the scenarios of issue 2 and RELIABILITY.md F1/F2/F3: eight nodes at once, a
runner killed with SIGKILL mid-job, a runner paused with SIGSTOP past its claim's expiry.
Every assertion is on what the processes committed: each refund paid exactly once, each
balance equal to the sum of its paid refunds, tokens increasing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.databases import ScratchDatabase
from tests.support.processes import manage, spawn

pytestmark = pytest.mark.multiprocess

TODAY = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT00:00:00Z")


def seed(db: ScratchDatabase, accounts: int, refunds: int) -> None:
    manage("seed_demo", "--accounts", str(accounts), "--refunds", str(refunds), env=db.env)


def assert_paid_exactly_once(db: ScratchDatabase, refunds: int) -> None:
    statuses = db.query("SELECT status, count(*) FROM billing_refund GROUP BY status")
    assert dict(statuses) == {"paid": refunds}
    effects = db.query("SELECT count(*) FROM horizontal_effect")[0][0]
    assert effects == refunds, "one effect key per refund, no more"
    mismatched = db.query(
        """
        SELECT a.id, a.balance, COALESCE(SUM(r.amount), 0)
        FROM billing_account a LEFT JOIN billing_refund r
          ON r.account_id = a.id AND r.status = 'paid'
        GROUP BY a.id, a.balance
        """
    )
    for account, balance, paid in mismatched:
        assert Decimal(str(balance)) == Decimal(str(paid)), f"account {account} paid twice"


def node_env(db: ScratchDatabase, node: str, **extra: str) -> dict[str, str]:
    return {**db.env, "HORIZONTAL_INSTANCE_ID": node, **extra}


def wait_all(processes: list[subprocess.Popen[str]], timeout: float = 120) -> list[tuple[int, str]]:
    results = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        results.append((process.returncode, out + err))
    return results


@pytest.mark.parametrize("explicit_slot", [True, False], ids=["slot", "due"])
def test_eight_nodes_at_once_pay_every_refund_exactly_once(
    project_db: ScratchDatabase, explicit_slot: bool
) -> None:
    seed(project_db, accounts=10, refunds=60)
    args = ["runjob", "refund_balances"] + (["--slot", TODAY] if explicit_slot else [])
    nodes = [
        spawn(*args, env=node_env(project_db, f"node-{i}", BILLING_PAY_DELAY="0.01"))
        for i in range(8)
    ]
    results = wait_all(nodes)
    assert [code for code, _ in results] == [0] * 8, results
    winners = [out for _, out in results if ": succeeded on" in out]
    assert len(winners) == 1, results
    winner = winners[0].split("succeeded on ")[1].split()[0]
    losers = [out for _, out in results if ": succeeded on" not in out]
    assert len(losers) == 7
    for out in losers:
        assert ("already running on " + winner in out) or (
            "already succeeded on " + winner in out
        ), out
    assert_paid_exactly_once(project_db, 60)
    rows = project_db.query("SELECT status, token, attempt, owner FROM horizontal_jobrun")
    assert rows == [("succeeded", 1, 1, winner)]


def paid_count(db: ScratchDatabase) -> int:
    return int(db.query("SELECT count(*) FROM billing_refund WHERE status = 'paid'")[0][0])


def start_paying_runner(
    db: ScratchDatabase, node: str, *, ttl: str = "2", paid: int = 5
) -> subprocess.Popen[str]:
    """A runjob for TODAY that pays slowly; returned once it has paid ``paid`` refunds."""
    runner = spawn(
        "runjob",
        "refund_balances",
        "--slot",
        TODAY,
        env=node_env(db, node, BILLING_PAY_DELAY="0.1", HORIZONTAL_LEASE_TTL=ttl),
    )
    wait_for_paid(db, paid)
    return runner


def wait_for_paid(db: ScratchDatabase, at_least: int, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        paid = paid_count(db)
        if paid >= at_least:
            return paid
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} refunds paid within {timeout} s")


def test_a_killed_runner_is_reclaimed_after_expiry_with_a_higher_token(
    project_db: ScratchDatabase,
) -> None:
    seed(project_db, accounts=5, refunds=40)
    ttl = {"HORIZONTAL_LEASE_TTL": "2"}
    victim = start_paying_runner(project_db, "victim")
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    assert 0 < paid_count(project_db) < 40

    early = manage(
        "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "early", **ttl)
    )
    assert "already running on victim" in early.stdout  # the claim has not expired yet

    time.sleep(2.2)  # the claim's ttl
    rescuer = manage(
        "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "rescuer", **ttl)
    )
    assert "succeeded on rescuer (token 2, attempt 2)" in rescuer.stdout
    assert_paid_exactly_once(project_db, 40)
    tokens = project_db.query("SELECT DISTINCT token FROM horizontal_effect ORDER BY token")
    assert tokens == [(1,), (2,)]


def test_a_killed_runner_and_its_rescuer_both_show_in_jobs_and_in_json(
    project_db: ScratchDatabase,
) -> None:
    """Issue 13: a run killed with SIGKILL and re-claimed shows both attempts (who, when,
    how each ended) in the table, in `manage.py jobs` and in `jobs --format json`."""
    seed(project_db, accounts=2, refunds=12)
    victim = start_paying_runner(project_db, "victim", paid=3)
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    time.sleep(2.2)  # the victim's claim expires (ttl 2 s)
    rescuer = manage(
        "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "rescuer")
    )
    assert "succeeded on rescuer (token 2, attempt 2)" in rescuer.stdout
    assert_paid_exactly_once(project_db, 12)
    rows = project_db.query(
        "SELECT token, owner, triggered_by, outcome, error FROM horizontal_jobattempt"
        " ORDER BY token"
    )
    assert rows == [
        (1, "victim", "manual", "abandoned", "claim expired; taken over by rescuer with token 2"),
        (2, "rescuer", "manual", "succeeded", ""),
    ]
    text = manage("jobs", env=project_db.env).stdout
    assert "attempt 1 (token 1, manual) on victim: abandoned; claimed " in text, text
    assert ": claim expired; taken over by rescuer with token 2" in text, text
    assert "attempt 2 (token 2, manual) on rescuer: succeeded; claimed " in text, text
    data = json.loads(manage("jobs", "--format", "json", env=project_db.env).stdout)
    [refunds] = [j for j in data["jobs"] if j["name"] == "refund_balances"]
    [run] = [r for r in refunds["runs"] if r["slot"] == TODAY]
    assert (run["status"], run["instance"], run["token"]) == ("succeeded", "rescuer", 2)
    shown = [(a["token"], a["instance"], a["outcome"]) for a in run["attempts"]]
    assert shown == [(1, "victim", "abandoned"), (2, "rescuer", "succeeded")]
    killed, rescued = run["attempts"]
    assert killed["finished_at"] == rescued["claimed_at"]  # abandoned when taken over
    assert killed["claimed_at"] < rescued["claimed_at"] <= rescued["finished_at"]


def test_a_paused_runner_resumed_after_takeover_is_fenced_out_and_exits_3(
    project_db: ScratchDatabase,
) -> None:
    seed(project_db, accounts=5, refunds=40)
    ttl = {"HORIZONTAL_LEASE_TTL": "2"}
    zombie = start_paying_runner(project_db, "zombie")
    os.kill(zombie.pid, signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the claim's expiry
        rescuer = spawn(
            "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "rescuer", **ttl)
        )
        try:
            out, err = rescuer.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            # The zombie was paused inside an effect transaction: its row lock makes the
            # takeover wait until that transaction ends, so let it end.
            os.kill(zombie.pid, signal.SIGCONT)
            out, err = rescuer.communicate(timeout=60)
    finally:
        os.kill(zombie.pid, signal.SIGCONT)
    zombie_out, zombie_err = zombie.communicate(timeout=60)
    assert rescuer.returncode == 0, out + err
    assert "succeeded on rescuer (token 2" in out
    assert zombie.returncode == 3, zombie_out + zombie_err
    assert "claim lost" in zombie_err or "took the slot over" in zombie_err
    assert_paid_exactly_once(project_db, 40)
    row = project_db.query("SELECT status, token, owner FROM horizontal_jobrun")
    assert row == [("succeeded", 2, "rescuer")]


def test_runjob_usage_errors_exit_2_with_a_clear_message(project_db: ScratchDatabase) -> None:
    unknown = manage("runjob", "refund_balance", env=project_db.env, check=False)
    assert unknown.returncode == 2
    assert "unknown job 'refund_balance'; known jobs:" in unknown.stderr
    assert "refund_balances" in unknown.stderr
    bad_slot = manage(
        "runjob", "refund_balances", "--slot", "29/11/2026", env=project_db.env, check=False
    )
    assert bad_slot.returncode == 2 and "ISO 8601" in bad_slot.stderr


def test_a_failed_job_exits_1_and_is_rerun_only_with_retry(project_db: ScratchDatabase) -> None:
    # The job refuses a non-positive refund (a business rule): the run fails midway.
    seed(project_db, accounts=2, refunds=4)
    project_db.query(
        "UPDATE billing_refund SET amount = -1 WHERE id = (SELECT min(id) FROM "
        "(SELECT id FROM billing_refund) AS r)"
    )
    failed = manage("runjob", "refund_balances", "--slot", TODAY, env=project_db.env, check=False)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "failed (token 1)" in failed.stderr
    again = manage("runjob", "refund_balances", "--slot", TODAY, env=project_db.env)
    assert "--retry" in again.stdout
    project_db.query("UPDATE billing_refund SET amount = 1 WHERE amount < 0")
    retried = manage("runjob", "refund_balances", "--slot", TODAY, "--retry", env=project_db.env)
    assert "succeeded" in retried.stdout and "token 2" in retried.stdout
    assert_paid_exactly_once(project_db, 4)


def test_sigterm_hands_the_claim_back_for_an_immediate_takeover(
    project_db: ScratchDatabase,
) -> None:
    seed(project_db, accounts=3, refunds=30)
    ttl = {"HORIZONTAL_LEASE_TTL": "30"}  # long: the takeover must not wait for expiry
    leaving = start_paying_runner(project_db, "leaving", ttl=ttl["HORIZONTAL_LEASE_TTL"], paid=3)
    leaving.send_signal(signal.SIGTERM)
    out, err = leaving.communicate(timeout=30)
    assert leaving.returncode == 4, out + err
    assert "interrupted, claim handed back" in err
    started = time.monotonic()
    successor = manage(
        "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "successor", **ttl)
    )
    assert "succeeded on successor (token 2, attempt 2)" in successor.stdout
    assert time.monotonic() - started < 15  # far below the 30 s TTL
    assert_paid_exactly_once(project_db, 30)


def test_jobs_lists_schedule_next_slot_and_recent_runs(project_db: ScratchDatabase) -> None:
    seed(project_db, accounts=1, refunds=1)
    manage("runjob", "refund_balances", env=node_env(project_db, "lister"))
    listing = manage("jobs", env=project_db.env).stdout
    assert "refund_balances: Pay every pending refund" in listing
    assert "schedule: 0 0 * * * (UTC); catchup=latest, overlap=skip" in listing
    assert "next slot: " in listing
    assert "succeeded in " in listing and "on lister" in listing


def process_state(pid: int) -> str:
    """The process's state letter from /proc ('T' once SIGSTOPped)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def server_only(db: ScratchDatabase) -> None:
    if db.vendor == "sqlite":
        # SQLite has one write lock for the whole file: an open effect transaction holds
        # every other writer off, the run's own heartbeat included, and no server exists
        # to end a paused holder's transaction. docs/jobs.md says so.
        pytest.skip("SQLite serialises writers: a fenced transaction blocks all of them")


WARM_NODE = """
import os, time
from horizontal.jobs.runner import run_job
open({ready!r}, "w").close()
while not os.path.exists({go!r}):
    time.sleep(0.01)
"""
# One try, timed from the go signal: the answer, then how long the claim took.
ONE_TRY = """
started = time.monotonic()
[outcome] = run_job("refund_balances", slot="{slot}")
print(outcome.message, flush=True)
print(f"answered in {{time.monotonic() - started:.2f}} s", flush=True)
"""


def warm_node(
    db: ScratchDatabase, node: str, script: str, tmp_path: Path, **env: str
) -> tuple[subprocess.Popen[str], Path]:
    """A node already started (Django loaded, as a scheduler's is) that runs ``script``
    once the returned go file exists: its start-up, seconds on a loaded machine, is not
    counted in what the test times."""
    ready, go = tmp_path / f"{node}-ready", tmp_path / f"{node}-go"
    process = spawn(
        "shell",
        "-c",
        WARM_NODE.format(ready=str(ready), go=str(go)) + script,
        env=node_env(db, node, **env),
    )
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{node} did not start"
        time.sleep(0.02)
    return process, go


def test_hardening_05_a_long_effect_transaction_keeps_its_claim_and_claims_answer_at_once(
    project_db: ScratchDatabase, tmp_path: Path
) -> None:
    server_only(project_db)
    seed(project_db, accounts=1, refunds=2)
    other, other_go = warm_node(project_db, "other", ONE_TRY.format(slot=TODAY), tmp_path)
    # TTL 4.5 s: the heartbeat beats every 1.5 s and the run counts itself lost 3 s after
    # its last renewal. Each refund's transaction stays open 3.5 s (> 2/3 TTL).
    holder = spawn(
        "runjob",
        "refund_balances",
        "--slot",
        TODAY,
        env=node_env(
            project_db,
            "holder",
            HORIZONTAL_LEASE_TTL="4.5",
            HORIZONTAL_DEBUG_FAILPOINTS="1",
            HORIZONTAL_FAILPOINTS="inside_effect=sleep:3.5",
        ),
    )

    def paid() -> int:
        return paid_count(project_db)

    try:
        deadline = time.monotonic() + 30
        while not project_db.query("SELECT 1 FROM horizontal_jobrun"):
            assert time.monotonic() < deadline, "the holder did not claim"
            time.sleep(0.02)
        time.sleep(0.3)  # into its first effect transaction (3.5 s long)
        (first_beat,) = project_db.query("SELECT heartbeat_at FROM horizontal_jobrun")[0]
        # A second node's try answers at once instead of queueing behind the fence.
        other_go.touch()
        other_out, other_err = other.communicate(timeout=60)
        answered_inside = paid() == 0
        assert "already running on holder" in other_out, other_out + other_err
        print(f"\nhardening_05 {project_db.vendor}: {other_out.splitlines()[-1]}")
        # And the holder's own heartbeat renews the claim while the transaction is open.
        beat = first_beat
        while beat == first_beat and paid() == 0:
            (beat,) = project_db.query("SELECT heartbeat_at FROM horizontal_jobrun")[0]
            time.sleep(0.05)
        renewed_inside = beat > first_beat and paid() == 0
        out, err = holder.communicate(timeout=60)
    finally:
        for process in (holder, other):
            if process.poll() is None:
                process.kill()
    assert answered_inside, "the concurrent claim waited for the holder's transaction"
    assert renewed_inside, "the heartbeat waited for its own run's transaction"
    assert holder.returncode == 0, out + err
    assert "succeeded on holder (token 1, attempt 1)" in out
    assert_paid_exactly_once(project_db, 2)


RESCUER = """
import time
from horizontal.jobs.runner import run_job
while True:
    [outcome] = run_job("refund_balances", slot="{slot}")
    print(outcome.message, flush=True)
    if outcome.status != "taken":
        break
    time.sleep({poll})
"""


def test_hardening_06_a_runner_paused_inside_its_effect_transaction_is_taken_over(
    project_db: ScratchDatabase, tmp_path: Path
) -> None:
    server_only(project_db)
    seed(project_db, accounts=2, refunds=10)
    ttl = 2.0
    trigger = f"{tmp_path}/stop-inside-effect"
    open(trigger, "w").close()  # armed: the first effect stops the runner

    def start_zombie() -> subprocess.Popen[str]:
        return spawn(
            "runjob",
            "refund_balances",
            "--slot",
            TODAY,
            env=node_env(
                project_db,
                "zombie",
                HORIZONTAL_LEASE_TTL=str(ttl),
                HORIZONTAL_DEBUG_FAILPOINTS="1",
                HORIZONTAL_FAILPOINTS=f"inside_effect=stop_once:{trigger}",
            ),
        )

    assert_paused_runner_taken_over(
        project_db, start_zombie, ttl, tmp_path, refunds=10, what="inside its effect"
    )


# A runner that freezes itself right after the statement that takes its fence's lock,
# before anything else of the transaction runs: the fence must already have bounded how
# long the server lets that transaction sit idle (MariaDB's idle bound was once set
# after the lock, so a process frozen in between kept the slot until it resumed).
FROZEN_AFTER_FENCE_LOCK = """
import os, signal
from django.db import connection
from horizontal.jobs.runner import run_job

def freeze_after_fence_lock(execute, sql, params, many, context):
    result = execute(sql, params, many, context)
    if "LOCK IN SHARE MODE" in sql or "FOR KEY SHARE" in sql:
        os.kill(os.getpid(), signal.SIGSTOP)
    return result

connection.execute_wrappers.append(freeze_after_fence_lock)
[outcome] = run_job("refund_balances", slot="{slot}")
print(outcome.message, flush=True)
raise SystemExit(outcome.exit_code)
"""


def test_hardening_06b_a_runner_frozen_just_after_its_fence_lock_is_taken_over(
    project_db: ScratchDatabase, tmp_path: Path
) -> None:
    server_only(project_db)
    seed(project_db, accounts=2, refunds=10)
    ttl = 2.0

    def start_zombie() -> subprocess.Popen[str]:
        return spawn(
            "shell",
            "-c",
            FROZEN_AFTER_FENCE_LOCK.format(slot=TODAY),
            env=node_env(project_db, "zombie", HORIZONTAL_LEASE_TTL=str(ttl)),
        )

    assert_paused_runner_taken_over(
        project_db, start_zombie, ttl, tmp_path, refunds=10, what="just after its fence lock"
    )


def assert_paused_runner_taken_over(
    project_db: ScratchDatabase,
    start_zombie: Callable[[], subprocess.Popen[str]],
    ttl: float,
    tmp_path: Path,
    refunds: int,
    what: str,
    poll: float = 0.5,
) -> None:
    """The zombie stops itself holding a fenced transaction; another node takes it over."""
    # Another node, already up (as a scheduler is), trying the slot every `poll` seconds
    # once told to: each try answers "taken" at once (or within the 1 s lock bound) until
    # it takes over.
    rescuer, rescuer_go = warm_node(
        project_db,
        "rescuer",
        RESCUER.format(slot=TODAY, poll=poll),
        tmp_path,
        HORIZONTAL_LEASE_TTL=str(ttl),
    )
    zombie = start_zombie()
    try:
        deadline = time.monotonic() + 30
        while process_state(zombie.pid) != "T" and time.monotonic() < deadline:
            if zombie.poll() is not None:
                out, err = zombie.communicate()
                raise AssertionError(f"the runner ended before it stopped: {out}{err}")
            time.sleep(0.02)
        assert process_state(zombie.pid) == "T", f"the runner did not stop {what}"
        paused_at = time.monotonic()
        rescuer_go.touch()
        taken_over_after = None
        while time.monotonic() - paused_at < 15 and rescuer.poll() is None:
            rows = project_db.query("SELECT token FROM horizontal_jobrun")
            if rows and rows[0][0] >= 2:
                taken_over_after = time.monotonic() - paused_at
                break
            time.sleep(0.02)
        assert taken_over_after is not None, f"the slot was not taken over while paused {what}"
        print(f"\npaused {what}, {project_db.vendor}: taken over {taken_over_after:.2f} s after")
        out, err = rescuer.communicate(timeout=60)
    finally:
        os.kill(zombie.pid, signal.SIGCONT)
        if rescuer.poll() is None:
            rescuer.kill()
    zombie_out, zombie_err = zombie.communicate(timeout=60)
    assert zombie.returncode == 3, zombie_out + zombie_err  # fenced out: its write is gone
    assert rescuer.returncode == 0, out + err
    assert "succeeded on rescuer (token 2, attempt 2)" in out, out + err
    # The claim expires a TTL after its last renewal, at most at the pause + TTL, when the
    # server also ends the paused transaction (its idle bound); the next try is a poll on.
    assert taken_over_after <= ttl + poll + 1.0, f"taken over after {taken_over_after:.2f} s"
    assert_paid_exactly_once(project_db, refunds)
    row = project_db.query("SELECT status, token FROM horizontal_jobrun")
    assert row == [("succeeded", 2)]


@pytest.mark.parametrize("project_db", ["postgresql", "mysql"], indirect=True)
def test_hardening_11_a_claim_whose_reply_was_lost_is_ours_on_the_retry(
    project_db: ScratchDatabase, tmp_path: Path
) -> None:
    # The claim commits, then the connection drops before its reply arrives: the retried
    # claim found the row held (by ourselves) and the runner reported the slot "already
    # running on" itself, leaving a running row nobody ran until its claim expired (for
    # good for a job with reclaim_crashed=False). SQLite has no network to lose a reply on.
    seed(project_db, accounts=2, refunds=4)
    armed = tmp_path / "drop-after-claim"
    armed.touch()
    failpoint = {
        "HORIZONTAL_DEBUG_FAILPOINTS": "1",
        "HORIZONTAL_FAILPOINTS": f"after_claim_commit=disconnect_once:{armed}",
    }
    result = manage(
        "runjob",
        "refund_balances",
        "--slot",
        TODAY,
        env=node_env(project_db, "lossy", **failpoint),
        check=False,
    )
    assert not armed.exists(), "the failpoint fired"
    assert result.returncode == 0, result.stdout + result.stderr
    assert "succeeded on lossy (token 1, attempt 1)" in result.stdout, result.stdout
    assert_paid_exactly_once(project_db, 4)
    rows = project_db.query("SELECT status, token, owner FROM horizontal_jobrun")
    assert rows == [("succeeded", 1, "lossy")]


def _wait_for(db: ScratchDatabase, sql: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not db.query(sql):
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing matched {sql!r} within {timeout} s")
        time.sleep(0.05)


def test_hardening_11_sigterm_during_the_claim_hands_the_claim_back(
    project_db: ScratchDatabase,
) -> None:
    # SIGTERM raised Interrupted inside the claim statement, outside the body's try: a
    # traceback (exit 1) and a claim nobody held, re-claimable only when its TTL ran out.
    seed(project_db, accounts=2, refunds=4)
    ttl = {"HORIZONTAL_LEASE_TTL": "30"}
    slow_claim = {
        "HORIZONTAL_DEBUG_FAILPOINTS": "1",
        "HORIZONTAL_FAILPOINTS": "after_claim_commit=sleep:2",
    }
    leaving = spawn(
        "runjob",
        "refund_balances",
        "--slot",
        TODAY,
        env=node_env(project_db, "leaving", **ttl, **slow_claim),
    )
    _wait_for(project_db, "SELECT 1 FROM horizontal_jobrun")  # committed, reply pending
    leaving.send_signal(signal.SIGTERM)
    out, err = leaving.communicate(timeout=30)
    assert leaving.returncode == 4, out + err
    assert "interrupted, claim handed back" in err, err
    assert paid_count(project_db) == 0
    started = time.monotonic()
    successor = manage(
        "runjob", "refund_balances", "--slot", TODAY, env=node_env(project_db, "successor", **ttl)
    )
    assert "succeeded on successor (token 2, attempt 2)" in successor.stdout
    assert time.monotonic() - started < 15  # far below the 30 s TTL
    assert_paid_exactly_once(project_db, 4)


def test_hardening_11_sigterm_during_the_finish_records_the_result_first(
    project_db: ScratchDatabase,
) -> None:
    # SIGTERM raised Interrupted between the body's end and the recorded result: the
    # work was done, but the row stayed "running" until its claim expired, and a
    # re-claim would run the body again.
    seed(project_db, accounts=2, refunds=4)
    slow_finish = {
        "HORIZONTAL_DEBUG_FAILPOINTS": "1",
        "HORIZONTAL_FAILPOINTS": "during_finish=sleep:2",
        "HORIZONTAL_LEASE_TTL": "30",
    }
    leaving = spawn(
        "runjob",
        "refund_balances",
        "--slot",
        TODAY,
        env=node_env(project_db, "leaving", **slow_finish),
    )
    wait_for_paid(project_db, 4)
    time.sleep(0.5)  # the body has returned: the runner is recording its result
    leaving.send_signal(signal.SIGTERM)
    out, err = leaving.communicate(timeout=30)
    assert leaving.returncode == 0, out + err
    assert "succeeded on leaving (token 1, attempt 1); then interrupted" in out, out + err
    rows = project_db.query("SELECT status, token, owner FROM horizontal_jobrun")
    assert rows == [("succeeded", 1, "leaving")]
    assert_paid_exactly_once(project_db, 4)
