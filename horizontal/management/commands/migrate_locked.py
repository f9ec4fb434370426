"""``manage.py migrate_locked [APP_LABEL] [MIGRATION] [--wait SECONDS]``: migrate once.

Safe in every replica's start-up: one instance applies the migrations while the others
wait for it, then find nothing to apply.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal import fleet
from horizontal.migrate import MigrationLockLost, MigrationLockTimeout, migrate_locked


class Command(BaseCommand):
    help = (
        "Run migrate under a cluster-wide lock: one instance migrates, the others wait "
        "for it (up to --wait seconds) and then find nothing to apply."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("app_label", nargs="?", help="As for migrate.")
        parser.add_argument("migration_name", nargs="?", help="As for migrate.")
        parser.add_argument(
            "--database",
            default="default",
            help="The database to migrate, as for migrate (default: default). The lock "
            "is always taken in HORIZONTAL_DATABASE.",
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=600.0,
            help="Seconds to wait for another instance's migrate (default 600).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        positional = [a for a in (options["app_label"], options["migration_name"]) if a]
        fleet.start("migrate_locked")
        try:
            migrate_locked(
                *positional,
                wait=options["wait"],
                report=self.stdout.write,
                database=options["database"],
                verbosity=options["verbosity"],
                no_color=options["no_color"],
                force_color=options["force_color"],
                # The stream itself, not our wrapper of it: migrate wraps what it is given,
                # and a wrapper inside a wrapper ends every write with a newline, which
                # split "Applying X..." from its " OK".
                stdout=self.stdout._out,
            )
        except (MigrationLockTimeout, MigrationLockLost) as exc:
            raise CommandError(str(exc)) from exc
