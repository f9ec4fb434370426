"""Classes of the thirteenth round (issue 14): a compose stack read service by service,
and a settings branch taken only under a test run however its test is written.

A development flag in one service's environment (``DEBUG: 'True'`` on a side service)
does not make the stack's web service a developer's; a service's own flag, or one in an
anchor it merges, does. A production stack's worker that embeds celery beat starts one
scheduler per replica. Each class has a true case and a safe twin."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from horizontal.audit.settings_imported import random_secret_key_sites
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


# -- a branch taken only under a test run, whichever way it is asked ----------------------

TEST_RUN_BRANCH = """\
import os, sys
from django.core.management.utils import get_random_secret_key
if "test" in sys.argv or {second}:
    SECRET_KEY = get_random_secret_key()
else:
    SECRET_KEY = os.environ["SECRET_KEY"]
"""


def test_a_key_generated_only_under_a_test_run_is_silent_in_both_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SECRET_KEY", "from-the-environment")
    cases = {
        "test_run_only": '"pytest" in sys.modules',  # either way a test run: off
        "test_run_or_unset": 'not os.environ.get("SECRET_KEY")',  # on when unset
    }
    for name, second in cases.items():
        (tmp_path / f"{name}.py").write_text(TEST_RUN_BRANCH.format(second=second))
        monkeypatch.delitem(sys.modules, name, raising=False)
        importlib.import_module(name)  # W050 reads the settings module Django imported
    assert random_secret_key_sites("test_run_only") == []
    assert random_secret_key_sites("test_run_or_unset") == [f"{tmp_path}/test_run_or_unset.py:4"]
    only = TEST_RUN_BRANCH.format(second=cases["test_run_only"])
    assert scan(tmp_path / "a", {"proj/settings.py": only}, "settings") == []
    unset = TEST_RUN_BRANCH.format(second=cases["test_run_or_unset"])
    assert where(scan(tmp_path / "b", {"proj/settings.py": unset}, "settings")) == [
        ("proj/settings.py", 4)
    ]


# -- a Kubernetes container whose command is a list of one word per line ----------------

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      initContainers:
        - name: migrate
          image: app
          command:
            - python
            - manage.py
            - {command}
            - --noinput
      containers:
        - name: web
          args:
          - gunicorn
          - app.wsgi
"""


def test_an_init_container_that_migrates_in_list_form_runs_in_every_pod(tmp_path: Path) -> None:
    found = scan(tmp_path, {"k8s/deployment.yaml": DEPLOYMENT.format(command="migrate")})
    assert [(f.path, f.line, f.category) for f in found] == [
        ("k8s/deployment.yaml", 12, "boot-migrate")
    ]
    job = DEPLOYMENT.format(command="migrate").replace("kind: Deployment", "kind: Job")
    assert scan(tmp_path / "b", {"k8s/deployment.yaml": job}) == []
    other = DEPLOYMENT.format(command="collectstatic")
    assert scan(tmp_path / "c", {"k8s/deployment.yaml": other}) == []
