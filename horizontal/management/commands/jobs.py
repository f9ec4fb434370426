"""``manage.py jobs``: every registered job, its schedule, next slot, runs and attempts.

``--check`` exits 1 when a job's latest due slot is missed, failed or late past its
grace (a cron monitor's or a CI smoke check's test); ``--format json`` prints the same
for machines; ``--pause NAME`` / ``--resume NAME`` switch a job off and on for the fleet.
"""

from __future__ import annotations

import getpass
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal.exceptions import UnknownJob
from horizontal.instance import instance_id
from horizontal.jobs.control import pause_job, resume_job
from horizontal.jobs.inventory import check_jobs, job_records, job_summaries


class Command(BaseCommand):
    help = (
        "List registered jobs with their schedule, next slot, recent runs and every attempt. "
        "--check: exit 1 if a job's latest due slot is missed, failed or late past its "
        "grace. --pause/--resume NAME: stop or restart a job on every instance."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5, help="Recent runs per job (5).")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Check every scheduled job's latest due slot; exit 1 if one is missed, "
            "failed or late past its grace.",
        )
        switch = parser.add_mutually_exclusive_group()
        switch.add_argument("--pause", metavar="NAME", help="Pause the job on every instance.")
        switch.add_argument("--resume", metavar="NAME", help="Resume a paused job.")
        parser.add_argument("--note", default="", help="Why (shown with the pause).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["pause"] or options["resume"]:
            self._switch(options)
            return
        if options["check"]:
            self._check(options["format"])
            return
        if options["format"] == "json":
            self.stdout.write(json.dumps({"jobs": job_records(options["runs"])}, indent=2))
            return
        summaries = job_summaries(recent=options["runs"])
        if not summaries:
            self.stdout.write("No jobs registered. Decorate a function in <app>/jobs.py with @job.")
            return
        for summary in summaries:
            self.stdout.write(self.style.MIGRATE_HEADING(summary.title))
            for line in summary.details:
                self.stdout.write(f"  {line}")
            for line in summary.runs or ["(no runs on record)"]:
                self.stdout.write(f"    {line}")

    def _switch(self, options: dict[str, Any]) -> None:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):  # no user name in the environment or passwd
            user = "manage.py jobs"
        by = f"{user} on {instance_id()}"
        try:
            if options["pause"]:
                pause_job(options["pause"], by=by, note=options["note"])
                self.stdout.write(f"{options['pause']}: paused on every instance.")
            else:
                resume_job(options["resume"], by=by)
                self.stdout.write(f"{options['resume']}: resumed.")
        except UnknownJob as exc:
            raise CommandError(str(exc), returncode=2) from None

    def _check(self, fmt: str) -> None:
        results = check_jobs()
        failing = [r for r in results if r.failing]
        if fmt == "json":
            data = {"ok": not failing, "jobs": {r.job: r.as_dict() for r in results}}
            self.stdout.write(json.dumps(data, indent=2))
        else:
            for result in results:
                stream = self.stderr if result.failing else self.stdout
                stream.write(str(result))
        if failing:
            raise SystemExit(1)
