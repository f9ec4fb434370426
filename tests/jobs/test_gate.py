"""The job gate and runner, in-process, on each real database."""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections, transaction

from horizontal import db
from horizontal.conf import conf
from horizontal.exceptions import FencedOut, InvalidSlot, LeaseLost, UnknownJob
from horizontal.jobs import Run, job, registry, run_job, runner
from horizontal.jobs import slots as slots_module
from horizontal.jobs.slots import format_slot, slot_instant
from horizontal.models import Effect, JobAttempt, JobRun, Lease
from tests.support.pgbouncer import PgBouncer, assert_handed_on_clean

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")

calls: list[str] = []


@pytest.fixture(autouse=True)
def scratch_jobs() -> Iterator[None]:
    """Register test jobs for one test, and leave the registry as it was."""
    before = dict(registry.jobs)
    calls.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def db_now() -> dt.datetime:
    return db.db_now(conf.DATABASE)


def slot_time(slot: str) -> dt.datetime:
    instant = slot_instant(slot)
    assert instant is not None, slot
    return instant


def register(name: str, body=None, **options):  # type: ignore[no-untyped-def]
    def default(run: Run) -> None:
        calls.append(f"{run.slot}:{run.token}")

    job(name, **options)(body or default)
    return registry.jobs[name]


def put_run(
    alias: str,
    job_name: str,
    slot: str,
    *,
    status: str,
    owner: str = "other-node",
    token: int = 1,
    attempt: int = 1,
    expires_in: float = 30,
    error: str = "",
) -> None:
    """A JobRun row as another node (or an earlier attempt) would have left it."""
    now = db_now()
    JobRun.objects.using(alias).create(
        job=job_name,
        slot=slot,
        status=status,
        owner=owner,
        token=token,
        attempt=attempt,
        trigger="schedule",
        claimed_at=now,
        heartbeat_at=now,
        expires_at=now + dt.timedelta(seconds=expires_in),
        error=error,
    )


def test_one_claim_per_slot_and_the_second_caller_is_told_who_has_it(db_alias: str) -> None:
    register("every_minute", schedule="* * * * *")
    [first] = run_job("every_minute")
    [second] = run_job("every_minute")
    assert first.status == "succeeded" and first.token == 1
    assert second.status == "taken" and second.exit_code == 0
    assert "already succeeded on" in second.message
    assert len(calls) == 1
    row = JobRun.objects.using(db_alias).get(job="every_minute")
    assert row.status == "succeeded" and row.attempt == 1 and row.finished_at is not None


def test_the_slot_is_the_latest_tick_on_the_database_clock(db_alias: str) -> None:
    register("every_minute", schedule="* * * * *")
    now = db_now()
    [outcome] = run_job("every_minute")
    assert outcome.slot == format_slot(now.replace(second=0, microsecond=0)) or (
        outcome.slot
        == format_slot((now + dt.timedelta(seconds=1)).replace(second=0, microsecond=0))
    )


def test_a_failed_run_is_recorded_and_rerun_only_with_retry(db_alias: str) -> None:
    attempts = []

    def flaky(run: Run) -> None:
        attempts.append(run.token)
        if len(attempts) == 1:
            raise ValueError("payment provider said no")

    register("flaky", flaky, schedule="* * * * *")
    [failed] = run_job("flaky")
    assert failed.status == "failed" and failed.exit_code == 1
    row = JobRun.objects.using(db_alias).get(job="flaky")
    assert row.status == "failed" and "payment provider said no" in row.error
    [again] = run_job("flaky", slot=row.slot)
    assert again.status == "taken" and "--retry" in again.message
    [retried] = run_job("flaky", slot=row.slot, retry=True)
    assert retried.status == "succeeded" and retried.token == 2
    row.refresh_from_db()
    assert (row.status, row.attempt, row.trigger, row.error) == ("succeeded", 2, "retry", "")


def test_max_attempts_reruns_a_failed_slot_without_retry(db_alias: str) -> None:
    attempts = []

    def transient(run: Run) -> None:
        attempts.append(run.attempt)
        if run.attempt < 3:
            raise ConnectionError("provider timed out")

    register("transient", transient, schedule="0 0 * * *", max_attempts=3)
    outcomes = [run_job("transient")[-1] for _ in range(4)]
    assert [o.status for o in outcomes] == ["failed", "failed", "succeeded", "taken"]
    assert attempts == [1, 2, 3]
    assert JobRun.objects.using(db_alias).get(job="transient").attempt == 3


