"""``manage.py prune_runs --older-than DAYS``: delete run history nothing needs any more."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from horizontal.jobs.prune import prune_runs


class Command(BaseCommand):
    help = (
        "Delete finished job runs (with their attempts and effect keys) older than --older-than "
        "days. Keeps running runs, each job's newest slot, its catch-up window and its "
        "--keep newest runs; never touches leases."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=float, required=True, metavar="DAYS")
        parser.add_argument("--keep", type=int, default=5, help="Newest runs kept per job (5).")
        parser.add_argument("--dry-run", action="store_true", help="Count, delete nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        pruned = prune_runs(
            dt.timedelta(days=options["older_than"]),
            keep=options["keep"],
            dry_run=options["dry_run"],
        )
        verb = "Would delete" if options["dry_run"] else "Deleted"
        self.stdout.write(f"{verb} {pruned}.")
