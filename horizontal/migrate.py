"""``migrate`` that every replica may run at start-up: one applies, the others wait.

The lock is a lease (``horizontal:migrate``) renewed by a heartbeat while ``migrate``
runs, so a migrator that dies releases it within one TTL and no lock can outlive its
process. The lease table is itself created by a migration: on a database where
``horizontal.0001_initial`` is not yet applied, that one migration runs first, unlocked;
concurrent bootstrappers that collide on its ``CREATE TABLE`` retry until it is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.core.management import call_command
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor

from horizontal import leases
from horizontal.conf import conf
from horizontal.exceptions import HorizontalError

__all__ = ["MIGRATE_LEASE", "MigrationLockTimeout", "migrate_locked"]

MIGRATE_LEASE = "horizontal:migrate"
POLL = 1.0
BOOTSTRAP_ATTEMPTS = 10
# The migration that creates the lease table: applied unlocked, before the lock exists.
LEASE_MIGRATION = ("horizontal", "0001_initial")


class MigrationLockTimeout(HorizontalError):
    """Another instance held the migration lock for longer than we were told to wait."""


def migrate_locked(
    *args: str,
    wait: float = 600.0,
    report: Callable[[str], None] = print,
    **options: Any,
) -> None:
    """Run ``call_command("migrate", *args, **options)`` under the migration lease.

    Waits up to ``wait`` seconds for another instance's migrate to end; when it has,
    ours usually finds nothing left to apply.
    """
    using = conf.DATABASE
    _bootstrap_lease_table(using, report)
    lease = _wait_for_lease(using, wait, report)
    try:
        with lease.keep_alive():
            call_command("migrate", *args, interactive=False, **options)
    finally:
        try:
            lease.release()
        except DatabaseError:
            report(f"could not release {MIGRATE_LEASE}; it expires by itself")


def _bootstrap_lease_table(using: str, report: Callable[[str], None]) -> None:
    for attempt in range(1, BOOTSTRAP_ATTEMPTS + 1):
        connection = connections[using]
        # Recorded as applied, not merely present: on MySQL a bootstrapper's CREATE TABLE
        # is visible before its migration is recorded, and a full migrate started then
        # would try to create the table again.
        if not MigrationExecutor(connection).migration_plan([LEASE_MIGRATION]):
            return
        try:
            call_command(
                "migrate", *LEASE_MIGRATION, database=using, interactive=False, verbosity=0
            )
            return
        except DatabaseError as exc:
            # Another replica is creating the same tables right now.
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
        lease = leases.acquire(MIGRATE_LEASE, using=using)
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
