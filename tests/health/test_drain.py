"""Drain: ``manage.py drain`` and the gunicorn hook on a real instance."""

from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from horizontal.health import drain
from tests.support.processes import start_gunicorn


def test_drain_command_creates_reports_and_removes_the_file(settings, tmp_path: Path, capsys):
    path = tmp_path / "state" / "drain"
    settings.HORIZONTAL_DRAIN_FILE = str(path)
    call_command("drain", "--status")
    assert "serving" in capsys.readouterr().out
    call_command("drain")
    assert path.exists() and drain.drain_state().source == "file"
    call_command("drain", "--status")
    assert "draining since" in capsys.readouterr().out
    call_command("drain", "--undo")
    assert not path.exists() and not drain.is_draining()


def test_drain_command_without_a_drain_file_setting_is_an_error(settings, monkeypatch):
    monkeypatch.delenv("HORIZONTAL_DRAIN_FILE", raising=False)
    settings.HORIZONTAL_DRAIN_FILE = None
    with pytest.raises(CommandError, match="HORIZONTAL_DRAIN_FILE is not set"):
        call_command("drain")


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.mark.multiprocess
def test_sigterm_under_the_gunicorn_hook_answers_503_while_still_serving_then_stops():
    seconds = 2.0
    instance = start_gunicorn(
        {"HORIZONTAL_DRAIN_SECONDS": str(seconds), "REDIS_URL": ""},
        config="python:horizontal.health.gunicorn",
        workers=2,
        ready_path="/horizontal/live/",
    )
    try:
        assert status_of(instance.url + "/horizontal/ready/") == 200
        sent = time.monotonic()
        instance.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        seen = []
        while time.monotonic() - sent < seconds - 0.5:
            with urllib.request.urlopen(instance.url + "/horizontal/live/", timeout=10) as a:
                assert a.status == 200  # still serving
            seen.append(status_of(instance.url + "/horizontal/ready/"))
            time.sleep(0.1)
        try:
            body = urllib.request.urlopen(instance.url + "/horizontal/ready/", timeout=10)
        except urllib.error.HTTPError as error:
            body = error
        assert json.loads(body.read())["drain"]["source"] == "signal"
        assert seen and set(seen) == {503}, seen  # every worker saw the flag
        assert instance.process.wait(20) == 0
        stopped = time.monotonic() - sent
        print(f"drain: 503 for {seconds} s while serving, exited 0 after {stopped:.2f} s")
        assert stopped >= seconds
    finally:
        instance.stop(signal.SIGKILL)
