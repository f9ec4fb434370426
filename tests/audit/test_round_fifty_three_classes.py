"""Classes of the fifty-third round (issue 14), each with a true case and a safe twin.

They came from the hundredth and hundred-and-first labelled groups (open-vtb,
open-product, catalogi-importer; kuvaselaamo, omahelsinki, stringprint2), measured once
after the fifty-second round and before any of these was written.

- A settings module that star-imports its package's base (``from .base import *``) and
  then only tweaks it (``SESSION_ENGINE``), or only sets the environment for it
  (``staging.py``), is a settings module.
- ``os.environ.setdefault("CACHE_DEFAULT", "127.0.0.1:6379/2")`` where no module of the
  tree reads the name (an installed package's base does) names this host's service.
- django-compressor's finding has the template's ``{% compress %}`` related.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = """\
from open_api_framework.conf.base import *  # noqa

INSTALLED_APPS = INSTALLED_APPS + ["products"]
ROOT_URLCONF = "products.urls"
"""
PRODUCTION = """\
import os

os.environ.setdefault("CACHE_DEFAULT", "{default}")

from .base import *  # noqa

SESSION_ENGINE = "django.contrib.sessions.backends.cache"
"""
STAGING = """\
import os

os.environ.setdefault("CACHE_DEFAULT", "{default}")

from .production import *  # noqa
"""


def _findings(tmp_path: Path, default: str) -> list:
    files = {
        "src/products/conf/base.py": BASE,
        "src/products/conf/production.py": PRODUCTION.format(default=default),
        "src/products/conf/staging.py": STAGING.format(default=default.replace("/2", "/1")),
    }
    found = scan(tmp_path, files, "settings")
    return [f for f in found if f.message.startswith("CACHE_DEFAULT")]


def test_a_setdefault_an_installed_base_reads_is_found_in_each_module(tmp_path: Path) -> None:
    # Staging copies production's default and star-imports it: one root cause, found at
    # production with staging's line related (the fifty-fifth round).
    found = _findings(tmp_path, "127.0.0.1:6379/2")
    assert where(found) == [("src/products/conf/production.py", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("src/products/conf/staging.py", 3)]


def test_a_setdefault_naming_a_shared_server_is_silent(tmp_path: Path) -> None:
    assert _findings(tmp_path, "redis.internal:6379/2") == []


COMPRESSOR = """\
INSTALLED_APPS = ["django.contrib.staticfiles", "compressor"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
COMPRESS_ENABLED = True
"""
BASE_HTML = """\
{% load compress %}
<head>
{% compress css %}<link rel="stylesheet" href="/static/site.scss">{% endcompress %}
</head>
"""


def test_the_compress_tag_is_related_to_the_compressor_finding(tmp_path: Path) -> None:
    files = {"site/settings.py": COMPRESSOR, "site/templates/base.html": BASE_HTML}
    found = [f for f in scan(tmp_path, files, "settings") if "COMPRESS_OFFLINE" in f.message]
    assert where(found) == [("site/settings.py", 3)]
    assert ("site/templates/base.html", 3) in [(r.path, r.line) for r in found[0].related]


def test_templates_without_the_tag_leave_compression_silent(tmp_path: Path) -> None:
    plain = BASE_HTML.replace("{% compress css %}", "").replace("{% endcompress %}", "")
    files = {"site/settings.py": COMPRESSOR, "site/templates/base.html": plain}
    found = [f for f in scan(tmp_path, files, "settings") if "COMPRESS_OFFLINE" in f.message]
    assert found == []
