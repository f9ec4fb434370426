"""Classes of the thirty-ninth round (issue 14), each with a true case and a safe twin.

They came from the sixty-eighth to seventieth labelled groups (directory-ui-export-readiness,
events-helsinki-cms, hel-data-pipe, inventory; open-notificaties, objecttypes-api, dso-api,
zaken-backend; casepro, ureport, tracpro, bluebutton-web-server), each measured once
before any of these was written.

- django-redis's ``host:port:db`` LOCATION (``127.0.0.1:6379:1``, from before it took
  URLs) names its host.
- ``DATABASES["default"].update({...})`` at a settings module's top level sets those keys,
  as an assignment does.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

CACHE = """\
INSTALLED_APPS = ["app"]
REDIS_CACHE_DATABASE = 3
CACHES = {{
    "default": {{
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": {location},
    }},
}}
"""


def _caches(found: list) -> list:
    return [f for f in found if f.message.startswith("CACHES")]


def test_an_old_form_redis_location_on_this_host_is_found(tmp_path: Path) -> None:
    settings = CACHE.format(location='"127.0.0.1:6379:%d" % REDIS_CACHE_DATABASE')
    found = _caches(scan(tmp_path, {"app/settings.py": settings}, "settings"))
    assert where(found) == [("app/settings.py", 6)]


def test_an_old_form_redis_location_elsewhere_is_silent(tmp_path: Path) -> None:
    settings = CACHE.format(location='"redis.internal:6379:%d" % REDIS_CACHE_DATABASE')
    assert _caches(scan(tmp_path, {"app/settings.py": settings}, "settings")) == []


BASE = """\
INSTALLED_APPS = ["app"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql"}}
"""
DEPLOY = """\
import os

from .base import *

ALLOWED_HOSTS = [".example.org"]
DATABASES["default"].update({{
    "NAME": os.environ.get("DB_NAME", "app"),
    "HOST": os.environ.get("DB_HOST", {host}),
}})
"""


def test_an_empty_host_merged_in_with_update_is_found(tmp_path: Path) -> None:
    files = {"app/settings/base.py": BASE, "app/settings/deploy.py": DEPLOY.format(host='""')}
    found = [f for f in scan(tmp_path, files, "settings") if "HOST" in f.message]
    assert where(found) == [("app/settings/deploy.py", 8)]


def test_a_host_merged_in_with_update_is_silent(tmp_path: Path) -> None:
    files = {"app/settings/base.py": BASE, "app/settings/deploy.py": DEPLOY.format(host='"db"')}
    assert [f for f in scan(tmp_path, files, "settings") if "HOST" in f.message] == []
