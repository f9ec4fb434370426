"""Classes of the fifty-seventh round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-eighth labelled group (seed, photonix, toucan,
pelican-frontend), measured once after the fifty-sixth round and before any of these was
written.

- ``celery beat … &`` sent to the background and then ``celery worker`` in one start
  script: every container that runs the worker starts a beat.
- A start that releases the locks the running replicas hold (``manage.py
  reset_redis_locks``) resets shared state, as ``clear_cache`` does.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

CELERY = """\
#!/bin/bash
echo "starting"
celery -A seed beat -l INFO -S django_celery_beat.schedulers:DatabaseScheduler{background}
celery -A seed worker -l INFO -c 2 -E
"""
COMPOSE = """\
services:
  celery:
    image: seed
    command: /seed/docker/start_celery_docker.sh
"""


def _scheduler(tmp_path: Path, background: str) -> list:
    files = {
        "docker/start_celery_docker.sh": CELERY.format(background=background),
        "docker-compose.yml": COMPOSE,
    }
    return scan(tmp_path, files, "scheduler")


def test_beat_in_the_background_beside_a_worker_is_found(tmp_path: Path) -> None:
    assert where(_scheduler(tmp_path, " &")) == [("docker/start_celery_docker.sh", 3)]


def test_beat_run_before_a_worker_is_not_in_every_worker(tmp_path: Path) -> None:
    # Not sent to the background: it runs until it exits, and the worker never starts.
    assert _scheduler(tmp_path, " && echo done") == []


START = """\
#!/bin/sh
python /srv/app/manage.py migrate --check
python /srv/app/manage.py {command}
exec gunicorn app.wsgi
"""


def test_a_start_that_releases_the_replicas_locks_is_found(tmp_path: Path) -> None:
    found = scan(
        tmp_path, {"system/run.sh": START.format(command="reset_redis_locks")}, "boot-reset"
    )
    assert where(found) == [("system/run.sh", 3)]


def test_a_start_that_clears_expired_sessions_is_silent(tmp_path: Path) -> None:
    found = scan(tmp_path, {"system/run.sh": START.format(command="clearsessions")}, "boot-reset")
    assert found == []
