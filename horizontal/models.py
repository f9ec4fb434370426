"""Tables that every instance shares. All times in them come from the database clock."""

from __future__ import annotations

from django.db import models

# Django ships no type information here, so its base classes are Any to mypy: hence the
# ignores on each class line below.


class Lease(models.Model):
    """A named, expiring grant with a fencing token.

    The row is never deleted: release sets ``expires_at`` to the database's now, so the
    next acquire continues from the same ``token`` and tokens only ever increase.
    """

    name = models.CharField(max_length=200, primary_key=True)
    owner = models.CharField(max_length=200)
    token = models.BigIntegerField()
    expires_at = models.DateTimeField()
    acquired_at = models.DateTimeField()

    class Meta:
        db_table = "horizontal_lease"

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

    job = models.CharField(max_length=200)
    slot = models.CharField(max_length=64, help_text="ISO UTC instant, or a release id")
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
        ]
        indexes = [models.Index(fields=["job", "status"], name="horizontal_jobrun_status")]

    def __str__(self) -> str:
        return f"{self.job}@{self.slot} {self.status} (token {self.token})"


class Effect(models.Model):
    """An idempotency key, inserted in the same transaction as the effect it guards."""

    key = models.CharField(max_length=255, primary_key=True)
    job_run = models.ForeignKey(JobRun, on_delete=models.PROTECT, related_name="effects")
    token = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "horizontal_effect"

    def __str__(self) -> str:
        return str(self.key)
