"""Classes of the thirteenth round (issue 14): a compose stack read service by service.

A development flag in one service's environment (``DEBUG: 'True'`` on a side service)
does not make the stack's web service a developer's; a service's own flag, or one in an
anchor it merges, does. A production stack's worker that embeds celery beat starts one
scheduler per replica. Each class has a true case and a safe twin."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

STACK = """\
x-web-defaults: &web-defaults
  image: app
  environment:
    DEBUG: '${DEBUG-False}'

services:
  ml_api:
    image: ml
    environment:
      DEBUG: 'True'
    command: bash -c "gunicorn --bind 0.0.0.0:3333 wsgi"

  web:
    <<: *web-defaults
    command: sh -c 'python manage.py migrate && daphne -b 0.0.0.0 -p 80 app.asgi:application'

  tasks:
    <<: *web-defaults
    command: sh -c "celery -A app worker --beat -l info"
"""


def test_another_services_debug_flag_does_not_make_the_web_service_a_developers(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"docker-compose.yml": STACK})
    assert [(f.path, f.line, f.category) for f in found] == [
        ("docker-compose.yml", 15, "boot-migrate"),
        ("docker-compose.yml", 19, "scheduler"),
    ]


def test_a_debug_flag_in_the_anchor_a_service_merges_makes_it_a_developers(
    tmp_path: Path,
) -> None:
    flagged = STACK.replace("DEBUG: '${DEBUG-False}'", "DEBUG: 'True'")
    assert scan(tmp_path, {"docker-compose.yml": flagged}) == []


def test_a_stack_with_a_file_watcher_is_a_developers(tmp_path: Path) -> None:
    watched = STACK + "  assets:\n    command: npm run watch\n"
    assert scan(tmp_path, {"docker-compose.yml": watched}) == []


def test_a_worker_without_beat_and_a_stack_without_a_server_are_silent(tmp_path: Path) -> None:
    plain = STACK.replace(" --beat", "")
    assert where(scan(tmp_path, {"docker-compose.yml": plain}, "scheduler")) == []
    # Only workers: nothing says the file is a deployed stack rather than a helper.
    workers = "services:\n  tasks:\n    command: celery -A app worker -B\n"
    assert scan(tmp_path / "b", {"docker-compose.yml": workers}) == []
