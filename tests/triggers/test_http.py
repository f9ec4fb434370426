"""The HTTP trigger in process (``horizontal/triggers/http.py``): signatures, replay, answers.

The two-instance proof, real gunicorn processes on PostgreSQL, is in
``test_http_instances.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from horizontal.jobs import Run, job, registry
from horizontal.models import JobRun, TriggerNonce
from horizontal.triggers.http import SIGNATURE_HEADER, sign_request

SECRET = "s" * 40
PATH = "/jobs/http_minutely/trigger"
pytestmark = pytest.mark.django_db(transaction=True)
ran: list[str] = []


@pytest.fixture(autouse=True)
def minutely_job() -> Iterator[None]:
    before = dict(registry.jobs)

    def body(run: Run) -> None:
        ran.append(run.slot)

    job("http_minutely", schedule="* * * * *")(body)
    job("http_manual")(body)
    ran.clear()
    with override_settings(ROOT_URLCONF="horizontal.urls", HORIZONTAL_TRIGGER_SECRET=SECRET):
        yield
    registry.jobs.clear()
    registry.jobs.update(before)


def post(
    path: str = PATH,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    secure: bool = False,
) -> Any:
    return Client().post(
        path, data=body, content_type="application/json", headers=headers, secure=secure
    )


def signed(path: str = PATH, body: bytes = b"", **kwargs: Any) -> dict[str, str]:
    return sign_request(SECRET, "POST", path, body, **kwargs)


def test_a_signed_call_runs_the_current_slot_and_a_second_is_told_who_has_it() -> None:
    first = post(body=b'{"id": 1}', headers=signed(body=b'{"id": 1}'))
    assert first.status_code == 200, first.content
    assert first.json()["status"] == "ran" and first.json()["outcome"] == "succeeded"
    second = post(body=b'{"id": 2}', headers=signed(body=b'{"id": 2}'))
    assert second.status_code == 200
    answer = second.json()
    assert answer["status"] == "taken", answer
    assert answer["taken"]["by"] and answer["taken"]["since"]
    assert answer["taken"]["run_status"] == "succeeded"
    assert len(ran) == 1
    assert JobRun.objects.filter(job="http_minutely").count() == 1


def test_the_same_signed_request_twice_is_a_replay_403() -> None:
    headers = signed()
    assert post(headers=headers).status_code == 200
    replay = post(headers=headers)
    assert (replay.status_code, replay.json()["error"]) == (403, "replayed request")
    assert TriggerNonce.objects.count() == 1


def test_wrong_signature_missing_headers_and_stale_timestamp_are_refused() -> None:
    wrong = signed()
    wrong[SIGNATURE_HEADER] = "0" * 64
    assert post(headers=wrong).status_code == 401
    assert post().status_code == 401
    other_secret = sign_request("t" * 40, "POST", PATH)
    assert post(headers=other_secret).status_code == 401
    # The signature covers the path and the body: moved to another job, or another body.
    moved = post("/jobs/http_manual/trigger", headers=signed())
    assert moved.status_code == 401
    assert post(body=b"x", headers=signed(body=b"y")).status_code == 401
    stale = post(headers=signed(timestamp=time.time() - 301))
    assert (stale.status_code, stale.json()["error"]) == (403, "stale timestamp")
    future = post(headers=signed(timestamp=time.time() + 301))
    assert future.status_code == 403
    assert ran == []


def test_no_secret_means_the_endpoint_is_off_404_even_when_signed() -> None:
    with override_settings(HORIZONTAL_TRIGGER_SECRET=None):
        response = post(headers=signed())
    assert response.status_code == 404 and ran == []


def test_unknown_and_unscheduled_jobs_are_404_after_authentication_only() -> None:
    path = "/jobs/no_such_job/trigger"
    assert post(path).status_code == 401  # unsigned: not told whether it exists
    unknown = post(path, headers=signed(path))
    assert unknown.status_code == 404
    assert unknown.json() == {"error": "not found"}  # no list of job names
    manual = "/jobs/http_manual/trigger"
    assert post(manual, headers=signed(manual)).status_code == 404


def test_only_post_and_only_https_on_an_https_site() -> None:
    response = Client().get(PATH, headers=signed())
    assert response.status_code == 405
    with override_settings(SESSION_COOKIE_SECURE=True):
        assert post(headers=signed()).status_code == 403
        secure = post(headers=signed(), secure=True)
        assert secure.status_code == 200, secure.content


def test_background_mode_answers_202_and_the_slot_runs_once() -> None:
    with override_settings(HORIZONTAL_TRIGGER_MODE="background"):
        answers = [
            post(body=str(i).encode(), headers=signed(body=str(i).encode())) for i in range(3)
        ]
    assert [a.status_code for a in answers] == [202, 202, 202]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if JobRun.objects.filter(job="http_minutely", status="succeeded").exists():
            break
        time.sleep(0.05)
    time.sleep(0.3)
    assert len(ran) == 1, ran
    assert json.loads(answers[0].content) == {"job": "http_minutely", "status": "accepted"}


def test_trigger_url_prints_a_signed_curl_call_that_the_endpoint_accepts() -> None:
    import shlex
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("trigger_url", "http_minutely", "--base", "http://testserver", stdout=out)
    words = shlex.split(out.getvalue())
    assert words[:4] == ["curl", "-sS", "-X", "POST"] and words[-1].endswith(PATH)
    headers = dict(w.split(": ", 1) for w in words[4:-1] if ": " in w)
    assert post(headers=headers).json()["status"] == "ran"
