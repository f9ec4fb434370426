"""``horizontal.deploy.release`` in process: hooks, their gate names, and what a second
``release`` of the same id does with each outcome on record (the gate itself is tested in
``tests/jobs``; four real ``release`` processes in ``test_release_processes.py``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from horizontal.deploy import release as release_module
from horizontal.deploy.release import (
    HOOK_PREFIX,
    HookStatus,
    InvalidRelease,
    hook_problems,
    hooks,
    on_release,
    release_status,
    run_release,
)
from horizontal.jobs import Run, job, registry
from horizontal.jobs.validation import job_errors
from horizontal.models import JobRun

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def only_these_hooks() -> Iterator[None]:
    """Each test registers its own hooks; testproject's are put back afterwards."""
    before = dict(hooks.hooks)
    hooks.hooks.clear()
    yield
    hooks.hooks.clear()
    hooks.hooks.update(before)
    hooks.duplicates.clear()


def release(release_id: str, **kwargs: Any) -> list[release_module.HookResult]:
    return run_release(release_id, migrate=False, report=lambda line: None, **kwargs)


def test_each_once_hook_runs_once_per_release_id_and_process_hooks_every_time() -> None:
    calls: list[str] = []

    @on_release("seed")
    def seed(run: Run) -> None:
        calls.append(f"seed@{run.slot}")

    @on_release("warm", scope="process")
    def warm(release_id: str | None) -> None:
        calls.append(f"warm@{release_id}")

    first = release("v1")
    second = release("v1")
    release("v2")
    assert calls == ["seed@v1", "warm@v1", "warm@v1", "seed@v2", "warm@v2"]
    assert [r.status for r in first] == [HookStatus.RAN, HookStatus.RAN]
    assert [r.status for r in second] == [HookStatus.DONE, HookStatus.RAN]
    assert "already succeeded on" in second[0].message and "(token 1, attempt 1" in (
        second[0].message
    )
    rows = JobRun.objects.filter(job=HOOK_PREFIX + "seed").values_list("slot", "status")
    assert sorted(rows) == [("v1", "succeeded"), ("v2", "succeeded")]


def test_a_failed_hook_stops_the_rest_and_the_next_release_reruns_it_once() -> None:
    calls: list[str] = []
    fail = [True]

    @on_release("webhook")
    def webhook(run: Run) -> None:
        calls.append("webhook")
        if fail[0]:
            raise RuntimeError("endpoint down")

    @on_release("after")
    def after(run: Run) -> None:
        calls.append("after")

    failed = release("v1")
    assert [r.status for r in failed] == [HookStatus.FAILED, HookStatus.NOT_RUN]
    assert release_module.exit_code(failed) == 1
    fail[0] = False
    rerun = release("v1")
    assert [r.status for r in rerun] == [HookStatus.RAN, HookStatus.RAN]
    assert release_module.exit_code(release("v1")) == 0
    assert calls == ["webhook", "webhook", "after"]
    row = JobRun.objects.get(job=HOOK_PREFIX + "webhook", slot="v1")
    assert (row.status, row.token, row.attempt) == ("succeeded", 2, 2)


def test_a_failure_recorded_after_this_release_started_is_reported_not_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sibling release process failed the hook while this one waited: this one is not
    # "the next release", so it reports the failure (exit 1) instead of running it again.
    calls: list[str] = []

    @on_release("webhook")
    def webhook(run: Run) -> None:
        calls.append("webhook")
        raise RuntimeError("endpoint down")

    real_now = release_module.db_now
    started: list[Any] = []

    def now_before_the_sibling(using: str) -> Any:
        started.append(real_now(using))
        return started[-1]

    monkeypatch.setattr(release_module, "db_now", now_before_the_sibling)
    release("v1")  # records the failure
    row = JobRun.objects.get(job=HOOK_PREFIX + "webhook", slot="v1")
    # This process "started" before that failure was recorded.
    monkeypatch.setattr(release_module, "db_now", lambda using: row.claimed_at)
    sibling = release("v1")
    assert [r.status for r in sibling] == [HookStatus.FAILED]
    assert "the next release for 'v1' runs it again" in sibling[0].message
    assert calls == ["webhook"]


def test_no_release_id_is_a_usage_error_and_a_bad_one_is_refused(settings: Any) -> None:
    settings.HORIZONTAL_RELEASE = None
    with pytest.raises(InvalidRelease, match="no release id"):
        run_release(migrate=False)
    with pytest.raises(InvalidRelease, match="at most 64"):
        run_release("x" * 65, migrate=False)
    with pytest.raises(SystemExit) as exit_info:
        call_command("release")
    assert exit_info.value.code == 2


def test_broken_hook_registrations_are_refused_before_anything_runs() -> None:
    @on_release("has space")
    def spaced(run: Run) -> None:
        raise AssertionError("never runs")

    @on_release("once", scope="sometimes")  # type: ignore[arg-type]
    def wrong_scope(run: Run) -> None:
        raise AssertionError("never runs")

    assert hook_problems(hooks.hooks["has space"]) == [
        "release hook name 'has space' has whitespace"
    ]
    with pytest.raises(InvalidRelease, match="scope='sometimes'"):
        release("v1")
    assert not JobRun.objects.exists()


def test_user_jobs_cannot_take_a_release_hooks_gate_name() -> None:
    @job("Horizontal:release:seed")
    def impostor(run: Run) -> None:
        pass

    try:
        assert [e.id for e in job_errors(registry.jobs["Horizontal:release:seed"])] == [
            "horizontal.E016"
        ]
    finally:
        del registry.jobs["Horizontal:release:seed"]


def test_status_lists_each_hook_with_its_outcome_and_who_ran_it() -> None:
    @on_release("seed")
    def seed(run: Run) -> None:
        pass

    @on_release("notify")
    def notify(run: Run) -> None:
        raise ValueError("no route")

    @on_release("warm", scope="process")
    def warm(release_id: str | None) -> None:
        pass

    release("v9")
    release_id, lines = release_status()  # the newest release on record
    assert release_id == "v9"
    assert [(line.hook, line.status) for line in lines] == [
        ("seed", "succeeded"),
        ("notify", "failed"),
        ("warm", "per process"),
    ]
    assert "ValueError: no route" in lines[1].text


def test_the_status_command_prints_one_line_per_hook(capsys: pytest.CaptureFixture[str]) -> None:
    @on_release("seed")
    def seed(run: Run) -> None:
        pass

    call_command("release", "--status", "--release", "v3")
    assert capsys.readouterr().out.splitlines() == [
        "release v3:",
        "  not run      seed: not run yet",
    ]
    release("v3")
    call_command("release", "--status", "--release", "v3")
    out = capsys.readouterr().out
    assert out.startswith("release v3:\n")
    assert "horizontal:release:seed@v3: already succeeded on" in out


def test_a_hook_whose_runner_died_is_reclaimed_by_the_next_release_with_a_higher_token() -> None:
    calls: list[int] = []

    @on_release("seed")
    def seed(run: Run) -> None:
        calls.append(run.token)

    # What a kill -9 mid-hook leaves: the row running, its claim expired.
    past = timezone.now() - dt.timedelta(minutes=5)
    JobRun.objects.create(
        job=HOOK_PREFIX + "seed",
        slot="v1",
        status=JobRun.Status.RUNNING,
        owner="deploy-killed",
        token=1,
        attempt=1,
        trigger=JobRun.Trigger.MANUAL,
        claimed_at=past,
        heartbeat_at=past,
        expires_at=past,
    )
    [result] = release("v1")
    assert (result.status, result.token, calls) == (HookStatus.RAN, 2, [2])
