"""The seventy-second round: what a new user's first try met (2026-12-06), each with a
true case that must be found and, where there is one, a safe twin that must stay silent.
The memo cleared on save beside it is in ``test_round_fifty_two_classes.py``."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

WORKERS = """\
import threading
import time


class FlagSync(threading.Thread):
    daemon = True

    def run(self):
        while True:
            time.sleep(60)


def _rearm():
    threading.Timer(600, _rearm).start()


def start_all():
    FlagSync().start()
    {second}
"""
APPS = """\
from django.apps import AppConfig


class ExtraConfig(AppConfig):
    name = "extra"

    def ready(self):
        from .workers import start_all

        start_all()
"""


def test_every_looping_thread_a_booted_starter_starts_is_found(tmp_path: Path) -> None:
    # One starter, two loops: fixing the first finding must not reveal a second.
    workers = WORKERS.format(second="threading.Timer(600, _rearm).start()")
    found = scan(tmp_path, {"extra/workers.py": workers, "extra/apps.py": APPS}, "timer-thread")
    assert where(found) == [("extra/workers.py", 18), ("extra/workers.py", 19)]
    # Each names what it runs, so that two starts in one function are told apart.
    assert found[0].message.startswith("FlagSync is started by start_all()")
    assert found[1].message.startswith("Timer(_rearm) is started by start_all()")


def test_a_starter_with_one_loop_and_a_one_shot_thread_reports_the_loop(tmp_path: Path) -> None:
    workers = WORKERS.format(second="threading.Thread(target=print).start()")
    found = scan(tmp_path, {"extra/workers.py": workers, "extra/apps.py": APPS}, "timer-thread")
    assert where(found) == [("extra/workers.py", 18)]


def test_a_thread_started_at_boot_is_named_by_its_target(tmp_path: Path) -> None:
    source = (
        "import threading\nimport time\n\n\ndef poll():\n    while True:\n"
        "        time.sleep(30)\n\n\nthreading.Thread(target=poll, daemon=True).start()\n"
    )
    [found] = scan(tmp_path, {"app/poller.py": source}, "timer-thread")
    assert found.message.startswith("Thread(target=poll) starts when the process boots")
