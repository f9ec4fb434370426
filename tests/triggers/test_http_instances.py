"""The HTTP trigger on two gunicorn instances on PostgreSQL (issue 12; RELIABILITY.md T3).

A bounded client sends each slot's trigger five times at once to each instance, then
retries every call once (a cloud scheduler that did not hear back): each slot's body
starts once (a row per start, no unique constraint). Refused, with their status codes:
a wrong signature (401), no signature (401), a stale timestamp (403) and the same signed
request again (403). An instance without a secret answers 404 to a signed call
(``test_http.py``, in process: a third gunicorn costs seconds the CI budget does not have).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from horizontal.triggers.http import SIGNATURE_HEADER, sign_request
from tests.support.databases import ScratchDatabase
from tests.support.processes import gunicorn_instances

pytestmark = [pytest.mark.multiprocess, pytest.mark.django52_only]

SECRET = "trigger-secret-for-the-two-instance-test-0123456789"
PATH = "/horizontal/jobs/http_tick/trigger"
SLOTS = 3  # the job ticks every 2 s
CALLS = 5  # per instance per slot, at once
ENV = {"HORIZONTAL_CHAOS": "1", "HORIZONTAL_TRIGGER_SECRET": SECRET}


@pytest.fixture
def http_db() -> Iterator[ScratchDatabase]:
    database = ScratchDatabase("postgresql", extra_env=ENV).create()
    yield database
    database.drop()


def call(
    base: str, headers: dict[str, str] | None = None, body: bytes = b"", path: str = PATH
) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(base + path, data=body, method="POST")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def signed_call(base: str) -> tuple[int, dict[str, Any]]:
    """One scheduler call: signed, with a request id; re-signed and retried on failure."""
    for _ in range(3):
        body = json.dumps({"id": uuid.uuid4().hex}).encode()
        try:
            status, answer = call(base, sign_request(SECRET, "POST", PATH, body), body)
        except OSError:
            continue
        if status < 500:
            return status, answer
    raise AssertionError(f"{base}: no answer after 3 tries")


def test_t3_five_concurrent_calls_per_instance_and_retries_run_each_slot_once(
    http_db: ScratchDatabase,
) -> None:
    env = {**http_db.env, **ENV}
    answers: list[tuple[int, dict[str, Any]]] = []
    with gunicorn_instances(2, env, workers=2) as instances:
        bases = [instance.url for instance in instances]
        with ThreadPoolExecutor(2 * CALLS) as pool:
            for _ in range(SLOTS):
                # Just after a tick: every call of this round names the same slot.
                now = time.time()
                time.sleep(2.05 - now % 2)
                round_ = list(pool.map(signed_call, [b for b in bases for _ in range(CALLS)]))
                retries = list(pool.map(signed_call, bases))  # each instance, once more
                answers += round_ + retries
        refusals, first = refused_calls(bases[0])
        # The replay check's first (accepted) call runs a slot of its own when the last
        # round ended past a tick (a loaded machine): it counts like every other answer.
        answers.append(first)
    starts = Counter(slot for (slot,) in http_db.query("SELECT slot FROM chaos_tickeffect"))
    statuses = Counter((status, answer.get("status")) for status, answer in answers)
    ran_slots = Counter(
        answer["outcomes"][-1]["slot"] for _, answer in answers if answer.get("status") == "ran"
    )
    print(
        f"\nT3 HTTP, 2 instances, {SLOTS} slots x {2 * CALLS} calls + 2 retries"
        f" (+ the replay check's first call): {statuses}"
    )
    print(f"T3 body starts per slot: {sorted(starts.values())}; refused: {refusals}")
    assert len(starts) >= SLOTS - 1, starts  # a round may straddle a tick: still once each
    assert set(starts.values()) == {1}, starts
    assert set(ran_slots.values()) == {1} and len(ran_slots) == len(starts), ran_slots
    assert {status for status, _ in answers} == {200}, statuses
    assert refusals == {
        "wrong signature": 401,
        "no signature": 401,
        "stale timestamp": 403,
        "replayed request": 403,
    }


def refused_calls(base: str) -> tuple[dict[str, int], tuple[int, dict[str, Any]]]:
    """The refused calls' status codes, and the answer to the signed call replayed."""
    wrong = sign_request(SECRET, "POST", PATH)
    wrong[SIGNATURE_HEADER] = "f" * 64
    stale = sign_request(SECRET, "POST", PATH, timestamp=time.time() - 600)
    once = sign_request(SECRET, "POST", PATH, b'{"id": "once"}')
    first = call(base, once, b'{"id": "once"}')
    assert first[0] == 200, first
    return {
        "wrong signature": call(base, wrong)[0],
        "no signature": call(base)[0],
        "stale timestamp": call(base, stale)[0],
        "replayed request": call(base, once, b'{"id": "once"}')[0],
    }, first
