"""The HTTP trigger: a cloud scheduler's signed POST runs (or hands off) a job's current slot.

``POST <prefix>/jobs/<name>/trigger`` (``include("horizontal.urls")``). Off unless
``HORIZONTAL_TRIGGER_SECRET`` is set: then every path answers 404, as for an unknown job.

A request carries ``X-Horizontal-Timestamp`` (Unix seconds) and ``X-Horizontal-Signature``
(hex HMAC-SHA256 under the secret of ``METHOD\\nPATH\\nTIMESTAMP\\n`` + body, ``PATH``
with its query string as sent; ``sign_request`` builds both). It is accepted once: the
signature is compared in constant time, the timestamp must be within
``HORIZONTAL_TRIGGER_MAX_SKEW`` of the database clock, and the signature must not have
been accepted before (a row per accepted signature, kept for twice the window, on
``HORIZONTAL_DATABASE``: the same request replayed is refused on every instance). A
retry is a new request with a new timestamp: it reaches the gate, which runs each slot
once however many calls arrive.

Answers (JSON; docs/triggers.md): 200 ``ran`` (with the outcome, succeeded or failed),
200 ``taken`` (who has or had the slot, and since when: a retry of a call that worked is
a success, not a conflict a scheduler would retry for ever), 202 ``accepted``
(``HORIZONTAL_TRIGGER_MODE = "background"``), 404 (trigger off, unknown or unscheduled
job: the same body, naming nothing), 401 (no or wrong signature), 403 (stale timestamp,
replay, plain HTTP on an HTTPS site), 405 (not POST).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import shlex
import threading
import time
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from horizontal.conf import conf
from horizontal.db import db_now
from horizontal.exceptions import InvalidJob
from horizontal.jobs import gate
from horizontal.jobs.registry import registry
from horizontal.jobs.report import Outcome, OutcomeStatus, format_instant
from horizontal.jobs.runner import run_job
from horizontal.models import TriggerNonce

__all__ = [
    "APP_NAME",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "URL_NAME",
    "curl_command",
    "sign_request",
    "signature",
    "site_says_https",
    "trigger",
    "trigger_path",
    "urlpatterns",
]

logger = logging.getLogger("horizontal.triggers")

TIMESTAMP_HEADER = "X-Horizontal-Timestamp"
SIGNATURE_HEADER = "X-Horizontal-Signature"
URL_NAME = "horizontal-trigger"
# horizontal.urls's app_name: under the documented include("horizontal.urls") the
# trigger is reversed as "horizontal:horizontal-trigger".
APP_NAME = "horizontal"
# The shortest secret the deploy check accepts (horizontal.W081): HMAC-SHA256's block of
# entropy is 32 bytes.
MIN_SECRET_BYTES = 32

_RAN = (OutcomeStatus.SUCCEEDED, OutcomeStatus.FAILED, OutcomeStatus.LOST)


def signature(secret: str, method: str, full_path: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of one request: method, path (with query), timestamp, body."""
    message = f"{method.upper()}\n{full_path}\n{timestamp}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign_request(
    secret: str,
    method: str,
    full_path: str,
    body: bytes = b"",
    *,
    timestamp: float | None = None,
) -> dict[str, str]:
    """The two headers that make a request to the trigger acceptable (once).

    Two calls within one second with the same body sign the same request: the second
    is refused as a replay. A client that sends duplicates on purpose puts something
    unique in the body (a request id), as the tests' client does.
    """
    stamp = str(int(time.time() if timestamp is None else timestamp))
    return {
        TIMESTAMP_HEADER: stamp,
        SIGNATURE_HEADER: signature(secret, method, full_path, stamp, body),
    }


def trigger_path(name: str) -> str:
    """The path of ``name``'s trigger in this project's URLconf: under
    ``include("horizontal.urls")`` (its namespace), or listed without one
    (``*http.urlpatterns``, or ``horizontal.urls`` as the ROOT_URLCONF)."""
    from django.urls import NoReverseMatch, reverse

    try:
        return reverse(f"{APP_NAME}:{URL_NAME}", args=[name])
    except NoReverseMatch:
        return reverse(URL_NAME, args=[name])


def curl_command(secret: str, base_url: str, name: str, body: bytes = b"") -> str:
    """A signed ``curl`` call of ``name``'s trigger, good for ``HORIZONTAL_TRIGGER_MAX_SKEW``."""
    url_path = trigger_path(name)
    headers = sign_request(secret, "POST", url_path, body)
    parts = ["curl", "-sS", "-X", "POST"]
    for header, value in headers.items():
        parts += ["-H", shlex.quote(f"{header}: {value}")]
    if body:
        parts += ["--data-binary", shlex.quote(body.decode())]
    parts.append(shlex.quote(base_url.rstrip("/") + url_path))
    return " ".join(parts)


