"""What running a job tells its caller: an ``Outcome`` per slot, the exit code, the words.

``run_job`` returns one ``Outcome`` per slot it looked at; ``exit_code`` folds them into
``runjob``'s documented status (docs/jobs.md). ``describe`` says, in one line, what a
slot's row shows when this process did not run it; ``format_instant`` is how every
instant is printed, here and by ``manage.py jobs``.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import NamedTuple

from horizontal.db import Control
from horizontal.models import JobRun

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_LOST",
    "EXIT_OK",
    "EXIT_USAGE",
    "Outcome",
    "OutcomeStatus",
    "describe",
    "describe_pause",
    "exit_code",
    "format_instant",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOST = 3
EXIT_INTERRUPTED = 4


class OutcomeStatus(StrEnum):
    """How one slot went for this process (not the row's status: see ``JobRun.Status``)."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    LOST = "lost"  # the claim passed to a newer attempt mid-run
    INTERRUPTED = "interrupted"  # SIGTERM/SIGINT: the claim was handed back
    TAKEN = "taken"  # another attempt has or had the slot
    MISSED = "missed"
    SKIPPED_OVERLAP = "skipped_overlap"
    IDLE = "idle"  # the schedule has no tick yet
    HANDED_OFF = "handed_off"  # queued for a task worker, which claims it (executor)
    PAUSED = "paused"  # an operator paused the job: nothing claimed


_EXIT_CODES = {
    OutcomeStatus.FAILED: EXIT_FAILED,
    OutcomeStatus.LOST: EXIT_LOST,
    OutcomeStatus.INTERRUPTED: EXIT_INTERRUPTED,
}


class Outcome(NamedTuple):
    job: str
    slot: str | None
    status: OutcomeStatus
    message: str
    token: int | None = None

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(self.status, EXIT_OK)


def exit_code(outcomes: list[Outcome]) -> int:
    """The most serious outcome's code: interrupted, then lost, then failed, else 0."""
    codes = {o.exit_code for o in outcomes}
    for code in (EXIT_INTERRUPTED, EXIT_LOST, EXIT_FAILED):
        if code in codes:
            return code
    return EXIT_OK


def describe(row: JobRun, retry: bool = False) -> str:
    """Why this process did not run the slot: what its row says, and who has it."""
    head = f"{row.job}@{row.slot}"
    when = format_instant(row.finished_at or row.claimed_at)
    ident = f"token {row.token}, attempt {row.attempt}"
    if row.status == JobRun.Status.RUNNING:
        return (
            f"{head}: already running on {row.owner} since {format_instant(row.claimed_at)} "
            f"({ident}; claim valid until {format_instant(row.expires_at)})"
        )
    if row.status == JobRun.Status.SUCCEEDED:
        took = (row.finished_at - row.claimed_at).total_seconds() if row.finished_at else 0
        return f"{head}: already succeeded on {row.owner} at {when} ({ident}, took {took:.1f} s)"
    if row.status in (JobRun.Status.FAILED, JobRun.Status.ABANDONED):
        last_line = (row.error.strip().splitlines() or [""])[-1]
        hint = "" if retry else "; run again with --retry to re-run it"
        return f"{head}: {row.status} on {row.owner} at {when} ({ident}): {last_line}{hint}"
    return (
        f"{head}: recorded as {row.status} at {when} ({row.error}); name it with --slot to run it"
    )


def describe_pause(job: str, pause: Control) -> str:
    """Why a paused job did not run, and how to resume it."""
    who = f" by {pause.paused_by}" if pause.paused_by else ""
    note = f" ({pause.note})" if pause.note else ""
    return (
        f"{job}: paused{who} at {format_instant(pause.paused_at)}{note}; not run. "
        f"Resume it with `manage.py jobs --resume {job}` (or the admin)."
    )


def format_instant(value: dt.datetime | None) -> str:
    """``2026-11-29 00:00:03.123Z`` (UTC, milliseconds), or ``-`` for no instant."""
    if value is None:
        return "-"
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"
