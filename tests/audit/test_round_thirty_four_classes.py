"""Classes of the thirty-fourth round (issue 14), each with a true case and a safe twin.

They came from the sixtieth labelled group (captain, popcorn_maker, make.mozilla.org),
measured once after the thirty-third round and before any of these was written, and
from spug (tuning).

- A thread a management command starts lives as long as that command's one process: it
  is not every instance's background work.
- The model fields that store uploads on the default storage are related to the media
  setting's finding: the same root cause, shown where uploads are kept.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

MONITOR = """\
import threading
import time


class MarkInactive(threading.Thread):
    def run(self):
        while True:
            time.sleep(60)


def start():
    MarkInactive(daemon=True).start()
"""


def test_a_looping_thread_a_management_command_starts_is_not_reported(tmp_path: Path) -> None:
    files = {"app/management/commands/monitor_instances.py": MONITOR}
    assert scan(tmp_path, files, "timer-thread") == []


def test_the_same_thread_in_application_code_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/monitor.py": MONITOR + "\n\nstart()\n"}, "timer-thread")
    assert where(found) == [("app/monitor.py", 12)]


SETTINGS = 'INSTALLED_APPS = ["app"]\nMEDIA_ROOT = "/var/media/"\n'
MODELS = """\
from django.db import models


class CommandLog(models.Model):
    logfile = models.FileField(upload_to="logs"{storage})
"""


def _media(found: list) -> list:
    return [f for f in found if f.message.startswith("MEDIA_ROOT")]


def test_upload_fields_on_the_default_storage_are_related(tmp_path: Path) -> None:
    files = {"app/settings.py": SETTINGS, "app/models.py": MODELS.format(storage="")}
    (finding,) = _media(scan(tmp_path, files, "settings"))
    assert ("app/models.py", 5) in [(r.path, r.line) for r in finding.related]


def test_a_field_with_a_storage_of_its_own_is_not(tmp_path: Path) -> None:
    models = MODELS.format(storage=", storage=LogStorage()")
    files = {"app/settings.py": SETTINGS, "app/models.py": models}
    (finding,) = _media(scan(tmp_path, files, "settings"))
    assert ("app/models.py", 5) not in [(r.path, r.line) for r in finding.related]
