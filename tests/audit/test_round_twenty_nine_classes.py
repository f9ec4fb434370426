"""Classes of the twenty-ninth round (issue 14), each with a true case and a safe twin.

They came from the forty-fifth to forty-seventh labelled groups (reviewboard,
manage.get.gov, parkkihubi, consult, spug; helios-server, mvj, nucleus, Archery,
data-dashboard-api; atv, envergo, richie, Crypt-Server, analytics-platform-control-panel),
measured once before any of them was written, and from lite-frontend (tuning).

- A settings module that star-imports its base and extends it (``INSTALLED_APPS +=``,
  its own ``ROOT_URLCONF``) is a settings module whatever its folder is called
  (``conf/caseworker.py``): what it sets is production's, so the base's missing
  ``CACHES`` is not reported when every such module sets it.
- A data folder served joined to a subfolder that is in the source tree
  (``settings.ROOT_PATH + "/heliosbooth"``) serves files shipped with the code.
- ``celery worker --beat`` in every replica of a project that schedules nothing
  (no ``beat_schedule``, no periodic task, no database scheduler) runs idle schedulers.
- A memo of a public key fetched by its key id (``kid``) holds what never changes.
- A Python project of its own in the tree (its own ``pyproject.toml`` or
  ``requirements.txt``) whose modules never name Django is a tool, not the application.
- ``SECRET_KEY = config.SECRET_KEY`` where the project's ``config`` module generates it
  when the environment has none.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = """\
SECRET_KEY = "from-the-environment"
ALLOWED_HOSTS = []
INSTALLED_APPS = [
    "django.contrib.sessions",
]
MIDDLEWARE = []
"""
SERVED = """\
from conf.base import *

ROOT_URLCONF = "caseworker.urls"
INSTALLED_APPS += ["caseworker"]
{caches}
"""
CACHE_USE = """\
from django.core.cache import cache


def forget(token):
    cache.delete(token)
"""


def _files(caches: str) -> dict[str, str]:
    return {
        "conf/__init__.py": "",
        "conf/base.py": BASE,
        "conf/caseworker.py": SERVED.format(caches=caches),
        "caseworker/client.py": CACHE_USE,
    }


def test_a_base_whose_star_importing_modules_set_caches_is_not_reported(tmp_path: Path) -> None:
    caches = 'CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache"}}'
    found = scan(tmp_path, _files(caches), "settings")
    assert [f for f in found if f.message.startswith("CACHES")] == []


def test_the_same_modules_without_caches_are_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, _files(""), "settings")
    caches = [f for f in found if f.message.startswith("CACHES")]
    assert len(caches) == 1
    assert where(caches)[0][0] in {"conf/base.py", "conf/caseworker.py"}


URLS = """\
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = [
    re_path(r"booth/(?P<path>.*)$", serve, {"document_root": settings.ROOT_PATH + "/booth"}),
]
"""


def test_a_served_folder_that_is_in_the_source_tree_is_not_reported(tmp_path: Path) -> None:
    files = {"urls.py": URLS, "booth/js/booth.js": "var booth = 1;\n"}
    assert scan(tmp_path, files, "file-write") == []


def test_a_served_folder_that_is_not_in_the_tree_is_found(tmp_path: Path) -> None:
    files = {"urls.py": URLS, "booth/.gitkeep": ""}
    assert where(scan(tmp_path, files, "file-write")) == [("urls.py", 6)]


PROCFILE = "web: gunicorn app.wsgi\nworker: celery -A app worker --beat\n"
CELERY_SETTINGS = """\
INSTALLED_APPS = ["django.contrib.sessions"]
DATABASES = {{"default": {{"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}}}
{schedule}
"""


def test_beat_in_every_worker_with_nothing_scheduled_is_not_reported(tmp_path: Path) -> None:
    files = {"Procfile": PROCFILE, "app/settings.py": CELERY_SETTINGS.format(schedule="")}
    assert scan(tmp_path, files, "scheduler") == []


def test_beat_in_every_worker_with_a_schedule_is_found(tmp_path: Path) -> None:
    schedule = 'CELERY_BEAT_SCHEDULE = {"purge": {"task": "app.tasks.purge", "schedule": 60}}'
    files = {"Procfile": PROCFILE, "app/settings.py": CELERY_SETTINGS.format(schedule=schedule)}
    assert where(scan(tmp_path, files, "scheduler")) == [("Procfile", 2)]


MEMO = """\
from functools import lru_cache
from urllib.request import urlopen


@lru_cache(maxsize=10)
def {name}(url_template, {argument}):
    with urlopen(url_template.format({argument})) as response:
        return response.read().decode()
"""


def test_a_memo_of_a_public_key_by_its_key_id_is_not_reported(tmp_path: Path) -> None:
    source = MEMO.format(name="_fetch_public_key_cached", argument="kid")
    assert scan(tmp_path, {"app/auth.py": source}, "cache") == []


def test_a_memo_of_a_users_profile_is_found(tmp_path: Path) -> None:
    source = MEMO.format(name="fetch_profile", argument="user_id")
    assert where(scan(tmp_path, {"app/auth.py": source}, "cache")) == [("app/auth.py", 5)]


TOOL = """\
{imports}import json


def write_report(rows):
    with open("/var/lib/evals/latest.json", "w") as handle:
        json.dump(rows, handle)
"""


def test_a_tool_with_its_own_manifest_that_never_names_django_is_not_read(
    tmp_path: Path,
) -> None:
    files = {
        "tools/evals/pyproject.toml": "[project]\nname = 'evals'\n",
        "tools/evals/report.py": TOOL.format(imports=""),
    }
    assert scan(tmp_path, files, "file-write") == []


def test_the_same_writer_in_a_django_package_is_found(tmp_path: Path) -> None:
    files = {
        "tools/evals/pyproject.toml": "[project]\nname = 'evals'\n",
        "tools/evals/report.py": TOOL.format(imports="from django.conf import settings\n"),
    }
    assert where(scan(tmp_path, files, "file-write")) == [("tools/evals/report.py", 6)]


CONFIG = """\
import os

import django.core.management.utils

SECRET_KEY = os.environ.get("SECRET_KEY")
{fallback}
"""
GENERATED = (
    "if not SECRET_KEY:\n    SECRET_KEY = django.core.management.utils.get_random_secret_key()"
)
APP_SETTINGS = """\
import config

INSTALLED_APPS = ["django.contrib.sessions"]
SECRET_KEY = config.SECRET_KEY
"""


def test_a_secret_key_the_config_module_generates_is_found(tmp_path: Path) -> None:
    files = {"config.py": CONFIG.format(fallback=GENERATED), "app/settings.py": APP_SETTINGS}
    found = [f for f in scan(tmp_path, files, "settings") if f.message.startswith("SECRET_KEY")]
    assert where(found) == [("app/settings.py", 4)]
    assert [(r.path, r.line) for r in found[0].related] == [("config.py", 7)]


def test_a_secret_key_the_config_module_reads_is_not_reported(tmp_path: Path) -> None:
    files = {"config.py": CONFIG.format(fallback=""), "app/settings.py": APP_SETTINGS}
    found = [f for f in scan(tmp_path, files, "settings") if f.message.startswith("SECRET_KEY")]
    assert found == []
