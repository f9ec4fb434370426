"""How long one S3 call may take: the bound the timeouts give (``worst_case_seconds``)
and the deadline across a call's retries (``CallDeadline``). The default timeouts are
``s3_options``' (re-exported here), which needs no botocore.

botocore bounds each attempt and counts attempts, but nothing bounds their sum; the
deadline is hooked into botocore's own events (``S3Storage`` registers it on its
session). Needs the ``s3`` extra, like ``horizontal.storage.s3``.
"""

from __future__ import annotations

import time
from typing import Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError
from botocore.retries.standard import RetryEventAdapter, StandardRetryConditions

from horizontal.storage.s3_options import (
    BOTOCORE_DEFAULT_TIMEOUT,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_READ_TIMEOUT,
    EXPECT_CONTINUE_WAIT,
    MAX_BACKOFF,
    MIN_ATTEMPT_READ,
    attempts_of,
    botocore_bounds_each_read,
    worst_case,
)

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_READ_TIMEOUT",
    "EXPECT_CONTINUE_WAIT",
    "MIN_ATTEMPT_READ",
    "PER_REQUEST_READ_TIMEOUT",
    "CallDeadline",
    "S3DeadlineExceeded",
    "worst_case_seconds",
]

# Without it an attempt waits its full read_timeout, and one is started only if that
# still fits.
PER_REQUEST_READ_TIMEOUT = botocore_bounds_each_read()
# Keys of ours in botocore's per-call request context.
_STARTED = "horizontal_started"
_LAST_FAILURE = "horizontal_last_failure"
_OPERATION = "horizontal_operation"


def _attempts(config: Config) -> int:
    return attempts_of(config.retries)


def worst_case_seconds(config: Config, deadline: float | None = None) -> float:
    """Longest one S3 call can block under ``config``: attempts * timeouts + backoff,
    or the ``deadline`` across them (``S3Storage``'s ``OPTIONS["deadline"]``) if shorter.

    Each attempt may connect, wait for ``100 Continue`` (botocore sends uploads with
    ``Expect: 100-continue`` and waits up to 1 s for it), then wait for the answer.
    Backoff uses botocore's throttling scale (1 s * 2^i, jittered down, at most 20 s),
    the larger of its two, so this is an upper bound. Where botocore cannot shorten an
    attempt's read timeout, one full attempt may outlast the deadline. (The arithmetic
    is ``s3_options.worst_case``, which the deploy checks use without botocore.)
    """
    return worst_case(
        config.connect_timeout,
        config.read_timeout,
        _attempts(config),
        deadline,
        lambda: PER_REQUEST_READ_TIMEOUT,
    )


class S3DeadlineExceeded(BotoCoreError):  # type: ignore[misc]  # botocore is untyped
    """One S3 call gave up: another attempt would not finish within its deadline.

    A botocore ``BotoCoreError`` like the timeouts it stands for, so
    ``except (BotoCoreError, ClientError)`` handles it. Deliberately not a
    ``TimeoutError``: s3transfer retries those (as ``socket.timeout``) on downloads,
    which would multiply the deadline it reports.
    """

    fmt = (
        "S3 {operation} gave up after {attempts} attempt(s) in {elapsed:.1f} s: another "
        "would not finish within the {deadline:g} s deadline (S3Storage OPTIONS "
        "'deadline'). Last failure: {last_failure}"
    )

    def __init__(
        self, *, operation: str, attempts: int, elapsed: float, deadline: float, last_failure: str
    ) -> None:
        # botocore builds the message from fmt (its class is untyped to mypy).
        BotoCoreError.__init__(
            self,
            operation=operation,
            attempts=attempts,
            elapsed=elapsed,
            deadline=deadline,
            last_failure=last_failure,
        )


