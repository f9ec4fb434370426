"""Classes of the twenty-eighth round (issue 14), each with a true case and a safe twin.

They came from the forty-third and forty-fourth labelled groups (hauki, smbackend, ashley,
ma-cantine; yjdh, lite-frontend, sparte, export-wins-data), measured once before any of
them was written.

- A script's own logging function (``_log "- migrate: runs manage.py migrate"``) prints a
  message; it runs nothing.
- A switch on a required ``ENVIRONMENT`` that names a development environment
  (``if ENVIRONMENT == "local":``) is not production's arm.
- An Airflow DAG runs on Airflow's workers, a deployment of its own.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

ENTRYPOINT = """\
#!/bin/bash
set -e

_log () {{
    echo "$@"
}}

{line}
exec uwsgi --ini deploy/uwsgi.ini
"""


def test_a_logging_function_that_names_migrate_runs_nothing(tmp_path: Path) -> None:
    source = ENTRYPOINT.format(line='_log "- migrate: runs Django migrations (manage.py migrate)"')
    assert scan(tmp_path, {"deploy/entrypoint.sh": source}, "boot-migrate") == []


def test_the_same_line_that_runs_it_is_found(tmp_path: Path) -> None:
    source = ENTRYPOINT.format(line="./manage.py migrate")
    assert where(scan(tmp_path, {"deploy/entrypoint.sh": source}, "boot-migrate")) == [
        ("deploy/entrypoint.sh", 8)
    ]


SETTINGS = """\
import environ

env = environ.Env()
INSTALLED_APPS = []
ENVIRONMENT = env.str("ENVIRONMENT")
if ENVIRONMENT == "local":
    CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.{local}"}}}}
else:
    CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.{other}"}}}}
"""


def test_the_arm_a_local_environment_takes_is_not_productions(tmp_path: Path) -> None:
    source = SETTINGS.format(local="dummy.DummyCache", other="redis.RedisCache")
    found = scan(tmp_path, {"config/settings.py": source}, "settings")
    assert [f for f in found if "CACHES" in f.message] == []


def test_the_other_arm_is_productions(tmp_path: Path) -> None:
    source = SETTINGS.format(local="redis.RedisCache", other="dummy.DummyCache")
    found = scan(tmp_path, {"config/settings.py": source}, "settings")
    assert where([f for f in found if "CACHES" in f.message]) == [("config/settings.py", 9)]


DAG = """\
{airflow}
import requests


def archive_page(url):
    response = requests.post(url)
    with open("/srv/exports/page.html", "w") as page:
        page.write(response.text)
"""


def test_an_airflow_dag_is_not_the_app(tmp_path: Path) -> None:
    source = DAG.format(airflow="from airflow.decorators import dag, task")
    assert scan(tmp_path, {"airflow/dags/pages.py": source}, "file-write") == []


def test_the_same_write_in_the_app_is_found(tmp_path: Path) -> None:
    source = DAG.format(airflow="")
    assert where(scan(tmp_path, {"airflow/dags/pages.py": source}, "file-write")) == [
        ("airflow/dags/pages.py", 7)
    ]
