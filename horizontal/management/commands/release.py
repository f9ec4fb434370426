"""``manage.py release [--release ID]``: migrate, then each ``@on_release`` hook once.

Also ``release --status [--release ID]`` (the hooks of a release and their outcome) and
``release --check-migrations [--database ALIAS]`` (the rolling-deploy migration check
alone, for CI). Exit codes as ``runjob``'s: 0 done (here or by another process), 1 a
hook failed or a pending migration is flagged, 2 usage error, 3 a claim was lost,
4 interrupted.
"""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from horizontal import fleet
from horizontal.deploy.compat import pending_report
from horizontal.deploy.release import (
    InvalidRelease,
    exit_code,
    release_status,
    resolve_release,
    run_release,
)
from horizontal.jobs.report import EXIT_INTERRUPTED, EXIT_USAGE
from horizontal.jobs.runner import Interrupted
from horizontal.migrate import MigrationLockLost, MigrationLockTimeout


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted(signal.Signals(signum).name)


class Command(BaseCommand):
    help = (
        "Deploy step: migrate under the cluster-wide lock, then run every @on_release "
        "hook once for this release id (HORIZONTAL_RELEASE or --release), whichever and "
        "however many processes run it. Exit 0: done, here or elsewhere; 1: a hook "
        "failed (re-run by the next release) or, with --check-migrations, a migration "
        "breaks a rolling deploy; 2: usage error; 3: a claim was lost; 4: interrupted."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--release", help="The release id (default: HORIZONTAL_RELEASE, setting or env)."
        )
        parser.add_argument(
            "--database",
            default="default",
            help="The database to migrate and check (default: default). Hooks are "
            "recorded in HORIZONTAL_DATABASE.",
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=600.0,
            help="Seconds to wait for another process's migrate or hook (default 600).",
        )
        parser.add_argument(
            "--status", action="store_true", help="Show the release's hooks and outcomes."
        )
        parser.add_argument(
            "--check-migrations",
            action="store_true",
            help="Only report the pending migrations that break the old code during a "
            "rolling deploy (horizontal.W070-W076); exit 1 if there is one.",
        )
        parser.add_argument(
            "--skip-migrate", action="store_true", help="Run the hooks only; do not migrate."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["check_migrations"]:
            self._check_migrations(options["database"])
            return
        if options["status"]:
            self._status(options["release"])
            return
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        # In the fleet registry while it migrates and runs the hooks (from its first
        # write after the registry's table exists: a first deploy creates it).
        fleet.start("release")
        try:
            release_id = resolve_release(options["release"])
            self._warn_incompatible(options["database"])
            results = run_release(
                release_id,
                migrate=not options["skip_migrate"],
                wait=options["wait"],
                report=self.stdout.write,
                database=options["database"],
                verbosity=options["verbosity"],
                no_color=options["no_color"],
                force_color=options["force_color"],
                stdout=self.stdout._out,  # as migrate_locked: migrate wraps it itself
            )
        except InvalidRelease as exc:
            self.stderr.write(f"release: {exc}")
            raise SystemExit(EXIT_USAGE) from None
        except (MigrationLockTimeout, MigrationLockLost) as exc:
            raise CommandError(str(exc)) from exc
        except Interrupted:
            self.stderr.write("release: interrupted; no hook claim held")
            raise SystemExit(EXIT_INTERRUPTED) from None
        code = exit_code(results)
        if code:
            failed = [r for r in results if r.exit_code]
            self.stderr.write(f"release {release_id}: {failed[0].message}")
            raise SystemExit(code)
        self.stdout.write(f"release {release_id}: {len(results)} hook(s) done")

    def _warn_incompatible(self, alias: str) -> None:
        try:
            _, messages = pending_report(alias)
        except DatabaseError:
            return  # migrate_locked says why, next
        for message in messages:
            self.stderr.write(f"warning: {message}")

    def _check_migrations(self, alias: str) -> None:
        try:
            pending, messages = pending_report(alias)
        except DatabaseError as exc:
            self.stderr.write(f"release: cannot read the migrations of {alias!r}: {exc}")
            raise SystemExit(EXIT_USAGE) from None
        for message in messages:
            self.stderr.write(str(message))
        self.stdout.write(
            f"{pending} migration(s) not applied on {alias!r}; {len(messages)} operation(s) "
            "break the code still running during a rolling deploy"
        )
        if messages:
            raise SystemExit(1)

    def _status(self, release: str | None) -> None:
        release_id, lines = release_status(release)
        if release_id is None:
            self.stdout.write("no release on record (and no HORIZONTAL_RELEASE)")
            return
        self.stdout.write(f"release {release_id}:")
        for line in lines:
            self.stdout.write(f"  {line.status:<12} {line.text}")
        if not lines:
            self.stdout.write("  no hooks registered or on record")