def test_max_attempts_also_reruns_older_failed_slots(db_alias: str) -> None:
    register("older", schedule="* * * * *", max_attempts=2)
    now = db_now()
    old = format_slot(now.replace(second=0, microsecond=0) - dt.timedelta(minutes=5))
    put_run(
        db_alias,
        "older",
        old,
        status="failed",
        owner="x",
        token=1,
        attempt=1,
        error="boom",
        expires_in=0,
    )
    outcomes = run_job("older")
    assert (outcomes[0].slot, outcomes[0].status, outcomes[0].token) == (old, "succeeded", 2)


def test_a_crashed_claim_is_reclaimed_after_expiry_with_a_higher_token(db_alias: str) -> None:
    register("crashy", schedule="* * * * *", ttl=0.6)
    slot = format_slot(db_now().replace(second=0, microsecond=0))
    put_run(
        db_alias,
        "crashy",
        slot,
        status="running",
        owner="dead-node",
        token=7,
        attempt=1,
        expires_in=0.5,
    )
    [held] = run_job("crashy", slot=slot)
    assert held.status == "taken" and "already running on dead-node" in held.message
    time.sleep(0.6)
    [reclaimed] = run_job("crashy", slot=slot)
    assert reclaimed.status == "succeeded" and reclaimed.token == 8
    assert JobRun.objects.using(db_alias).get(job="crashy").attempt == 2


def test_heartbeat_keeps_a_long_run_claimed_past_its_ttl(db_alias: str) -> None:
    seen = []

    def slow(run: Run) -> None:
        time.sleep(1.5)  # 2.5 TTLs
        run.check()
        seen.append(run.token)

    register("slow", slow, schedule="* * * * *", ttl=0.6)
    [outcome] = run_job("slow")
    assert outcome.status == "succeeded" and seen == [1]


def test_effects_are_recorded_once_and_skipped_by_a_later_attempt(db_alias: str) -> None:
    def pay(run: Run) -> None:
        for key in ("refund:1", "refund:2"):
            with transaction.atomic(using=db_alias):
                calls.append(f"{key}:{run.effect(key)}")
        if run.token == 1:
            raise RuntimeError("crash after the effects committed")

    register("pay", pay, schedule="* * * * *")
    [failed] = run_job("pay")
    [retried] = run_job("pay", slot=failed.slot, retry=True)
    assert retried.status == "succeeded"
    assert calls == ["refund:1:True", "refund:2:True", "refund:1:False", "refund:2:False"]
    assert Effect.objects.using(db_alias).filter(token=1).count() == 2


def test_effect_outside_a_transaction_is_refused(db_alias: str) -> None:
    def careless(run: Run) -> None:
        run.effect("no-transaction")

    register("careless", careless, schedule="* * * * *")
    [outcome] = run_job("careless")
    assert outcome.status == "failed" and "inside transaction.atomic()" in outcome.message


def test_a_taken_over_run_is_fenced_out_and_exits_lost(db_alias: str) -> None:
    def zombie(run: Run) -> None:
        # Another node takes the slot over (as after our claim expired while paused).
        JobRun.objects.using(db_alias).filter(pk=run.id).update(token=run.token + 1, owner="other")
        with transaction.atomic(using=db_alias):
            run.effect("refund:99")

    register("zombie", zombie, schedule="* * * * *")
    [outcome] = run_job("zombie")
    assert outcome.status == "lost" and outcome.exit_code == 3
    assert not Effect.objects.using(db_alias).filter(key="refund:99").exists()


def test_fence_updates_only_while_the_claim_holds(db_alias: str) -> None:
    Lease.objects.using(db_alias).create(
        name="report",
        owner="-",
        token=0,
        expires_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
        acquired_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
    )
    target = Lease.objects.using(db_alias).filter(name="report")
    results = []

    def report(run: Run) -> None:
        results.append(run.fence(target, owner=f"run-{run.token}"))
        JobRun.objects.using(db_alias).filter(pk=run.id).update(token=run.token + 1)
        try:
            run.fence(target, owner="stale")
        except FencedOut:
            results.append("fenced")

    register("report", report, schedule="* * * * *")
    run_job("report")
    assert results == [1, "fenced"]
    assert target.get().owner == "run-1"


