"""horizontal.logs: structured fields on every line; a repeating failure logged once."""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path

import pytest

import horizontal
from horizontal.instance import InstanceFilter, instance_id
from horizontal.logs import HORIZONTAL_LOGGERS, RateLimitedLog, current_fields, log_fields
from tests.support.databases import ScratchDatabase
from tests.support.processes import manage

logger = logging.getLogger("horizontal.tests.logs")


def test_first_failure_is_logged_then_repeats_are_counted_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = RateLimitedLog(logger, logging.WARNING, interval=0.3)
    with caplog.at_level(logging.WARNING, logger=logger.name):
        for attempt in range(5):
            log.log("poll failed: %s", f"refused #{attempt}")
        assert [r.getMessage() for r in caplog.records] == [
            "poll failed: refused #0 [0 not logged since the previous line; "
            "at most one line per 0.3 s]"
        ]
        time.sleep(0.35)
        log.log("poll failed: %s", "refused #5")
    assert len(caplog.records) == 2
    assert caplog.records[1].getMessage().startswith("poll failed: refused #5 [4 not logged")
    assert caplog.records[1].levelno == logging.WARNING


def test_each_limiter_counts_on_its_own(caplog: pytest.LogCaptureFixture) -> None:
    first = RateLimitedLog(logger, logging.ERROR, interval=60)
    second = RateLimitedLog(logger, logging.ERROR, interval=60)
    with caplog.at_level(logging.ERROR, logger=logger.name):
        first.log("a")
        first.log("a")
        second.log("b")
    assert [r.getMessage()[0] for r in caplog.records] == ["a", "b"]


# -- structured fields: instance always, job / slot / token inside a run -------------------


def test_a_horizontal_logger_tags_records_with_the_instance_and_the_run_in_progress(
    caplog: pytest.LogCaptureFixture,
) -> None:
    jobs_logger = logging.getLogger("horizontal.jobs")
    with caplog.at_level(logging.INFO, logger="horizontal.jobs"):
        jobs_logger.info("outside")
        with log_fields(job="refund_balances", slot="2026-12-01T00:00:00Z", token=7):
            jobs_logger.info("inside")
            jobs_logger.info("explicit", extra={"token": 8})
    outside, inside, explicit = caplog.records
    # caplog's handler has no filter of ours: the logger's own filter set these.
    assert outside.instance == instance_id()  # type: ignore[attr-defined]
    assert not hasattr(outside, "job")
    assert (inside.job, inside.slot, inside.token) == ("refund_balances", "2026-12-01T00:00:00Z", 7)  # type: ignore[attr-defined]
    assert explicit.token == 8  # type: ignore[attr-defined]  # the call's extra= wins
    assert current_fields() == {}


def test_every_logger_horizontal_uses_is_tagged() -> None:
    names = set()
    for path in (Path(horizontal.__file__).parent).rglob("*.py"):
        names.update(re.findall(r"getLogger\(\s*\"(horizontal[\w.]*)\"", path.read_text()))
    assert names, "the scan found horizontal's loggers"
    assert names <= set(HORIZONTAL_LOGGERS), names - set(HORIZONTAL_LOGGERS)
    for name in HORIZONTAL_LOGGERS:
        assert any(isinstance(f, InstanceFilter) for f in logging.getLogger(name).filters), name


@pytest.mark.multiprocess
def test_a_real_runjob_logs_json_lines_with_instance_job_slot_and_token(
    monitoring_db: ScratchDatabase,
) -> None:
    slot = "2026-01-02T03:04:00Z"
    done = manage(
        "runjob",
        "probe_ok",
        "--slot",
        slot,
        env={
            **monitoring_db.env,
            "HORIZONTAL_INSTANCE_ID": "json-node",
            "HORIZONTAL_MONITORING_DEMO": "1",
            "MONITORING_JOB_SECONDS": "0",
            "HORIZONTAL_FLEET_INTERVAL": "0",
            "DJANGO_LOG_FORMAT": "json",
            "DJANGO_LOG_LEVEL": "INFO",
        },
    )
    records = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    by_logger = {record["name"]: record for record in records}
    print(json.dumps(records, indent=1))
    token = monitoring_db.query(
        "SELECT token FROM horizontal_jobrun WHERE job = %s AND slot = %s", ("probe_ok", slot)
    )[0][0]
    claimed = by_logger["horizontal.jobs"]
    assert claimed["message"].startswith(f"probe_ok@{slot}: claimed")
    # The job body's own logger: tagged by the handler's InstanceFilter (testproject's LOGGING).
    body = by_logger["testproject.monitoring.jobs"]
    for record in (claimed, body):
        assert (record["instance"], record["job"], record["slot"], record["token"]) == (
            "json-node", "probe_ok", slot, token
        )  # fmt: skip