def site_says_https() -> bool:
    """True when a ``SECURE_*`` setting says the site is served over HTTPS only."""
    return bool(
        getattr(settings, "SECURE_SSL_REDIRECT", False)
        or getattr(settings, "SESSION_COOKIE_SECURE", False)
        or getattr(settings, "CSRF_COOKIE_SECURE", False)
        or (getattr(settings, "SECURE_HSTS_SECONDS", 0) or 0) > 0
    )


def https_required() -> bool:
    explicit = conf.TRIGGER_REQUIRE_HTTPS
    return site_says_https() if explicit is None else explicit


def _error(status: int, text: str, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": text, **extra}, status=status)


def _not_found() -> JsonResponse:
    return _error(404, "not found")


def _authenticate(request: HttpRequest, secret: str) -> JsonResponse | None:
    """None if the request is signed, fresh and new; else the refusal to send."""
    stamp = request.headers.get(TIMESTAMP_HEADER, "")
    given = request.headers.get(SIGNATURE_HEADER, "")
    if not stamp or not given:
        return _error(401, "unsigned request", headers=[TIMESTAMP_HEADER, SIGNATURE_HEADER])
    expected = signature(secret, request.method or "", request.get_full_path(), stamp, request.body)
    if not hmac.compare_digest(expected.encode(), given.strip().lower().encode()):
        return _error(401, "bad signature")
    try:
        sent = dt.datetime.fromtimestamp(int(stamp), dt.UTC)
    except (ValueError, OverflowError, OSError):
        return _error(401, "bad timestamp")
    now = db_now(conf.DATABASE)
    window = dt.timedelta(seconds=conf.TRIGGER_MAX_SKEW)
    if abs(now - sent) > window:
        return _error(403, "stale timestamp", max_skew_seconds=conf.TRIGGER_MAX_SKEW)
    if not _first_use(expected, now, window):
        return _error(403, "replayed request")
    return None


def _first_use(digest: str, now: dt.datetime, window: dt.timedelta) -> bool:
    """Record ``digest`` as seen; False if it was, by any instance, within the window."""
    nonces = TriggerNonce.objects.using(conf.DATABASE)
    try:
        with transaction.atomic(using=conf.DATABASE):
            nonces.create(digest=digest, seen_at=now)
    except IntegrityError:
        return False
    # Past twice the window the timestamp check refuses the request by itself.
    nonces.filter(seen_at__lt=now - 2 * window).delete()
    return True


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "slot": outcome.slot,
        "status": str(outcome.status),
        "token": outcome.token,
        "message": outcome.message,
    }


def _answer(name: str, outcomes: list[Outcome]) -> JsonResponse:
    body: dict[str, Any] = {"job": name, "outcomes": [_outcome_json(o) for o in outcomes]}
    ran = [o for o in outcomes if o.status in _RAN]
    if ran:
        body["status"] = "ran"
        body["outcome"] = str(ran[-1].status)
        return JsonResponse(body, status=200)
    taken = [o for o in outcomes if o.status == OutcomeStatus.TAKEN and o.slot]
    if taken:
        job = registry.jobs[name]
        row = gate.slot_row(job, taken[-1].slot or "")
        body["status"] = "taken"
        if row is not None:
            body["taken"] = {
                "slot": row.slot,
                "by": row.owner,
                "since": format_instant(row.claimed_at),
                "run_status": row.status,
                "token": row.token,
            }
        return JsonResponse(body, status=200)
    body["status"] = str(outcomes[-1].status) if outcomes else "idle"
    return JsonResponse(body, status=200)


def _run_in_background(name: str) -> None:
    try:
        run_job(name)
    except Exception:
        logger.exception("trigger of %s could not run", name)
    finally:
        connections.close_all()


@csrf_exempt
@transaction.non_atomic_requests
def trigger(request: HttpRequest, name: str) -> JsonResponse:
    """Run (or hand off) the current slot of the scheduled job ``name``."""
    secret = conf.TRIGGER_SECRET
    if secret is None:
        return _not_found()  # off: nothing here says a trigger could exist
    if request.method != "POST":
        response = _error(405, "POST only")
        response["Allow"] = "POST"
        return response
    if https_required() and not request.is_secure():
        return _error(403, "https required")
    refused = _authenticate(request, secret)
    if refused is not None:
        return refused
    job = registry.get(name)
    if job is None or job.schedule is None:
        return _not_found()
    if conf.TRIGGER_MODE == "background":
        threading.Thread(
            target=_run_in_background, args=(name,), name=f"horizontal-trigger-{name}"
        ).start()
        return JsonResponse({"job": name, "status": "accepted"}, status=202)
    try:
        outcomes = run_job(name)
    except InvalidJob:
        logger.exception("trigger of %s refused: the job's registration is invalid", name)
        return _error(500, "the job cannot run; see the server's log")
    return _answer(name, outcomes)


urlpatterns = [path("jobs/<str:name>/trigger", trigger, name=URL_NAME)]
