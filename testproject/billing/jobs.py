"""The demo job, written the way we recommend users write theirs."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from horizontal.jobs import Run, job
from testproject.billing.models import Account, Refund


@job("refund_balances", schedule="0 0 * * *", timezone="UTC", catchup="latest", overlap="skip")
def refund_balances(run: Run) -> None:
    """Pay every pending refund into its account's balance, exactly once."""
    pending = Refund.objects.filter(status=Refund.Status.PENDING).order_by("pk")
    for refund_id in pending.values_list("pk", flat=True):
        run.check()  # a checkpoint between units of work: stop if the claim was lost
        with transaction.atomic():
            # The key commits with the payment or not at all: a crashed attempt's paid
            # refunds are skipped by the next attempt, a zombie's write is fenced out.
            refund = Refund.objects.get(pk=refund_id)
            if refund.amount <= 0:
                raise ValueError(f"refund {refund_id} has a non-positive amount {refund.amount}")
            if not run.effect(f"refund:{refund_id}"):
                continue
            Account.objects.filter(pk=refund.account_id).update(
                balance=F("balance") + refund.amount
            )
            Refund.objects.filter(pk=refund_id).update(
                status=Refund.Status.PAID, paid_at=timezone.now()
            )
        if settings.BILLING_PAY_DELAY:
            time.sleep(settings.BILLING_PAY_DELAY)
