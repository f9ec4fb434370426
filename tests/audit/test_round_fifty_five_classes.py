"""Classes of the fifty-fifth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-sixth labelled group (accessibility-monitoring-platform,
stagecraft, open-afval, open-taak), measured once after the fifty-fourth round and
before any of these was written.

- A sibling that sets the same service to this host and star-imports the module that
  already did (``staging.py`` over ``production.py``) copies one default: one finding,
  at the module it imports, with the copy related.
- A flag that is true only under a test run, whatever its name (``UNDER_TEST =
  (len(sys.argv) > 1 and sys.argv[1] == "test") or "pytest" in sys.modules``), and a
  comparison of an unset variable with a word (``os.getenv("INTEGRATION_TEST") ==
  "TRUE"``) are off in production.
- A continued command (``CMD make static \\`` then ``&& python manage.py migrate \\``)
  is reported at the physical line that runs what is judged, its first line related.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = """\
from open_api_framework.conf.base import *  # noqa

INSTALLED_APPS = INSTALLED_APPS + ["afval"]
ROOT_URLCONF = "afval.urls"
"""
PRODUCTION = """\
import os

os.environ.setdefault("CACHE_DEFAULT", "127.0.0.1:6379/2")

from .base import *  # noqa
"""
STAGING = """\
import os

os.environ.setdefault("{name}", "127.0.0.1:6379/1")

from .production import *  # noqa
"""


def _cache_findings(tmp_path: Path, staging_sets: str) -> list:
    files = {
        "src/afval/conf/base.py": BASE,
        "src/afval/conf/production.py": PRODUCTION,
        "src/afval/conf/staging.py": STAGING.format(name=staging_sets),
    }
    return [f for f in scan(tmp_path, files, "settings") if "127.0.0.1" in f.message]


def test_a_copied_setdefault_is_related_to_the_module_it_imports(tmp_path: Path) -> None:
    found = _cache_findings(tmp_path, "CACHE_DEFAULT")
    assert where(found) == [("src/afval/conf/production.py", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("src/afval/conf/staging.py", 3)]


def test_a_setdefault_only_the_sibling_sets_is_its_own_finding(tmp_path: Path) -> None:
    found = _cache_findings(tmp_path, "CACHE_AXES")
    assert sorted(where(found)) == [
        ("src/afval/conf/production.py", 3),
        ("src/afval/conf/staging.py", 3),
    ]
    assert all(f.related == () for f in found)


SETTINGS = """\
import os
import sys

{flag}
INTEGRATION_TEST = os.getenv("INTEGRATION_TEST") {operator} "TRUE"

SECRET_KEY = os.environ["SECRET_KEY"]
INSTALLED_APPS = ["django.contrib.auth"]
CACHES = {{
    "default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["REDIS"]}}
}}

DATABASES = {{}}
if UNDER_TEST or INTEGRATION_TEST:
    DATABASES["default"] = {{"ENGINE": "django.db.backends.sqlite3", "NAME": "app"}}
else:
    DATABASES["default"] = {{
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.environ["POSTGRES_HOST"],
    }}
"""
TEST_RUN = 'UNDER_TEST = (len(sys.argv) > 1 and sys.argv[1] == "test") or "pytest" in sys.modules'


def _database_findings(tmp_path: Path, flag: str, operator: str) -> list:
    text = SETTINGS.format(flag=flag, operator=operator)
    found = scan(tmp_path, {"app/settings.py": text}, "settings")
    return [f for f in found if "SQLite" in f.message]


def test_sqlite_under_a_test_run_flag_of_any_name_is_silent(tmp_path: Path) -> None:
    assert _database_findings(tmp_path, TEST_RUN, "==") == []


def test_a_flag_that_is_not_a_test_run_is_found(tmp_path: Path) -> None:
    found = _database_findings(tmp_path, "UNDER_TEST = len(sys.argv) > 1", "==")
    assert where(found) == [("app/settings.py", 15)]


def test_an_unset_variable_unequal_to_a_word_is_taken_by_default(tmp_path: Path) -> None:
    found = _database_findings(tmp_path, TEST_RUN, "!=")
    assert where(found) == [("app/settings.py", 15)]


DOCKERFILE = """\
FROM python:3.12
COPY . /code/
CMD make static_files_process \\
    && python manage.py collectstatic --noinput \\
    && python manage.py {command} \\
    && waitress-serve --port=8001 app.wsgi:application
"""


def test_a_continued_command_is_reported_where_it_migrates(tmp_path: Path) -> None:
    found = scan(tmp_path, {"Dockerfile": DOCKERFILE.format(command="migrate")}, "boot-migrate")
    assert where(found) == [("Dockerfile", 5)]
    assert [(r.path, r.line) for r in found[0].related] == [("Dockerfile", 3)]


def test_a_continued_command_that_does_not_migrate_is_silent(tmp_path: Path) -> None:
    files = {"Dockerfile": DOCKERFILE.format(command="clearsessions")}
    assert scan(tmp_path, files, "boot-migrate") == []
