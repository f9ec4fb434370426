"""Tables the chaos checker reads. None has a unique constraint: duplicates must show."""

from __future__ import annotations

from django.db import models


class TickEffect(models.Model):
    """One row per committed run of a slot: more than one is a duplicate (D)."""

    slot = models.CharField(max_length=64, db_index=True)
    token = models.BigIntegerField()
    owner = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.slot} token {self.token}"


class SharedCounter(models.Model):
    """The shared row every run updates through ``run.fence``."""

    value = models.BigIntegerField(default=0)
    last_slot = models.CharField(max_length=64, default="")
    last_token = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"counter {self.value}"


class FencedWrite(models.Model):
    """The history of accepted fenced writes, in commit order (for S: stale accepted)."""

    slot = models.CharField(max_length=64)
    token = models.BigIntegerField()
    owner = models.CharField(max_length=200)

    def __str__(self) -> str:
        return f"{self.slot} token {self.token} by {self.owner}"
