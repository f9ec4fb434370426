"""The demo job and release hooks, written the way we recommend users write theirs."""

from __future__ import annotations

import logging
import os
import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from horizontal.deploy import on_release
from horizontal.jobs import Run, job
from testproject.billing.models import Account, Refund

logger = logging.getLogger(__name__)


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


# -- release hooks: what `manage.py release` runs after migrating ---------------------


@on_release("open_house_account")
def open_house_account(run: Run) -> None:
    """Create the account refunds are booked against, once per release, if it is missing."""
    _trace("open_house_account", run.slot)
    Account.objects.get_or_create(owner="house")


@on_release("announce_release")
def announce_release(run: Run) -> None:
    """Tell the world this release is live: once per release id, whoever runs release."""
    _trace("announce_release", run.slot)
    # An external call is made once per key: a crashed attempt's re-run skips it.
    with transaction.atomic():
        if run.effect(f"announce:{run.slot}"):
            logger.warning("release %s is live (announced by token %s)", run.slot, run.token)


@on_release("warm_account_count", scope="process")
def warm_account_count(release: str | None) -> None:
    """Warm this process's cache: every process that runs release does it, every time."""
    _trace("warm_account_count", release)
    cache.set("billing:account-count", Account.objects.count(), 300)


def _trace(hook: str, release: str | None) -> None:
    """For the tests: one line per hook run in RELEASE_HOOK_LOG; fail on RELEASE_HOOK_FAIL."""
    if settings.RELEASE_HOOK_LOG:
        # A test knob, never set in production: the tests count hook runs in this file.
        with open(settings.RELEASE_HOOK_LOG, "a") as log:  # horizontal: ignore[file-write]
            log.write(f"{hook} {release} {os.getpid()}\n")
    if hook == settings.RELEASE_HOOK_FAIL:
        raise RuntimeError(f"{hook} failed on purpose (RELEASE_HOOK_FAIL)")
