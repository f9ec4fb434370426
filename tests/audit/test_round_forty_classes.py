"""Classes of the fortieth round (issue 14), each with a true case and a safe twin.

They came from the seventy-first and seventy-second labelled groups (wazimap-ng,
municipal-data, votainteligente-portal-electoral, represent-canada; c3nav, frepple,
etools-datamart, un-partner-portal), measured once after the thirty-ninth round and
before any of these was written, and from tecken (tuning).

- A project's own subclass of ``LocMemCache`` named as a cache backend keeps its entries
  in the process, as ``LocMemCache`` does.
- A shared storage a production module chooses only when options are set is related to
  the base's media-root finding: the options are where the fix goes.
- A file a deploy renders (``nginx-site.conf.j2``) is read as what it renders to.
- An option read with a boolean parser and the default ``"false"`` is off by default.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BACKENDS = """\
from django.core.cache.backends.locmem import LocMemCache
from django_redis.cache import RedisCache


class DummyRedisCache(LocMemCache):
    def keys(self, pattern):
        return []


class TracedRedisCache(RedisCache):
    pass
"""
CACHES = """\
INSTALLED_APPS = ["common"]
CACHES = {{"default": {{"BACKEND": "common.cache_backends.{name}", "LOCATION": "unpp"}}}}
"""


def _caches(found: list) -> list:
    return [f for f in found if f.message.startswith("CACHES")]


def test_a_project_locmem_subclass_as_the_cache_is_found(tmp_path: Path) -> None:
    files = {
        "common/cache_backends.py": BACKENDS,
        "app/settings.py": CACHES.format(name="DummyRedisCache"),
    }
    assert where(_caches(scan(tmp_path, files, "settings"))) == [("app/settings.py", 2)]


def test_a_project_redis_subclass_as_the_cache_is_silent(tmp_path: Path) -> None:
    files = {
        "common/cache_backends.py": BACKENDS,
        "app/settings.py": CACHES.format(name="TracedRedisCache"),
    }
    assert _caches(scan(tmp_path, files, "settings")) == []


BASE = """\
INSTALLED_APPS = ["app"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
MEDIA_ROOT = "/data/uploads"
"""
PROD = """\
import os

from .base import *

AZURE_ACCOUNT_NAME = os.environ.get("AZURE_ACCOUNT_NAME", None)
{choice}
"""


def _media(found: list) -> list:
    return [f for f in found if f.message.startswith("MEDIA_ROOT")]


def test_a_storage_production_chooses_on_an_option_is_related(tmp_path: Path) -> None:
    azure = "storages.backends.azure_storage.AzureStorage"
    choice = f'if AZURE_ACCOUNT_NAME:\n    DEFAULT_FILE_STORAGE = "{azure}"'
    files = {"app/settings/base.py": BASE, "app/settings/prod.py": PROD.format(choice=choice)}
    (finding,) = _media(scan(tmp_path, files, "settings"))
    related = [(r.path, r.line) for r in finding.related]
    assert ("app/settings/prod.py", 7) in related and ("app/settings/prod.py", 6) in related


def test_without_that_choice_nothing_of_production_is_related(tmp_path: Path) -> None:
    files = {"app/settings/base.py": BASE, "app/settings/prod.py": PROD.format(choice="")}
    (finding,) = _media(scan(tmp_path, files, "settings"))
    assert [r.path for r in finding.related if r.path.endswith("prod.py")] == []


NGINX = """\
server {
    listen 80;
    location /api/uploads/ {
        alias {{ data_dir }}/uploads/;
    }
}
"""


def test_a_rendered_nginx_site_serving_uploads_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"proxy/nginx-site.conf.j2": NGINX}, "file-write")
    assert where(found) == [("proxy/nginx-site.conf.j2", 3)]


def test_a_provisioning_roles_rendered_site_is_not_read(tmp_path: Path) -> None:
    found = scan(tmp_path, {"ansible/roles/web/nginx-site.conf.j2": NGINX}, "file-write")
    assert found == []


TOOLS = """\
from everett.manager import ConfigManager

_config = ConfigManager.basic_config()
INSTALLED_APPS = ["app"]
TOOL_ENV = _config("TOOL_ENV", default="{default}", parser=bool)
if TOOL_ENV:
    CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}}}
else:
    CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
"""


def test_a_branch_under_a_false_boolean_option_is_not_productions(tmp_path: Path) -> None:
    settings = TOOLS.format(default="false")
    assert _caches(scan(tmp_path, {"app/settings.py": settings}, "settings")) == []


def test_the_same_branch_under_a_true_boolean_option_is(tmp_path: Path) -> None:
    settings = TOOLS.format(default="true")
    assert where(_caches(scan(tmp_path, {"app/settings.py": settings}, "settings"))) == [
        ("app/settings.py", 7)
    ]
