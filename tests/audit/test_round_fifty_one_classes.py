"""Classes of the fifty-first round (issue 14), each with a true case and a safe twin.

They came from the ninety-fourth and ninety-fifth labelled groups (open-inwoner,
sdg-invoervoorziening, open-klant, open-personen; archiefbeheercomponent,
open-archiefbeheer, bga-pensions, coordinated-entry-screening), measured once after the
fiftieth round and before any of these was written.

- ``os.environ.setdefault("CACHE_DEFAULT", …)`` above ``from .base import *`` is the
  default of the base's ``config("CACHE_DEFAULT", default=…)``.
- django-privates keeps private files under ``PRIVATE_MEDIA_ROOT`` on this host's disk,
  whatever ``STORAGES`` says, when the code uses its fields or storage.
- A relative star import of a helper module of the project (``from .app.csp import *``)
  brings in the names it assigns: the base's implicit defaults are judged.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = """\
from decouple import config

INSTALLED_APPS = ["app"]
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"redis://{config('CACHE_DEFAULT', default='localhost:6379/0')}",
    }
}
"""
PRODUCTION = """\
import os

os.environ.setdefault("CACHE_DEFAULT", "{default}")

from .base import *  # noqa

DEBUG = False
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
"""


def _cache_findings(tmp_path: Path, default: str) -> list:
    files = {
        "site/settings/base.py": BASE,
        "site/settings/production.py": PRODUCTION.format(default=default),
    }
    return [f for f in scan(tmp_path, files, "settings") if f.message.startswith("CACHES")]


def test_an_importers_setdefault_on_this_host_is_found_with_its_place(tmp_path: Path) -> None:
    found = _cache_findings(tmp_path, "127.0.0.1:6379/2")
    assert where(found) == [("site/settings/base.py", 7)]
    assert "127.0.0.1:6379/2" in found[0].message
    assert ("site/settings/production.py", 3) in [(r.path, r.line) for r in found[0].related]


def test_an_importers_setdefault_naming_a_shared_server_is_silent(tmp_path: Path) -> None:
    assert _cache_findings(tmp_path, "redis.internal:6379/2") == []


PRIVATE_SETTINGS = """\
import os

INSTALLED_APPS = ["privates", "certs"]
STORAGES = {"default": {"BACKEND": "storages.backends.s3.S3Storage"}}
PRIVATE_MEDIA_ROOT = os.path.join(os.path.dirname(__file__), "private_media")
SENDFILE_ROOT = PRIVATE_MEDIA_ROOT
"""
CERTIFICATES = """\
from django.db import models
from privates.fields import PrivateMediaFileField


class Certificate(models.Model):
    public = PrivateMediaFileField(upload_to="certs")
"""


def test_django_privates_folder_is_found_where_the_code_uses_it(tmp_path: Path) -> None:
    files = {"site/settings.py": PRIVATE_SETTINGS, "certs/models.py": CERTIFICATES}
    found = [f for f in scan(tmp_path, files) if f.message.startswith("PRIVATE_MEDIA_ROOT")]
    assert where(found) == [("site/settings.py", 5)]
    related = [(r.path, r.line) for r in found[0].related]
    assert ("site/settings.py", 6) in related
    assert ("certs/models.py", 6) in related


def test_django_privates_folder_no_code_uses_is_silent(tmp_path: Path) -> None:
    plain = CERTIFICATES.replace("PrivateMediaFileField", "FileField").replace(
        "from privates.fields import FileField\n", ""
    )
    files = {"site/settings.py": PRIVATE_SETTINGS, "certs/models.py": plain}
    found = [f for f in scan(tmp_path, files) if f.message.startswith("PRIVATE_MEDIA_ROOT")]
    assert found == []


MEDIA_BASE = """\
import os

INSTALLED_APPS = ["docs"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
MEDIA_ROOT = os.path.join(os.path.dirname(__file__), "media")

from .app.csp import *  # noqa
"""
DOCUMENTS = """\
from django.db import models


class Document(models.Model):
    upload = models.FileField(upload_to="documents")
"""


def _media_findings(tmp_path: Path, helper: dict[str, str]) -> list:
    files = {"site/conf/base.py": MEDIA_BASE, "docs/models.py": DOCUMENTS, **helper}
    return [f for f in scan(tmp_path, files, "settings") if f.message.startswith("MEDIA_ROOT")]


def test_a_relative_star_import_of_a_helper_module_is_read(tmp_path: Path) -> None:
    helper = {"site/conf/app/__init__.py": "", "site/conf/app/csp.py": "CSP_DEFAULT_SRC = []\n"}
    assert where(_media_findings(tmp_path, helper)) == [("site/conf/base.py", 5)]


def test_a_relative_star_import_that_sets_the_storage_is_silent(tmp_path: Path) -> None:
    storages = 'STORAGES = {"default": {"BACKEND": "storages.backends.s3.S3Storage"}}\n'
    helper = {"site/conf/app/__init__.py": "", "site/conf/app/csp.py": storages}
    assert _media_findings(tmp_path, helper) == []
