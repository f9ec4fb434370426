"""Classes of the twenty-first round (issue 14), each with a true case and a safe twin.

They came from the thirty-first labelled group (pycon-us, askbot, kingfisher-process,
codeforlife-portal, oldp), measured once before any of them was written.

- django-compressor installed in a base that leaves ``COMPRESS_ENABLED`` to its default,
  and turned on by the production module that imports it (``COMPRESS_ENABLED = True`` in
  ``server.py``), compresses on request where that module turns it on: the finding is
  there, the base's entry related. Turned on in the base itself, it stays at the base.
- A Django project kept to test or demonstrate the app (``testproject/``,
  ``demo_project/``) is a developer's, as ``demo/`` is: not audited. A project folder of
  another name is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- django-compressor turned on where production imports the base --------------------------

BASE = """\
INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "compressor",
]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
{enabled}"""
SERVER = """\
from .base import *

DEBUG = False
COMPRESS_ENABLED = True
"""


def test_compression_turned_on_by_the_production_module_is_found_there(tmp_path: Path) -> None:
    files = {
        # Left to its default in the base (on when DEBUG is off).
        "site/settings/base.py": BASE.format(enabled=""),
        "site/settings/server.py": SERVER,
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("site/settings/server.py", 4)]
    assert ("site/settings/base.py", 3) in [(r.path, r.line) for r in found[0].related]


def test_compression_turned_on_in_the_base_is_found_at_the_base(tmp_path: Path) -> None:
    files = {
        "site/settings/base.py": BASE.format(enabled="COMPRESS_ENABLED = True\n"),
        "site/settings/server.py": "from .base import *\n\nDEBUG = False\n",
    }
    assert where(scan(tmp_path, files, "settings")) == [("site/settings/base.py", 6)]


# -- a project kept to test or demonstrate the app -----------------------------------------

MEDIA_URLS = """\
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = [
    re_path(r"^m/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
]
"""


@pytest.mark.parametrize("folder", ["testproject", "demo_project", "example-site"])
def test_a_test_or_demo_project_is_not_audited(tmp_path: Path, folder: str) -> None:
    files = {f"{folder}/{folder}/urls.py": MEDIA_URLS}
    assert scan(tmp_path, files, "file-write") == []


def test_a_project_folder_of_another_name_is_audited(tmp_path: Path) -> None:
    found = scan(tmp_path, {"forum/forum/urls.py": MEDIA_URLS}, "file-write")
    assert where(found) == [("forum/forum/urls.py", 6)]