class CallDeadline:
    """Keeps each call of a client, retries and backoff included, within ``seconds``.

    botocore bounds an attempt (connect and read timeouts) and counts attempts, but
    has no bound on their sum; this adds one with its own events. The clock starts
    before the call (``before-call``); before botocore sleeps for a retry
    (``needs-retry``) the retry is refused, with ``S3DeadlineExceeded``, unless the
    longest backoff and a useful attempt still fit; each attempt (``before-send``) is
    given only the read timeout the deadline has left. Whether a failure is retried at
    all stays botocore's decision (its standard retry conditions). Timeouts and
    attempts are each client's own (``context["client_config"]``): the readiness probe's
    client, made from the same session, keeps its shorter ones.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._adapter = RetryEventAdapter()

    def register(self, events: Any) -> None:
        """Hook into a boto3 session's events (its clients copy them when created)."""
        events.register("before-call.s3", self._start)
        events.register_first("needs-retry.s3", self._before_retry)
        events.register("before-send.s3", self._before_attempt)

    def _start(self, context: dict[str, Any], model: Any = None, **kwargs: Any) -> None:
        context[_STARTED] = time.monotonic()
        context[_OPERATION] = getattr(model, "name", "call")

    @staticmethod
    def _bounds(context: dict[str, Any]) -> tuple[float, float, float]:
        """The calling client's connect and read timeouts, and the shortest attempt worth
        starting (botocore shortens a read timeout when it can; else a whole one)."""
        config = context.get("client_config") or Config()
        connect = float(config.connect_timeout or BOTOCORE_DEFAULT_TIMEOUT)
        read = float(config.read_timeout or BOTOCORE_DEFAULT_TIMEOUT)
        return connect, read, min(read, MIN_ATTEMPT_READ) if PER_REQUEST_READ_TIMEOUT else read

    def _before_retry(
        self,
        attempts: int,
        request_dict: dict[str, Any],
        caught_exception: BaseException | None = None,
        response: Any = None,
        **kwargs: Any,
    ) -> None:
        context = request_dict["context"]
        started = context.get(_STARTED)
        if started is None:
            return
        retry = self._adapter.create_retry_context(
            attempts=attempts,
            request_dict=request_dict,
            caught_exception=caught_exception,
            response=response,
            operation=kwargs.get("operation"),
        )
        config = context.get("client_config") or Config()
        if not StandardRetryConditions(max_attempts=_attempts(config)).is_retryable(retry):
            return  # botocore will not retry: its own outcome stands
        failure = _describe(caught_exception, response)
        context[_LAST_FAILURE] = failure
        connect, _, floor = self._bounds(context)
        elapsed = time.monotonic() - started
        backoff = min(2.0 ** (attempts - 1), MAX_BACKOFF)
        if elapsed + backoff + connect + EXPECT_CONTINUE_WAIT + floor > self.seconds:
            raise self._exceeded(context, attempts, failure) from caught_exception

    def _before_attempt(self, request: Any, **kwargs: Any) -> None:
        context = getattr(request, "context", None) or {}
        started = context.get(_STARTED)
        if started is None:
            return
        connect, configured, floor = self._bounds(context)
        attempt = int(context.get("retries", {}).get("attempt", 1))
        left = started + self.seconds - time.monotonic()
        waits = connect + (EXPECT_CONTINUE_WAIT if "Expect" in request.headers else 0.0)
        read = min(configured, left - waits)
        # The first attempt always goes out (S3Storage leaves it room); a later one only
        # if it fits, which fails only when a backoff outlasted its reserve.
        if attempt > 1 and read < floor:
            raise self._exceeded(context, attempt - 1, context.get(_LAST_FAILURE, "none"))
        if PER_REQUEST_READ_TIMEOUT:
            context["read_timeout"] = max(read, min(configured, MIN_ATTEMPT_READ))

    def _exceeded(self, context: dict[str, Any], attempts: int, failure: str) -> Exception:
        return S3DeadlineExceeded(
            operation=context.get(_OPERATION, "call"),
            attempts=attempts,
            elapsed=time.monotonic() - context[_STARTED],
            deadline=self.seconds,
            last_failure=failure,
        )


def _describe(error: BaseException | None, response: Any) -> str:
    if error is not None:
        return f"{type(error).__name__}: {error}"
    http, parsed = response
    code = (parsed or {}).get("Error", {}).get("Code", "")
    return f"HTTP {http.status_code} {code}".strip()
