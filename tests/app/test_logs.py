"""horizontal.logs: a failure that repeats is logged once per interval, with a count."""

from __future__ import annotations

import logging
import time

import pytest

from horizontal.logs import RateLimitedLog

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
