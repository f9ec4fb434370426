"""Two jobs whose outcome the monitoring tests know in advance."""

from __future__ import annotations

import logging
import time

from django.conf import settings

from horizontal.jobs import Run, job

logger = logging.getLogger(__name__)


@job("probe_ok", schedule="* * * * *", timezone="UTC", catchup="latest", overlap="allow")
def probe_ok(run: Run) -> None:
    logger.info("probe_ok: body ran")
    time.sleep(settings.MONITORING_JOB_SECONDS)


@job("probe_fails", schedule="* * * * *", timezone="UTC", catchup="latest", overlap="allow")
def probe_fails(run: Run) -> None:
    raise RuntimeError("probe_fails fails on purpose")
