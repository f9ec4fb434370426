"""``manage.py runjob NAME [--slot SLOT] [--retry]``: run a job once per slot, from any node."""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from horizontal import fleet
from horizontal.exceptions import InvalidJob, InvalidSlot, UnknownJob
from horizontal.jobs.report import EXIT_USAGE, exit_code
from horizontal.jobs.runner import Interrupted, run_job


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted(signal.Signals(signum).name)


class Command(BaseCommand):
    help = (
        "Run a registered job for its due slot (or --slot). Exit 0: ran and succeeded, or "
        "the slot is already taken or done; 1: the job raised; 2: usage error; 3: the "
        "claim was lost mid-run; 4: interrupted by SIGTERM/SIGINT (claim handed back)."
    )
    # Only the job's own registration is checked (in run_job): the full check suite
    # would cost every node the same start-up time as `manage.py check` every minute.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="The job's registered name (see `manage.py jobs`).")
        parser.add_argument(
            "--slot",
            help="Run this slot (ISO 8601 instant; no offset means the job's time zone) "
            "instead of the one due now.",
        )
        parser.add_argument(
            "--retry", action="store_true", help="Re-run the slot even if it failed."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        fleet.start("runjob")
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        # SystemExit, not CommandError(returncode=...) as runscheduler uses: the exit codes
        # are runjob's contract with cron, and CommandError would add a "CommandError: ..."
        # line to stderr (a bare one for codes 1, 3 and 4, whose message is the outcome's).
        try:
            outcomes = run_job(options["name"], slot=options["slot"], retry=options["retry"])
        except (UnknownJob, InvalidJob, InvalidSlot) as exc:
            self.stderr.write(f"runjob: {exc}")
            raise SystemExit(EXIT_USAGE) from None
        for outcome in outcomes:
            stream = self.stdout if outcome.exit_code == 0 else self.stderr
            stream.write(outcome.message)
        code = exit_code(outcomes)
        if code:
            raise SystemExit(code)
