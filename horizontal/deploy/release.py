"""``@on_release`` hooks and ``run_release``: migrate, then each hook once per release id.

A hook with ``scope="release"`` (the default) is a job of the gate whose slot is the
release id: its gate name is ``horizontal:release:<name>``, a prefix no user job may
take (``horizontal.E016``). However many processes run ``release`` for one id, the
hook's body runs in one of them; the others wait for it to end and say who ran it
(instance, token, when). A hook that failed stays failed on record and is run again
by the next ``release`` of the same id, meaning one started after the failure was
recorded: processes that were already running alongside the failed attempt report it
and exit non-zero instead of each retrying it in turn.

A hook with ``scope="process"`` is not recorded anywhere: it runs in every process that
runs ``release`` (and wherever ``run_process_hooks`` is called), every time.

Hooks run in registration order (``INSTALLED_APPS`` order, then the order in each app's
``jobs.py``), once-per-release hooks first; the first one that fails stops the rest.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import traceback
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal, NamedTuple, get_args

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.exceptions import HorizontalError
from horizontal.jobs import gate
from horizontal.jobs.registry import Job
from horizontal.jobs.report import OutcomeStatus, describe
from horizontal.jobs.runner import execute
from horizontal.jobs.slots import MAX_SLOT_LENGTH
from horizontal.leases import MAX_TTL, name_problem
from horizontal.models import JobRun

__all__ = [
    "HOOK_PREFIX",
    "SCOPES",
    "Hook",
    "HookRegistry",
    "HookResult",
    "HookStatus",
    "InvalidRelease",
    "Scope",
    "StatusLine",
    "exit_code",
    "hook_problems",
    "hooks",
    "on_release",
    "release_status",
    "resolve_release",
    "run_process_hooks",
    "run_release",
]

logger = logging.getLogger("horizontal.release")

# The gate name of a once-per-release hook: the job's name in horizontal_jobrun.
HOOK_PREFIX = "horizontal:release:"
# JobRun.job holds 200 characters; the prefix takes its share.
MAX_HOOK_NAME = 200 - len(HOOK_PREFIX)
# How often a process that waits for another's hook looks at its row again.
POLL = 0.5

Scope = Literal["release", "process"]
SCOPES: tuple[Scope, ...] = get_args(Scope)


class InvalidRelease(HorizontalError, ValueError):
    """No release id, one no database stores, or hooks whose registration is broken."""


class Hook(NamedTuple):
    """A registered release hook. See ``docs/migrations.md`` (release)."""

    name: str
    func: Callable[..., Any]
    scope: Scope = "release"
    ttl: float | None = None
    description: str = ""

    @property
    def origin(self) -> str:
        return f"{self.func.__module__}.{self.func.__qualname__}"

    @property
    def gate_name(self) -> str:
        return HOOK_PREFIX + self.name

    def job(self) -> Job:
        """The gate's view of a once-per-release hook: a job with no schedule."""
        return Job(
            name=self.gate_name,
            func=self.func,
            overlap="allow",
            ttl=self.ttl,
            reclaim_crashed=True,
            max_attempts=1,
            description=self.description,
        )


class HookRegistry:
    def __init__(self) -> None:
        self.hooks: dict[str, Hook] = {}
        self.duplicates: dict[str, list[str]] = {}

    def add(self, new: Hook) -> None:
        existing = self.hooks.get(new.name)
        if existing is not None and existing.func is not new.func:
            self.duplicates.setdefault(new.name, [existing.origin]).append(new.origin)
            return
        self.hooks[new.name] = new

    def of_scope(self, scope: Scope) -> list[Hook]:
        return [hook for hook in self.hooks.values() if hook.scope == scope]


hooks = HookRegistry()


