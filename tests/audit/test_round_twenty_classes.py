"""Classes of the twentieth round (issue 14), each with a true case and a safe twin.

They came from the thirtieth labelled group (intake, openstax-cms, bornhack, openhexa,
codewof), measured once before any of them was written.

- The settings package's ``__init__.py`` that ``wsgi.py`` serves and that only
  re-exports the base (``from .base import *``) is what production runs: a sibling that
  overrides the base (``docker.py``) does not make the base's value harmless. When it
  re-exports a development module (``from .dev import *``), it is not production's.
- A settings template the operator copies into place (``environment_settings.py.dist``,
  ``local.py-dist``) is read with the settings, as ``….py.template`` is: the package's
  ``from .environment_settings import *`` gets what it sets.
- django-crontab installed and its ``CRONJOBS`` are one cause: one finding at
  ``CRONJOBS``, the app's entry related.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- the package wsgi.py serves re-exports the base -----------------------------------------

BASE = """\
import os

INSTALLED_APPS = ["cms"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.getenv("DATABASE_HOST", "localhost"),
    }
}
"""
DOCKER = """\
from .base import *

DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}
"""
WSGI = 'import os\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms.settings")\n'


@pytest.mark.parametrize(
    ("reexported", "expected"),
    [("base", [("cms/settings/base.py", 8)]), ("dev", [])],
    ids=["re-exports-the-base", "re-exports-a-development-module"],
)
def test_the_served_package_keeps_the_bases_value(
    tmp_path: Path, reexported: str, expected: list[tuple[str, int]]
) -> None:
    files = {
        "cms/settings/__init__.py": f"from .{reexported} import *\n",
        "cms/settings/base.py": BASE,
        "cms/settings/dev.py": "from .base import *\nDEBUG = True\n",
        "cms/settings/docker.py": DOCKER,
        "cms/wsgi.py": WSGI,
    }
    assert where(scan(tmp_path, files, "settings")) == expected


# -- a settings template the operator copies --------------------------------------------------

SETTINGS = """\
from .environment_settings import *

INSTALLED_APPS = ["economy"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
"""
MODELS = """\
from django.db import models


class Invoice(models.Model):
    pdf = models.FileField(upload_to="invoices")
"""


# What the deployment renders or copies: ``{{ }}`` placeholders are read as a word.
TEMPLATE = """\
# Copy to environment_settings.py and fill in.
SECRET_KEY = "{{ django_secret_key }}"
MEDIA_ROOT = "/srv/media"
ALLOWED_HOSTS = ["{{ hostname }}"]
"""


@pytest.mark.parametrize("name", ["environment_settings.py.dist", "environment_settings.py-dist"])
def test_a_dist_template_is_read_with_the_settings(tmp_path: Path, name: str) -> None:
    files = {
        "site/settings.py": SETTINGS,
        f"site/{name}": TEMPLATE,
        "economy/models.py": MODELS,
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [(f"site/{name}", 3)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")


def test_a_dist_template_that_configures_storage_is_silent(tmp_path: Path) -> None:
    template = TEMPLATE + 'STORAGES = {"default": {"BACKEND": "storages.backends.s3.S3Storage"}}\n'
    files = {
        "site/settings.py": SETTINGS,
        "site/environment_settings.py.dist": template,
        "economy/models.py": MODELS,
    }
    assert scan(tmp_path, files, "settings") == []


# -- django-crontab: the app and its jobs ----------------------------------------------------

CRONTAB_SETTINGS = """\
INSTALLED_APPS = [
    "django_crontab",
    "news",
]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
{jobs}"""


def test_django_crontab_and_its_jobs_are_one_finding(tmp_path: Path) -> None:
    jobs = "CRONJOBS = [('0 6 * * *', 'news.cron.refresh')]\n"
    files = {"site/settings.py": CRONTAB_SETTINGS.format(jobs=jobs)}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("site/settings.py", 6)]
    assert [(r.path, r.line) for r in found[0].related] == [("site/settings.py", 2)]


def test_django_crontab_without_jobs_here_is_reported_at_the_app(tmp_path: Path) -> None:
    files = {"site/settings.py": CRONTAB_SETTINGS.format(jobs="")}
    assert where(scan(tmp_path, files, "settings")) == [("site/settings.py", 2)]
