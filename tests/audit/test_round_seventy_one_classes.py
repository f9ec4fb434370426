"""The seventy-first round: classes read off the tuning projects' false findings by class
(2026-12-06), each with a true case that must be found and a safe twin that must stay
silent. Memos judged by whether the project clears them are in ``test_memo_clears.py``."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a looping thread runs on every instance only when boot code starts it ----------------

POLLER = """\
import threading
import time


def poll():
    while True:
        time.sleep(30)


def start_polling():
    threading.Thread(target=poll, daemon=True).start()
"""


def test_a_looping_thread_a_view_starts_runs_where_that_request_ran(tmp_path: Path) -> None:
    view = POLLER + "\n\ndef start(request):\n    start_polling()\n"
    assert scan(tmp_path, {"app/views.py": view}, "timer-thread") == []


def test_a_looping_thread_ready_starts_through_a_helper_is_found(tmp_path: Path) -> None:
    booted = POLLER + (
        "\n\nclass PollerConfig:\n    def ready(self):\n        self.begin()\n\n"
        "    def begin(self):\n        start_polling()\n"
    )
    found = scan(tmp_path, {"app/apps.py": booted}, "timer-thread")
    assert where(found) == [("app/apps.py", 11)]


def test_a_timer_that_re_arms_itself_is_found_when_started_at_import(tmp_path: Path) -> None:
    timer = "import threading\ndef refresh():\n    threading.Timer(300, refresh).start()\n"
    assert scan(tmp_path / "a", {"app/refresh.py": timer}, "timer-thread") == []
    found = scan(tmp_path / "b", {"app/refresh.py": timer + "refresh()\n"}, "timer-thread")
    assert where(found) == [("app/refresh.py", 3)]


# -- a key rendered into a configuration an installer writes --------------------------------

INSTALLER = """\
import argparse
from django.core.management.utils import get_random_secret_key

TEMPLATE = "SECRET_KEY = '{{ secret_key }}'\\nALLOWED_HOSTS = ['{{ host }}']\\n"


def main():
    args = argparse.ArgumentParser().parse_args()
    body = TEMPLATE.replace("{{ secret_key }}", get_random_secret_key())
    body = body.replace("{{ host }}", args.host)
    with open(args.output_file, "w") as f:
        f.write(body)


if __name__ == "__main__":
    main()
"""

KEY_FILE = """\
import os
from django.core.management.utils import get_random_secret_key


def secret_key(path):
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(get_random_secret_key())
    with open(path) as f:
        return f.read()
"""


def test_a_key_rendered_into_the_configuration_an_installer_writes_is_silent(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"app/create_conf.py": INSTALLER}, "file-write") == []
    # The same installer writing the key alone makes one per box that runs it.
    alone = (
        "import argparse\n"
        "from django.core.management.utils import get_random_secret_key\n"
        "def main():\n"
        "    args = argparse.ArgumentParser().parse_args()\n"
        "    with open(args.secret_file, 'w') as f:\n"
        "        f.write(get_random_secret_key())\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    found = scan(tmp_path / "a", {"app/create_secret.py": alone}, "file-write")
    assert where(found) == [("app/create_secret.py", 5)]
    dumped = (
        "import json, secrets\n"
        "def write_environment(path):\n"
        "    environment = {'secret-key': secrets.token_hex(32), 'debug': False}\n"
        "    with open(path, 'w') as f:\n"
        "        f.write(json.dumps(environment))\n"
        "if __name__ == '__main__':\n"
        "    write_environment('local/environment.json')\n"
    )
    assert scan(tmp_path / "b", {"app/install.py": dumped}, "file-write") == []


def test_a_key_written_alone_and_read_back_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/keys.py": KEY_FILE}, "file-write")
    assert where(found) == [("app/keys.py", 7)]
    assert "secret key" in found[0].message


def test_a_looping_thread_another_modules_ready_starts_through_its_starter_is_found(
    tmp_path: Path,
) -> None:
    apps = (
        "from django.apps import AppConfig\n\n\n"
        "class JobsConfig(AppConfig):\n"
        "    def ready(self):\n"
        "        from app.jobs import start_polling\n"
        "        start_polling()\n"
    )
    found = scan(tmp_path, {"app/jobs.py": POLLER, "app/apps.py": apps}, "timer-thread")
    assert where(found) == [("app/jobs.py", 11)]
    assert ("app/apps.py", 7) in [(r.path, r.line) for r in found[0].related]


def test_calls_of_other_things_with_the_starters_name_are_not_boot_starts(
    tmp_path: Path,
) -> None:
    view = (
        "import os, threading, time\n"
        "DEBUG = os.environ.get('DEBUG')\n\n\n"
        "class View:\n"
        "    def get(self, request):\n"
        "        threading.Thread(target=self.poll).start()\n\n"
        "    def poll(self):\n"
        "        while True:\n"
        "            time.sleep(30)\n\n\n"
        "class Poller:\n"
        "    def start(self):\n"
        "        threading.Thread(target=View().poll).start()\n\n\n"
        "class AppConfig:\n"
        "    def ready(self):\n"
        "        warm = threading.Timer(5.0, print)\n"
        "        warm.start()\n"
    )
    assert scan(tmp_path, {"app/views.py": view}, "timer-thread") == []


def test_a_thread_a_module_level_lambda_starts_runs_when_it_is_called(tmp_path: Path) -> None:
    source = POLLER + "\nhandlers = {'go': lambda request: start_polling()}\n"
    source = (
        source.replace(
            "def start_polling():\n    threading.Thread(target=poll, daemon=True).start()\n", ""
        )
        + "handlers['now'] = lambda request: threading.Thread(target=poll).start()\n"
    )
    assert scan(tmp_path, {"app/hooks.py": source}, "timer-thread") == []