def on_release(
    name: str, *, scope: Scope = "release", ttl: float | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a release hook ``name``.

    - ``scope="release"`` (the default): ``func(run)`` runs once per release id for the
      whole fleet, through the job gate; ``run`` is the claimed ``Run`` (``run.slot`` is
      the release id, ``run.effect(key)`` makes an external call once per key).
    - ``scope="process"``: ``func(release_id)`` runs in every process that runs
      ``release`` (or calls ``run_process_hooks``), every time; nothing is recorded.
    - ``ttl``: seconds the claim lives without a heartbeat (``HORIZONTAL_LEASE_TTL``).

    Registration never raises; ``release`` refuses to start with a broken one.
    """

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        hooks.add(
            Hook(
                name=name,
                func=func,
                scope=scope,
                ttl=ttl,
                description=(func.__doc__ or "").strip().split("\n")[0],
            )
        )
        return func

    return decorator


def hook_problems(hook: Hook) -> list[str]:
    """Everything wrong with one hook's registration, one sentence each."""
    problems = []
    problem = name_problem(hook.name, MAX_HOOK_NAME)
    if problem is None and any(c.isspace() for c in hook.name):
        problem = "has whitespace"
    if problem is not None:
        problems.append(f"release hook name {hook.name!r} {problem}")
    if hook.scope not in SCOPES:
        problems.append(
            f"release hook {hook.name!r} has scope={hook.scope!r}; use one of "
            f"{', '.join(repr(s) for s in SCOPES)}"
        )
    if hook.ttl is not None and not (isinstance(hook.ttl, int | float) and 0 < hook.ttl <= MAX_TTL):
        problems.append(f"release hook {hook.name!r} has ttl={hook.ttl!r}")
    if hook.name in hooks.duplicates:
        problems.append(
            f"release hook {hook.name!r} is registered more than once: "
            f"{', '.join(hooks.duplicates[hook.name])}"
        )
    return problems


def registration_problems() -> list[str]:
    return [problem for hook in hooks.hooks.values() for problem in hook_problems(hook)]


def resolve_release(release: str | None = None) -> str:
    """The release id to use: ``release``, else ``HORIZONTAL_RELEASE``; checked."""
    release_id = release if release is not None else conf.RELEASE
    if not release_id:
        raise InvalidRelease(
            "no release id: set HORIZONTAL_RELEASE (the setting, or the environment "
            "variable of the same name) or pass --release ID, e.g. the image tag or "
            "the commit being deployed"
        )
    problem = name_problem(release_id, MAX_SLOT_LENGTH)
    if problem is not None:
        raise InvalidRelease(f"release id {release_id!r} {problem}")
    return release_id


class HookStatus(StrEnum):
    """How one hook went for this process."""

    RAN = "ran"  # this process ran it and it succeeded
    DONE = "done"  # another process ran it (now or in an earlier release call)
    FAILED = "failed"  # it raised, here or in a process running alongside this one
    WAITED_TOO_LONG = "waited_too_long"  # another process still runs it
    LOST = "lost"  # this process's claim passed on mid-run
    INTERRUPTED = "interrupted"
    NOT_RUN = "not_run"  # an earlier hook failed


_EXIT = {
    HookStatus.FAILED: 1,
    HookStatus.WAITED_TOO_LONG: 1,
    HookStatus.NOT_RUN: 1,
    HookStatus.LOST: 3,
    HookStatus.INTERRUPTED: 4,
}


class HookResult(NamedTuple):
    hook: str
    scope: Scope
    status: HookStatus
    message: str
    token: int | None = None

    @property
    def exit_code(self) -> int:
        return _EXIT.get(self.status, 0)


def exit_code(results: list[HookResult]) -> int:
    """The most serious result's code (as ``runjob``): interrupted, lost, failed, else 0."""
    codes = {result.exit_code for result in results}
    for code in (4, 3, 1):
        if code in codes:
            return code
    return 0


def run_release(
    release: str | None = None,
    *,
    migrate: bool = True,
    wait: float = 600.0,
    report: Callable[[str], None] = print,
    poll: float = POLL,
    **migrate_options: Any,
) -> list[HookResult]:
    """``migrate_locked``, then every hook; one ``HookResult`` per hook.

    Raises ``InvalidRelease`` (no id, a bad id, a broken hook registration) before
    anything runs, and what ``migrate_locked`` raises. ``wait`` bounds both the wait for
    another migrator and the wait for another process's hook.
    """
    release_id = resolve_release(release)
    problems = registration_problems()
    if problems:
        raise InvalidRelease("; ".join(problems))
    # Failures recorded from now on belong to this wave of release processes.
    started = db_now(conf.DATABASE)
    if migrate:
        # Imported here: hooks modules load in every web worker; migrate does not need to.
        from horizontal.migrate import migrate_locked

        migrate_locked(wait=wait, report=report, **migrate_options)
    results: list[HookResult] = []
    deadline = time.monotonic() + wait
    for hook in hooks.of_scope("release"):
        if results and results[-1].exit_code:
            result = _not_run(hook, results[-1])
        else:
            result = _run_once(hook, release_id, started, deadline, poll, report)
        results.append(result)
        report(result.message)
    if results and results[-1].exit_code:
        for hook in hooks.of_scope("process"):
            results.append(_not_run(hook, results[-1]))
            report(results[-1].message)
        return results
    for result in run_process_hooks(release_id):
        results.append(result)
        report(result.message)
    return results


def _not_run(hook: Hook, failed: HookResult) -> HookResult:
    return HookResult(
        hook.name,
        hook.scope,
        HookStatus.NOT_RUN,
        f"{hook.name}: not run, {failed.hook} did not succeed; the next release runs it",
    )


def run_process_hooks(release: str | None = None) -> list[HookResult]:
    """Run every ``scope="process"`` hook in this process, in order; stop at a failure.

    ``release`` calls it after the once-per-release hooks. Call it yourself where each
    worker should run them (gunicorn's ``post_worker_init``); ``func(release_id)`` gets
    ``HORIZONTAL_RELEASE`` there, or None when it is not set.
    """
    release_id = release if release is not None else conf.RELEASE
    results: list[HookResult] = []
    for hook in hooks.of_scope("process"):
        if results and results[-1].exit_code:
            results.append(_not_run(hook, results[-1]))
            continue
        try:
            hook.func(release_id)
        except Exception:
            logger.exception("release hook %s failed in this process", hook.name)
            last = traceback.format_exc().strip().splitlines()[-1]
            results.append(
                HookResult(
                    hook.name, "process", HookStatus.FAILED, f"{hook.name}: failed here: {last}"
                )
            )
        else:
            results.append(
                HookResult(hook.name, "process", HookStatus.RAN, f"{hook.name}: ran (per process)")
            )
    return results


def _ended_at(row: JobRun) -> dt.datetime:
    return row.finished_at or row.expires_at


def _run_once(
    hook: Hook,
    release_id: str,
    started: dt.datetime,
    deadline: float,
    poll: float,
    report: Callable[[str], None],
) -> HookResult:
    job = hook.job()
    waiting_for: tuple[str, int] | None = None

    def result(status: HookStatus, text: str, token: int | None) -> HookResult:
        return HookResult(hook.name, "release", status, text, token)

    while True:
        row = gate.slot_row(job, release_id)
        # A failure recorded before this process started is a past release call's: this
        # one is "the next release" and runs it again. A newer one is a sibling's.
        retry = row is not None and row.status in gate.RETRY_STATUSES and _ended_at(row) <= started
        trigger = JobRun.Trigger.RETRY if retry else JobRun.Trigger.MANUAL
        outcome = execute(job, release_id, trigger=trigger, retry=retry, explicit=True)
        mapped = {
            OutcomeStatus.SUCCEEDED: HookStatus.RAN,
            OutcomeStatus.FAILED: HookStatus.FAILED,
            OutcomeStatus.LOST: HookStatus.LOST,
            OutcomeStatus.INTERRUPTED: HookStatus.INTERRUPTED,
        }.get(outcome.status)
        if mapped is not None:
            return result(mapped, outcome.message, outcome.token)
        row = gate.slot_row(job, release_id)
        looping = row is None or (row.status in gate.RETRY_STATUSES and _ended_at(row) <= started)
        if looping and time.monotonic() > deadline:  # a guard: each pass claims or waits
            text = describe(row) if row is not None else f"{hook.name}: not claimed"
            return result(HookStatus.WAITED_TOO_LONG, f"{text}; gave up after --wait", None)
        if row is None:
            continue
        if row.status == JobRun.Status.SUCCEEDED:
            return result(HookStatus.DONE, describe(row), row.token)
        if row.status in gate.RETRY_STATUSES:
            if _ended_at(row) > started:
                return result(
                    HookStatus.FAILED,
                    f"{describe(row, retry=True)}; the next release for {release_id!r} runs "
                    "it again",
                    row.token,
                )
            continue  # a past release call's failure: claim it for a re-run
        if row.status == JobRun.Status.RUNNING:
            if (row.owner, row.token) != waiting_for:
                waiting_for = (row.owner, row.token)
                report(f"{hook.name}: waiting for {row.owner} (token {row.token}) to finish it")
            if time.monotonic() > deadline:
                return result(
                    HookStatus.WAITED_TOO_LONG,
                    f"{describe(row)}; gave up waiting for it",
                    row.token,
                )
            time.sleep(poll)
            continue
        # missed / skipped_overlap rows are never written for hooks; an explicit claim
        # takes them over on the next pass.


class StatusLine(NamedTuple):
    hook: str
    scope: str
    status: str
    text: str


def release_status(release: str | None = None) -> tuple[str | None, list[StatusLine]]:
    """Each hook of a release and its outcome on record: ``(release_id, lines)``.

    Without ``release`` (and without ``HORIZONTAL_RELEASE``), the newest release that
    has a hook on record. Hooks on record that are no longer registered are listed too.
    """
    rows = JobRun.objects.using(conf.DATABASE).filter(job__startswith=HOOK_PREFIX)
    release_id = release if release is not None else conf.RELEASE
    if release_id is None:
        release_id = rows.order_by("-claimed_at").values_list("slot", flat=True).first()
        if release_id is None:
            return None, []
    recorded = {row.job: row for row in rows.filter(slot=release_id)}
    lines = []
    for hook in hooks.of_scope("release"):
        row = recorded.pop(hook.gate_name, None)
        if row is None:
            lines.append(StatusLine(hook.name, "release", "not run", f"{hook.name}: not run yet"))
        else:
            lines.append(StatusLine(hook.name, "release", row.status, describe(row, retry=True)))
    for gate_name, row in sorted(recorded.items()):
        name = gate_name.removeprefix(HOOK_PREFIX)
        text = f"{describe(row, retry=True)} (no longer registered)"
        lines.append(StatusLine(name, "release", row.status, text))
    for hook in hooks.of_scope("process"):
        lines.append(StatusLine(hook.name, "process", "per process", f"{hook.name}: not recorded"))
    return release_id, lines
