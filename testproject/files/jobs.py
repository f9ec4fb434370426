"""A nightly report written to shared storage, downloadable through any instance."""

from __future__ import annotations

import csv
import logging

from horizontal.instance import instance_id
from horizontal.jobs import Run, job
from horizontal.storage import generated_file
from testproject.billing.models import Account

logger = logging.getLogger(__name__)


@job("balances_report", schedule="0 1 * * *", timezone="UTC", catchup="latest")
def balances_report(run: Run) -> None:
    """Write every account's balance to reports/balances-<slot>.csv in shared storage."""
    day = run.slot_date.isoformat() if run.slot_date else run.slot
    with generated_file(f"reports/balances-{day}.csv", text=True) as report:
        writer = csv.writer(report.file)
        writer.writerow(["slot", run.slot, "written_by", instance_id(), "token", run.token])
        writer.writerow(["account", "balance"])
        for pk, balance in Account.objects.order_by("pk").values_list("pk", "balance"):
            writer.writerow([pk, balance])
    assert report.saved is not None
    # The stored name can differ from the asked one (a rerun of the slot keeps both).
    logger.info("balances_report: saved %s", report.saved.name)
