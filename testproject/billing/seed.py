from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from testproject.billing.models import Account, Refund


def seed(accounts: int, refunds: int) -> tuple[int, int]:
    if accounts < 1 and refunds > 0:
        raise ValueError("refunds need at least one account")
    with transaction.atomic():
        created = Account.objects.bulk_create(
            Account(owner=f"customer-{i}", balance=Decimal("0")) for i in range(accounts)
        )
        Refund.objects.bulk_create(
            Refund(account=created[i % len(created)], amount=Decimal(i % 97 + 1) / 4)
            for i in range(refunds)
        )
    return len(created), refunds