def test_lost_validity_stops_the_job_at_its_next_checkpoint(db_alias: str) -> None:
    def paused(run: Run) -> None:
        run._validity.lose("simulated: renewals failed until the deadline")
        run.check()
        calls.append("not reached")

    register("paused", paused, schedule="* * * * *")
    [outcome] = run_job("paused")
    assert outcome.status == "lost" and calls == []


def test_overlap_skip_records_the_slot_and_allow_runs_both(db_alias: str) -> None:
    register("hourly", schedule="0 * * * *", overlap="skip")
    now = db_now()
    other = format_slot(now.replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=1))
    put_run(db_alias, "hourly", other, status="running", owner="busy-node", token=1, attempt=1)
    [skipped] = run_job("hourly")
    assert skipped.status == "skipped_overlap" and "busy-node" in skipped.message
    assert JobRun.objects.using(db_alias).get(job="hourly", slot=skipped.slot).status == (
        "skipped_overlap"
    )
    register("hourly_allow", schedule="0 * * * *", overlap="allow")
    put_run(
        db_alias, "hourly_allow", other, status="running", owner="busy-node", token=1, attempt=1
    )
    [ran] = run_job("hourly_allow")
    assert ran.status == "succeeded"


@pytest.fixture
def mysql_repeatable_read(settings: object) -> Iterator[str]:
    """HORIZONTAL_DATABASE on MariaDB under REPEATABLE READ (its server default), with
    lock waits cut to 2 s so that a wait that should not happen fails fast."""
    settings.HORIZONTAL_DATABASE = "mysql"  # type: ignore[attr-defined]
    extra = {
        "isolation_level": "repeatable read",
        "init_command": "SET SESSION innodb_lock_wait_timeout = 2",
    }
    changed = [
        connections.settings["mysql"]["OPTIONS"],
        connections["mysql"].settings_dict["OPTIONS"],
    ]
    for options in changed:
        options.update(extra)
    connections["mysql"].close()
    yield "mysql"
    for options in changed:
        for key in extra:
            options.pop(key, None)
    connections["mysql"].close()


def test_hardening_02_claims_take_turns_under_repeatable_read_too(
    mysql_repeatable_read: str,
) -> None:
    # A locking read of a lock row that does not exist yet takes a gap lock that blocks
    # the row's creation under REPEATABLE READ: the first claim of a job waited out the
    # lock timeout (8 retries of innodb_lock_wait_timeout). The claim's lock is an upsert.
    with connections["mysql"].cursor() as cursor:
        cursor.execute("SELECT @@tx_isolation")
        assert cursor.fetchone() == ("REPEATABLE-READ",)
    started = time.monotonic()
    test_hardening_02_two_slots_of_an_overlap_skip_job_claimed_at_once_never_both_run("mysql")
    assert time.monotonic() - started < 20


def test_hardening_02_a_crashed_slot_is_not_reclaimed_while_another_slot_runs(
    db_alias: str,
) -> None:
    register("hourly", schedule="0 * * * *", overlap="skip")
    hour = db_now().replace(minute=0, second=0, microsecond=0)
    crashed, running = (format_slot(hour - dt.timedelta(hours=h)) for h in (2, 1))
    put_run(db_alias, "hourly", crashed, status="running", owner="dead", expires_in=-1)
    put_run(db_alias, "hourly", running, status="running", owner="busy-node")
    [deferred] = run_job("hourly", slot=crashed)
    assert deferred.status == "skipped_overlap" and deferred.exit_code == 0
    assert f"re-claim deferred, {running} still running on busy-node" in deferred.message
    assert calls == []
    row = JobRun.objects.using(db_alias).get(job="hourly", slot=crashed)
    assert (row.status, row.owner, row.token) == ("running", "dead", 1)


def test_catchup_skip_records_a_missed_slot_past_grace(db_alias: str) -> None:
    register("strict", schedule="0 0 1 1 *", catchup="skip", grace=60)
    [outcome] = run_job("strict")
    assert outcome.status == "missed" and outcome.exit_code == 0
    assert JobRun.objects.using(db_alias).get(job="strict").status == "missed"
    # An operator may still run the missed slot on purpose.
    [manual] = run_job("strict", slot=outcome.slot)
    assert manual.status == "succeeded"


