"""``migrate`` that every replica may run at start-up: one applies, the others wait.

The lock is a lease (``horizontal:migrate``) renewed by a heartbeat while ``migrate``
runs, so a migrator that dies releases it within one TTL and no lock can outlive its
process. The lease table is itself created by a migration: on a database where
``horizontal.0001_initial`` is not yet applied, that one migration is applied first,
unlocked, and only then; concurrent bootstrappers that collide on its ``CREATE TABLE``
retry until it is recorded. Once it is applied the bootstrap does nothing, so it can
never unapply a later horizontal migration.

Before each migration it applies, ``migrate`` checks that the lease is still ours: a
renewal that failed (the heartbeat could not reach the database, or another instance
took the expired lease over) stops it there with ``MigrationLockLost``, never in the
middle of a migration, which not every vendor could roll back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.core.management import call_command
from django.core.management.commands.migrate import Command as MigrateCommand
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor

from horizontal import failpoints, leases
from horizontal.conf import conf
from horizontal.exceptions import HorizontalError, LeaseLost

if TYPE_CHECKING:
    from django.db.migrations.migration import Migration

__all__ = ["MIGRATE_LEASE", "MigrationLockLost", "MigrationLockTimeout", "migrate_locked"]

MIGRATE_LEASE = "horizontal:migrate"
POLL = 1.0
BOOTSTRAP_ATTEMPTS = 10
# The migration that creates the lease table: applied unlocked, before the lock exists.
LEASE_MIGRATION = ("horizontal", "0001_initial")
BOOTSTRAP_HEADING = "Creating the migration lock's table:"


class MigrationLockTimeout(HorizontalError):
    """Another instance held the migration lock for longer than we were told to wait."""


class MigrationLockLost(HorizontalError):
    """The migration lock was lost while migrating: stopped before the next migration."""


def migrate_locked(
    *args: str,
    wait: float = 600.0,
    report: Callable[[str], None] = print,
    **options: Any,
) -> None:
    """Run ``call_command("migrate", *args, **options)`` under the migration lease.

    Waits up to ``wait`` seconds for another instance's migrate to end; when it has,
    ours usually finds nothing left to apply. On a database without horizontal's
    tables, ``horizontal.0001_initial`` is applied first (printed under its own heading,
    in ``migrate``'s format, to ``options["stdout"]``) and ``migrate`` then lists the rest.
    """
    using = conf.DATABASE
    _bootstrap_lease_table(using, report, _MigrateOutput(options))
    lease = _wait_for_lease(using, wait, report)
    try:
        with lease.keep_alive():
            call_command(_LockedMigrate(lease), *args, interactive=False, **options)
    finally:
        try:
            lease.release()
        except DatabaseError:
            report(f"could not release {MIGRATE_LEASE}; it expires by itself")


class _LockedMigrate(MigrateCommand):
    """``migrate`` itself, which checks the lease before it applies each migration.

    The check sits in the progress callback's ``apply_start``, before the migration's
    schema editor opens: stopping there leaves every migration applied or not, none
    half-done. The output is migrate's own, line for line.
    """

    def __init__(self, lease: leases.Lease) -> None:
        super().__init__()
        self.lease = lease
        self.applied = 0

    def migration_progress_callback(
        self, action: str, migration: Migration | None = None, fake: bool = False
    ) -> None:
        if action in ("apply_start", "unapply_start"):
            failpoints.hit("before_migration")
            try:
                self.lease.check()
            except LeaseLost as exc:
                raise MigrationLockLost(
                    f"lost {MIGRATE_LEASE} while migrating ({exc}); stopped before "
                    f"{migration} after {self.applied} migration(s): another instance may be "
                    "migrating now. Nothing is half-applied; run migrate_locked again."
                ) from exc
        elif action in ("apply_success", "unapply_success"):
            self.applied += 1
        super().migration_progress_callback(action, migration, fake)


class _MigrateOutput:
    """What ``migrate`` itself would print for a migration, with the same options.

    Django's own command object does the printing, so the bootstrap's line is exactly
    ``migrate``'s (``  Applying horizontal.0001_initial... OK``, timings at -v2).
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self.command = MigrateCommand(
            stdout=options.get("stdout"),
            no_color=bool(options.get("no_color")),
            force_color=bool(options.get("force_color")),
        )
        self.command.verbosity = int(options.get("verbosity", 1))
        self.line_open = False

    def heading(self, text: str) -> None:
        if self.command.verbosity >= 1:
            self.command.stdout.write(self.command.style.MIGRATE_HEADING(text))

    def progress(
        self, action: str, migration: Migration | None = None, fake: bool | None = False, /
    ) -> None:
        # "Rendering model states" is an artefact of running the executor ourselves;
        # migrate renders before it starts and never prints it at -v1.
        if not action.startswith("render_"):
            self.command.migration_progress_callback(action, migration, bool(fake))
            self.line_open = action.endswith("_start")

    def interrupted(self) -> None:
        """End an ``Applying ...`` line that its migration did not finish."""
        if self.line_open and self.command.verbosity >= 1:
            self.command.stdout.write(self.command.style.WARNING(" collided"))
        self.line_open = False


def _bootstrap_lease_table(using: str, report: Callable[[str], None], out: _MigrateOutput) -> None:
    for attempt in range(1, BOOTSTRAP_ATTEMPTS + 1):
        connection = connections[using]
        # Through the executor, not the migrate command: migrate would send post_migrate
        # for every app while only this one table exists, and a project's handler that
        # queries its own tables would fail (nothing had collided). The full migrate that
        # follows sends pre/post_migrate once, as plain migrate does.
        executor = MigrationExecutor(connection, out.progress)
        # Recorded as applied, not merely present: on MySQL a bootstrapper's CREATE TABLE
        # is visible before its migration is recorded, and a full migrate started then
        # would try to create the table again. Applied means done: a plan towards 0001
        # from a later state would unapply horizontal's later migrations.
        if LEASE_MIGRATION in executor.loader.applied_migrations:
            return
        # 0001 is not applied, so its plan applies it (and nothing it does not need).
        plan = executor.migration_plan([LEASE_MIGRATION])
        try:
            if attempt == 1:
                out.heading(BOOTSTRAP_HEADING)
            executor.migrate([LEASE_MIGRATION], plan=plan)
            return
        except DatabaseError as exc:
            # Another replica is creating the same tables right now.
            out.interrupted()
            report(f"bootstrap of horizontal's tables collided ({exc}); retry {attempt}")
            connection.close()
            time.sleep(POLL)
    raise MigrationLockTimeout(
        f"could not create horizontal's tables after {BOOTSTRAP_ATTEMPTS} attempts; "
        "a half-applied horizontal.0001 (MySQL DDL is not transactional) needs a hand"
    )


def _wait_for_lease(using: str, wait: float, report: Callable[[str], None]) -> leases.Lease:
    from horizontal.models import Lease as LeaseRow

    deadline = time.monotonic() + wait
    waiting_for = None
    while True:
        lease = leases.acquire_reserved(MIGRATE_LEASE, using=using)
        if lease is not None:
            return lease
        holder = LeaseRow.objects.using(using).filter(name=MIGRATE_LEASE).first()
        owner = holder.owner if holder else "?"
        if owner != waiting_for:
            report(f"waiting for {owner} to finish migrating")
            waiting_for = owner
        if time.monotonic() > deadline:
            raise MigrationLockTimeout(
                f"{owner} has held {MIGRATE_LEASE} for more than {wait:g} s; is a migration stuck?"
            )
        time.sleep(POLL)
