"""Classes of the forty-sixth round (issue 14), each with a true case and a safe twin.

They came from the eighty-fourth and eighty-fifth labelled groups
(data-workspace-frontend, dit-contact-forms, identity, airlock;
clinicaltrials-act-tracker, reports), measured once after the forty-fifth round and
before any of these was written.

- An environment's name defaulting to ``"localhost"`` (``SENTRY_ENVIRONMENT``) in a
  settings helper is no address.
- A start script for end-to-end tests (``start-e2e.sh``) is a test run's.
- A ``FileSystemStorage`` subclass named for a remote store whose ``_save`` writes there
  (``S3FileStorage``) keeps nothing on this disk.
- A thread joined in the function that starts it ends with that call.
- A start script that leaves a sleeping project command running in the background
  (``run-one-constantly ./manage.py run_file_uploader &``) runs the job in every replica.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

HELPER = """\
from environs import Env

env = Env()


def initialise_services():
    return env.str("{variable}", default="localhost")
"""
SETTINGS = """\
from services.setup import initialise_services

INSTALLED_APPS = ["app"]
SERVICE = initialise_services()
"""


def _helper_findings(tmp_path: Path, variable: str) -> list:
    files = {
        "services/__init__.py": "",
        "services/setup.py": HELPER.format(variable=variable),
        "app/settings.py": SETTINGS,
    }
    return scan(tmp_path, files, "settings")


def test_an_environment_name_defaulting_to_localhost_is_silent(tmp_path: Path) -> None:
    assert _helper_findings(tmp_path, "SENTRY_ENVIRONMENT") == []


def test_a_host_defaulting_to_localhost_in_a_helper_is_found(tmp_path: Path) -> None:
    found = _helper_findings(tmp_path, "REDIS_HOST")
    assert where(found) == [("services/setup.py", 7)]


START = "#!/bin/sh\npython manage.py migrate --noinput\nexec gunicorn app.wsgi\n"


def test_an_end_to_end_tests_start_script_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/start-e2e.sh": START}, "boot-migrate") == []


def test_the_same_start_script_for_replicas_is_found(tmp_path: Path) -> None:
    assert where(scan(tmp_path, {"app/start.sh": START}, "boot-migrate")) == [("app/start.sh", 2)]


STORAGE = """\
import boto3
from django.core.files.storage import FileSystemStorage


class {name}(FileSystemStorage):
    def _save(self, name, content):
        boto3.client("s3").put_object(Bucket="uploads", Key=name, Body=content)
        return name
"""
MODELS = """\
from django.db import models

from core.storage import {name}


class Upload(models.Model):
    file = models.FileField(storage={name}())
"""


def _storage_findings(tmp_path: Path, name: str) -> list:
    files = {
        "core/storage.py": STORAGE.format(name=name),
        "core/models.py": MODELS.format(name=name),
    }
    return [f for f in scan(tmp_path, files, "file-write") if "is a FileSystemStorage" in f.message]


def test_a_storage_named_for_s3_that_saves_there_is_silent(tmp_path: Path) -> None:
    assert _storage_findings(tmp_path, "S3FileStorage") == []


def test_a_local_storage_that_overrides_save_is_found(tmp_path: Path) -> None:
    assert where(_storage_findings(tmp_path, "ArtifactStorage")) == [("core/storage.py", 5)]


TASK = """\
import threading
import time


def run_query(query):
    done = False

    def poll():
        while not done:
            time.sleep(1)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        return query.run()
    finally:
        done = True
        {end}
"""


def test_a_thread_joined_where_it_starts_is_silent(tmp_path: Path) -> None:
    source = TASK.format(end="thread.join()")
    assert scan(tmp_path, {"explorer/tasks.py": source}, "timer-thread") == []


def test_a_thread_left_looping_is_found_when_boot_code_starts_it(tmp_path: Path) -> None:
    source = TASK.format(end="pass")
    # Started by a task: it loops in the one worker that ran the task, not in every one.
    assert scan(tmp_path, {"explorer/tasks.py": source}, "timer-thread") == []
    booted = source + "\n\nclass ExplorerConfig:\n    def ready(self):\n        run_query(None)\n"
    found = scan(tmp_path / "b", {"explorer/tasks.py": booted}, "timer-thread")
    assert where(found) == [("explorer/tasks.py", 12)]


UPLOADER = """\
import time

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        while True:
            upload_pending()
            time.sleep(60)
"""
ENTRYPOINT = """\
#!/bin/bash
set -euo pipefail
./manage.py migrate
{line}
exec "$@"
"""


def _uploader_findings(tmp_path: Path, line: str) -> list:
    files = {
        "airlock/management/commands/run_file_uploader.py": UPLOADER,
        "docker/entrypoints/prod.sh": ENTRYPOINT.format(line=line),
    }
    return scan(tmp_path, files, "scheduler")


def test_a_sleeping_command_left_in_the_background_is_found(tmp_path: Path) -> None:
    found = _uploader_findings(tmp_path, "run-one-constantly ./manage.py run_file_uploader &")
    assert where(found) == [("docker/entrypoints/prod.sh", 4)]


def test_a_one_off_command_in_the_same_script_is_silent(tmp_path: Path) -> None:
    assert _uploader_findings(tmp_path, "./manage.py collectstatic --noinput") == []