def test_catchup_all_runs_every_tick_since_the_last_one_on_record(db_alias: str) -> None:
    register("minutely", schedule="* * * * *", catchup="all", window=3600)
    now = db_now()
    last = now.replace(second=0, microsecond=0) - dt.timedelta(minutes=4)
    put_run(
        db_alias,
        "minutely",
        format_slot(last),
        status="succeeded",
        owner="x",
        token=1,
        attempt=1,
        expires_in=0,
    )
    outcomes = run_job("minutely")
    ran = [o.slot for o in outcomes if o.status == "succeeded"]
    assert len(ran) in (4, 5)  # 4 ticks, or 5 if the minute turned meanwhile
    assert ran == sorted(ran)
    assert JobRun.objects.using(db_alias).filter(job="minutely", trigger="catchup").count() >= 3


def test_hardening_08_catchup_all_records_ticks_older_than_the_window_as_missed(
    db_alias: str,
) -> None:
    register("gappy", schedule="* * * * *", catchup="all", window=3600)
    now = db_now()
    last = now.replace(second=0, microsecond=0) - dt.timedelta(hours=3)
    put_run(db_alias, "gappy", format_slot(last), status="succeeded", expires_in=0)
    outcomes = run_job("gappy")
    assert {o.status for o in outcomes} == {"succeeded"} and len(outcomes) >= 60
    missed = list(
        JobRun.objects.using(db_alias)
        .filter(job="gappy", status="missed")
        .order_by("slot")
        .values_list("slot", "error")
    )
    # ~120 ticks fell out of the window: the newest 100 have a row each, the oldest of
    # them says the rest were missed too. Nothing between `last` and now is silent.
    assert len(missed) == runner.MISSED_RECORD_LIMIT
    _, oldest_note = missed[0]
    assert "older than the catch-up window" in oldest_note
    assert f"so was every tick after {format_slot(last)}" in oldest_note
    newest_missed = missed[-1][0]
    first_run = min(o.slot for o in outcomes if o.slot)
    step = dt.timedelta(minutes=1)
    assert slot_time(newest_missed) + step == slot_time(first_run)


