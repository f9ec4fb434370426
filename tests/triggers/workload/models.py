"""What the trigger tests count. No unique constraint: a slot run twice shows as two rows."""

from __future__ import annotations

from django.db import models


class TriggerEffect(models.Model):
    """A job body's trace: ``started`` when it began, ``done`` once it finished."""

    job = models.CharField(max_length=200)
    slot = models.CharField(max_length=64)
    token = models.BigIntegerField()
    owner = models.CharField(max_length=200)
    pid = models.IntegerField()
    phase = models.CharField(max_length=10)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.job}@{self.slot} token {self.token} {self.phase}"
