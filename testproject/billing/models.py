from __future__ import annotations

from django.db import models


class Account(models.Model):
    owner = models.CharField(max_length=150)
    balance = models.DecimalField(max_digits=14, decimal_places=2, default=0)

    def __str__(self) -> str:
        return f"{self.owner}: {self.balance}"


class Refund(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        PAID = "paid"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="refunds")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    paid_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"refund {self.pk} of {self.amount} to {self.account_id} ({self.status})"