def test_hardening_08_catchup_all_past_its_per_pass_cap_goes_on_next_pass(
    db_alias: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cap is 10,000 ticks a pass; the same code with a cap of 5 (and ticks_between's
    # own default limit cut to 6, where the old code relied on it) shows the rule.
    real = slots_module.ticks_between

    def capped(job, after, until, limit=10_000):  # type: ignore[no-untyped-def]
        return real(job, after, until, min(limit, 6))

    monkeypatch.setattr(slots_module, "ticks_between", capped)
    monkeypatch.setattr(runner, "CATCHUP_ALL_LIMIT", 5, raising=False)
    register("behind", schedule="* * * * *", catchup="all", window=86400)
    now = db_now()
    last = now.replace(second=0, microsecond=0) - dt.timedelta(minutes=12)
    put_run(db_alias, "behind", format_slot(last), status="succeeded", expires_in=0)
    for _ in range(4):
        run_job("behind")
    slots_on_record = sorted(
        JobRun.objects.using(db_alias).filter(job="behind").values_list("slot", flat=True)
    )
    gaps = [
        (a, b)
        for a, b in itertools.pairwise(slots_on_record)
        if slot_time(b) - slot_time(a) != dt.timedelta(minutes=1)
    ]
    assert gaps == [], gaps
    assert JobRun.objects.using(db_alias).filter(job="behind", status="missed").count() == 0


def test_hardening_08_latest_records_a_long_gap_without_silence(db_alias: str) -> None:
    register("patchy", schedule="* * * * *", catchup="latest")
    now = db_now()
    last = now.replace(second=0, microsecond=0) - dt.timedelta(hours=3)
    put_run(db_alias, "patchy", format_slot(last), status="succeeded", expires_in=0)
    [outcome] = run_job("patchy")
    assert outcome.status == "succeeded"
    missed = list(
        JobRun.objects.using(db_alias)
        .filter(job="patchy", status="missed")
        .order_by("slot")
        .values_list("error", flat=True)
    )
    assert len(missed) == runner.MISSED_RECORD_LIMIT
    assert f"so was every tick after {format_slot(last)}" in missed[0]
    assert all(note == "no node claimed it" for note in missed[1:])


def test_hardening_10_a_slot_no_database_stores_is_refused_at_the_gate(db_alias: str) -> None:
    from horizontal.jobs import gate

    manual = register("manual_hook")
    for slot in ("v1\x00", "v1-\udcff", "v" * 65):
        with pytest.raises(InvalidSlot):
            gate.claim_slot(manual, slot, trigger="manual")
        with pytest.raises(InvalidSlot):
            run_job("manual_hook", slot=slot)
    assert not JobRun.objects.using(db_alias).filter(job="manual_hook").exists()


def test_hardening_10_runjob_gives_exit_2_for_odd_slots_not_a_traceback(
    db_alias: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from django.core.management import call_command

    register("manual_hook")
    register("daily", schedule="0 0 * * *")
    cases = [
        ("manual_hook", "v1\x00"),
        ("manual_hook", "release-\udcff"),  # non-UTF-8 bytes on the command line
        ("daily", "0001-01-01T00:00:00+05:00"),
        ("daily", "9999-12-31T23:59:59-05:00"),
        ("daily", "0999-06-01T00:00:00Z"),
    ]
    for name, slot in cases:
        with pytest.raises(SystemExit) as exited:
            call_command("runjob", name, slot=slot)
        err = capsys.readouterr().err
        assert exited.value.code == 2, (slot, err)
        assert err.startswith("runjob: ") and "Traceback" not in err, err
    assert calls == []


def test_bad_input_is_a_usage_error_with_a_clear_message(db_alias: str) -> None:
    register("daily", schedule="0 0 * * *")
    with pytest.raises(UnknownJob, match=r"known jobs: .*daily"):
        run_job("dialy")
    with pytest.raises(InvalidSlot, match="not an ISO 8601"):
        run_job("daily", slot="yesterday")
    with pytest.raises(InvalidSlot, match="not a tick"):
        run_job("daily", slot="2026-01-01T00:30:00Z")
    with pytest.raises(InvalidSlot, match="in the future"):
        run_job("daily", slot="2999-01-01T00:00:00Z")


def test_claiming_inside_the_callers_transaction_is_refused(db_alias: str) -> None:
    from horizontal.exceptions import TransactionRefused

    register("daily", schedule="0 0 * * *")
    with transaction.atomic(using=db_alias), pytest.raises(TransactionRefused):
        run_job("daily")


def test_a_job_without_schedule_needs_an_explicit_slot(db_alias: str) -> None:
    register("release_hook")
    with pytest.raises(InvalidSlot, match="--slot"):
        run_job("release_hook")
    [outcome] = run_job("release_hook", slot="v2026.11.29")
    assert outcome.status == "succeeded" and calls == ["v2026.11.29:1"]


# Statements per claim, takeover, finish and hand-back, each with its attempt row (issue
# 13): (overlap="allow" claim, overlap="skip" claim, takeover of a crashed run, finish,
# hand-back on SIGTERM).
# PostgreSQL writes the run and its attempt in one statement (data-modifying CTEs);
# SQLite adds the attempt's INSERT (and, on a takeover, the UPDATE that closes the
# abandoned one); MariaDB/MySQL have no conditional upsert either: INSERT, or INSERT,
# UPDATE and the SELECT of the run's id, then the attempt's statements.
CLAIM_STATEMENTS = {
    "postgresql": (1, 2, 1, 1, 1),
    "sqlite": (2, 3, 3, 2, 2),
    "mysql": (2, 4, 5, 2, 2),
}


def test_claim_statement_count(db_alias: str) -> None:
    """The gate's statements per vendor, attempts included (CLAIM_STATEMENTS).

    Before issue 13 (no attempt rows): claim 1 (PostgreSQL, SQLite, MySQL overlap
    "allow"), 2 with overlap="skip" (3 on MySQL), takeover 1 (3 on MySQL), finish 1,
    hand-back 1.
    """
    from django.test.utils import CaptureQueriesContext

    from horizontal.jobs import gate

    vendor = connections[db_alias].vendor
    allow = register("counted_allow", schedule="* * * * *", overlap="allow", ttl=0.2)
    skip = register("counted_skip", schedule="* * * * *", overlap="skip")
    minute = db_now().replace(second=0, microsecond=0)

    def statements(queries: CaptureQueriesContext) -> int:
        # BEGIN and COMMIT are the transaction's, not statements of the gate.
        return len([q for q in queries if q["sql"].split()[0] not in ("BEGIN", "COMMIT")])

    counts = []
    # skip twice: the first may create MySQL's lock row (on a connection of its own).
    for age, counted in enumerate((allow, skip, skip)):
        slot = format_slot(minute - dt.timedelta(minutes=age))
        with CaptureQueriesContext(connections[db_alias]) as queries:
            attempt = gate.claim_slot(counted, slot, trigger="manual")
        assert attempt is not None
        counts.append(statements(queries))
        if age == 0:
            time.sleep(0.3)  # the claim of "allow" expires: taken over below
            with CaptureQueriesContext(connections[db_alias]) as queries:
                takeover = gate.claim_slot(counted, slot, trigger="retry")
            assert takeover is not None and takeover.claim.token == 2
            takeover_count = statements(queries)
            attempt = takeover
        with CaptureQueriesContext(connections[db_alias]) as queries:
            assert gate.finish(attempt, "succeeded", "")
        finish_count = statements(queries)
    handing = register("counted_hand_back", schedule="* * * * *", overlap="allow")
    handed = gate.claim_slot(handing, format_slot(minute), trigger="cli")
    assert handed is not None
    with CaptureQueriesContext(connections[db_alias]) as queries:
        assert gate.hand_back(handed)
    hand_back_count = statements(queries)
    assert (
        counts[0],
        counts[2],
        takeover_count,
        finish_count,
        hand_back_count,
    ) == CLAIM_STATEMENTS[vendor]
    attempts = JobAttempt.objects.using(db_alias).filter(job="counted_allow").order_by("token")
    assert [(a.token, a.outcome) for a in attempts] == [(1, "abandoned"), (2, "succeeded")]


def test_hardening_02_two_slots_of_an_overlap_skip_job_claimed_at_once_never_both_run(
    db_alias: str,
) -> None:
    """Two racers, each on its own connection, claim different slots of one job at once.

    Before the per-job lock both passed the "no other slot running" read in most rounds
    (the read ran on a snapshot from before the other's insert committed).
    """
    import threading

    from horizontal.jobs import gate

    racing = register("overlap_race", overlap="skip")
    rounds = 60
    barrier = threading.Barrier(2)
    claimed: list[list[bool]] = [[False, False] for _ in range(rounds)]
    failures: list[BaseException] = []

    def racer(side: int) -> None:
        try:
            for i in range(rounds):
                barrier.wait(timeout=30)
                attempt = gate.claim_slot(racing, f"round-{i:03d}-{side}", trigger="manual")
                claimed[i][side] = attempt is not None
                barrier.wait(timeout=30)  # both claims are made before either finishes
                if attempt is not None:
                    db.run_statement(
                        db_alias,
                        lambda c, d, a=attempt: d.finish_run(
                            c, a.claim.id, a.claim.token, "succeeded", ""
                        ),
                    )
        except BaseException as exc:
            failures.append(exc)
            barrier.abort()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=racer, args=(side,)) for side in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    both = [i for i, sides in enumerate(claimed) if all(sides)]
    neither = [i for i, sides in enumerate(claimed) if not any(sides)]
    assert (len(both), neither) == (0, []), f"both ran in {len(both)} of {rounds} rounds"


def test_lease_lost_is_exported_for_job_code(db_alias: str) -> None:
    assert issubclass(FencedOut, LeaseLost)


def test_hardening_20_gate_statements_leave_nothing_on_pooled_server_connections(
    pgbouncer: PgBouncer, settings: Any
) -> None:
    """Claims, a refused second claim, heartbeats, effects, a fenced write, failures and
    finishes through PgBouncer (transaction mode): every server connection of the pool
    is handed on clean."""
    settings.HORIZONTAL_DATABASE = "pgbouncer"
    Lease.objects.using("pgbouncer").create(
        name="pooled-report",
        owner="-",
        token=0,
        expires_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
        acquired_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
    )
    target = Lease.objects.using("pgbouncer").filter(name="pooled-report")

    def body(run: Run) -> None:
        time.sleep(0.3)  # the heartbeat thread renews the claim meanwhile (TTL 0.45 s)
        run.check()
        with transaction.atomic(using="pgbouncer"):
            assert run.effect(f"pooled:{run.slot}") is True
            assert run.fence(target, owner=run.slot) == 1
        if run.slot.endswith("odd"):
            raise RuntimeError("a failed run is finished too")

    register("pooled", body, ttl=0.45)
    for i in range(8):  # more uses than psycopg's default prepare threshold (5)
        slot = f"pooled-{i}-{'odd' if i % 2 else 'even'}"
        [outcome] = run_job("pooled", slot=slot)
        assert outcome.status == ("failed" if i % 2 else "succeeded"), outcome.message
        [again] = run_job("pooled", slot=slot)
        assert again.status == "taken"
    assert Effect.objects.using("pgbouncer").count() == 8
    assert_handed_on_clean(pgbouncer)
