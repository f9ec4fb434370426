"""Tables that every instance shares. All times in them come from the database clock."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError, models

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


class JSONField(models.JSONField):
    """Django's ``JSONField``, whose system check skips a database it cannot reach.

    Django 6.1 runs model checks against every alias, and on SQLite the JSON support is
    found by a query: ``manage.py check`` in CI, where a SQLite alias's folder does not
    exist, crashed with ``OperationalError`` only because horizontal's model has this
    field. A database that answers is still checked. Migrations see Django's field.
    """

    def _check_supported(self, databases: list[str]) -> list[Any]:
        errors: list[Any] = []
        for alias in databases:
            try:
                errors += super()._check_supported([alias])  # type: ignore[misc]
            except DatabaseError:
                continue  # not reachable at check time: judged when it is used
        return errors

    def deconstruct(self) -> Any:
        name, _, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs


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
        """What asked for the run. ``manual``: an operator (``runjob --slot``, the admin's
        "run now"); ``retry``: a re-run of a failed or crashed slot. The delivery
        triggers (``cli``, ``http``, ``celery``, ``tasks``, ``release``) are named here so
        every trigger records itself the same way."""

        SCHEDULE = "schedule"
        MANUAL = "manual"
        RETRY = "retry"
        CATCHUP = "catchup"
        CLI = "cli"
        HTTP = "http"
        CELERY = "celery"
        TASKS = "tasks"
        RELEASE = "release"

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
        permissions = [("rerun_jobrun", "Can re-run a failed or abandoned slot")]

    def __str__(self) -> str:
        return f"{self.job}@{self.slot} {self.status} (token {self.token})"


class JobAttempt(models.Model):
    """One row per attempt at a run: every claim of a (job, slot), crashed ones included.

    Written by the gate's own claim and finish statements (``db/``), never separately:
    the run row says how the slot stands, its attempts say who tried, when, and how each
    try ended. A re-claim closes the attempt it took over as ``abandoned``.
    """

    class Outcome(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        # Its claim expired (kill -9, a pause, a lost network) and a newer attempt took
        # the slot over; finished_at is when that happened.
        ABANDONED = "abandoned"
        # Handed back on SIGTERM/SIGINT: the slot was left for the next claim.
        INTERRUPTED = "interrupted"

    # Not a database constraint, as for Effect: the claim inserts it in the statement
    # that creates or takes over the run, and InnoDB's check would lock the run row.
    job_run = models.ForeignKey(
        JobRun, on_delete=models.CASCADE, related_name="attempts", db_constraint=False
    )
    job = ExactCharField(max_length=200)
    slot = ExactCharField(max_length=64)
    token = models.BigIntegerField()
    attempt = models.PositiveIntegerField()
    owner = models.CharField(max_length=200, help_text="the instance that made the attempt")
    trigger = models.CharField(
        max_length=20, choices=JobRun.Trigger.choices, db_column="triggered_by"
    )
    claimed_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "horizontal_jobattempt"
        constraints = [
            # A token is issued once per run: the claim's insert and the finish's
            # update find their attempt through this index (O(log n) in the history).
            models.UniqueConstraint(
                fields=["job_run", "token"], name="horizontal_jobattempt_run_token"
            ),
        ]
        indexes = [
            models.Index(fields=["job", "claimed_at"], name="horizontal_jobattempt_job"),
        ]
        ordering = ["job_run", "token"]

    def __str__(self) -> str:
        return f"{self.job}@{self.slot} token {self.token}: {self.outcome} on {self.owner}"


class JobControl(models.Model):
    """An operator's switch for one job, shared by every instance: paused or not.

    A paused job is not run by ``runjob``, ``runscheduler`` or any trigger (they all go
    through ``run_job``); ``manage.py jobs`` and the admin show who paused it and when.
    The admin's job actions hang off this model, so their permissions live here.
    """

    job = ExactCharField(max_length=200, primary_key=True)
    paused = models.BooleanField(default=False)
    changed_by = models.CharField(max_length=200, blank=True, default="")
    changed_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        db_table = "horizontal_jobcontrol"
        verbose_name = "job"
        permissions = [
            ("run_job_now", "Can run a job now (through the gate)"),
            ("pause_job", "Can pause a job"),
            ("resume_job", "Can resume a paused job"),
        ]

    def __str__(self) -> str:
        return f"{self.job} (paused)" if self.paused else self.job


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


class TriggerNonce(models.Model):
    """A signature the HTTP trigger has accepted: the same request twice is a replay.

    Kept for twice the trigger's replay window (``HORIZONTAL_TRIGGER_MAX_SKEW``), after
    which the timestamp check alone refuses the request; older rows are pruned.
    """

    digest = ExactCharField(max_length=64, primary_key=True)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "horizontal_triggernonce"

    def __str__(self) -> str:
        return str(self.digest)


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
    settings = JSONField(default=dict)
    fingerprint = models.CharField(max_length=64, help_text="digest of settings")
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "horizontal_instance"
        ordering = ["instance_id"]

    def __str__(self) -> str:
        return f"{self.instance_id} ({self.kind})"
