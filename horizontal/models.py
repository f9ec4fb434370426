"""Tables that every instance shares. All times in them come from the database clock."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from django.db import models

from horizontal.db import UnsupportedDatabase, dialect_for

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

# Django ships no type information here, so its base classes are Any to mypy: hence the
# ignores on each class line below.


class ExactCharField(models.CharField):  # type: ignore[type-arg]
    """A ``CharField`` that compares byte for byte on every vendor.

    For names and keys: case, accents and trailing spaces all count, so ``Foo`` and
    ``foo`` are two leases, two jobs, two idempotency keys. MySQL/MariaDB's default
    collations would make them one row; this field gives the column the vendor's binary
    NO PAD collation (``db/``'s ``exact_text_collation``) in every ``CREATE`` and
    ``ALTER``, so a later migration of the column keeps it too.
    """

    def db_parameters(self, connection: BaseDatabaseWrapper) -> dict[str, str | None]:
        params = super().db_parameters(connection)
        # An explicit db_collation wins (django-stubs does not declare the attribute).
        if getattr(self, "db_collation", None) is None:
            # An unsupported vendor is refused where horizontal uses it, not here.
            with suppress(UnsupportedDatabase):
                params["collation"] = dialect_for(connection).exact_text_collation(connection)
        return params


class Lease(models.Model):
    """A named, expiring grant with a fencing token.

    The row is never deleted: release sets ``expires_at`` to the database's now, so the
    next acquire continues from the same ``token`` and tokens only ever increase.
    """

    name = ExactCharField(max_length=200, primary_key=True)
    owner = models.CharField(max_length=200)
    token = models.BigIntegerField()
    expires_at = models.DateTimeField()
    acquired_at = models.DateTimeField()

    class Meta:
        db_table = "horizontal_lease"
        # The token in a unique key: a takeover (new token) is then a key update, which a
        # fence's lock holds off, while a renewal (new expiry) is not (db/ explains).
        constraints = [
            models.UniqueConstraint(fields=["name", "token"], name="horizontal_lease_name_token"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (token {self.token}, {self.owner})"


class JobRun(models.Model):
    """One row per (job, slot): the gate that makes a slot run once, and the run's lease."""

    class Status(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        ABANDONED = "abandoned"
        MISSED = "missed"
        SKIPPED_OVERLAP = "skipped_overlap"

    class Trigger(models.TextChoices):
        SCHEDULE = "schedule"
        MANUAL = "manual"
        RETRY = "retry"
        CATCHUP = "catchup"

    job = ExactCharField(max_length=200)
    slot = ExactCharField(max_length=64, help_text="ISO UTC instant, or a release id")
    status = models.CharField(max_length=20, choices=Status.choices)
    owner = models.CharField(max_length=200)
    token = models.BigIntegerField(default=1)
    attempt = models.PositiveIntegerField(default=1)
    # "trigger" is a reserved word in MySQL/MariaDB.
    trigger = models.CharField(max_length=20, choices=Trigger.choices, db_column="triggered_by")
    claimed_at = models.DateTimeField()
    heartbeat_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "horizontal_jobrun"
        constraints = [
            models.UniqueConstraint(fields=["job", "slot"], name="horizontal_jobrun_job_slot"),
            # As for Lease: fences lock (id, token), renewals do not touch it.
            models.UniqueConstraint(fields=["id", "token"], name="horizontal_jobrun_id_token"),
        ]
        indexes = [models.Index(fields=["job", "status"], name="horizontal_jobrun_status")]

    def __str__(self) -> str:
        return f"{self.job}@{self.slot} {self.status} (token {self.token})"


class Effect(models.Model):
    """An idempotency key, inserted in the same transaction as the effect it guards."""

    key = ExactCharField(max_length=255, primary_key=True)
    # Not a database constraint: InnoDB checks a foreign key by share-locking the parent
    # row until commit, which would block the run's own heartbeat for as long as the
    # effect's transaction lasts. The fence in the same transaction checks the run instead.
    job_run = models.ForeignKey(
        JobRun, on_delete=models.PROTECT, related_name="effects", db_constraint=False
    )
    token = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "horizontal_effect"

    def __str__(self) -> str:
        return str(self.key)


class Instance(models.Model):
    """The fleet registry: one row per live horizontal process, refreshed every N seconds.

    ``settings`` holds what must agree across the fleet (a keyed hash of ``SECRET_KEY``,
    never the key; database and cache targets without credentials; the release);
    ``horizontal.fleet`` compares the live rows. Times come from the database clock.
    """

    instance_id = ExactCharField(max_length=200, primary_key=True)
    kind = models.CharField(max_length=40, help_text="web, runscheduler, runjob, release...")
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    release = models.CharField(max_length=200, blank=True, default="")
    python_version = models.CharField(max_length=40)
    django_version = models.CharField(max_length=40)
    horizontal_version = models.CharField(max_length=40)
    settings = models.JSONField(default=dict)
    fingerprint = models.CharField(max_length=64, help_text="digest of settings")
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "horizontal_instance"
        ordering = ["instance_id"]

    def __str__(self) -> str:
        return f"{self.instance_id} ({self.kind})"
