"""``manage.py jobs``: every registered job, its schedule, next slot and recent runs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from horizontal.jobs.inventory import job_summaries


class Command(BaseCommand):
    help = "List registered jobs with their schedule, next slot and recent runs."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5, help="Recent runs per job (5).")

    def handle(self, *args: Any, **options: Any) -> None:
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
