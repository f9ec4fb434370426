"""Classes of the forty-seventh round (issue 14), each with a true case and a safe twin.

They came from the eighty-sixth and eighty-seventh labelled groups (ds-wagtail,
ds-caselaw-editor-ui, ds-catalogue, help-to-heat-GBIS; nhsx-website, ds-feedback),
measured once after the forty-sixth round and before any of these was written.

- A database alias whose ``NAME`` comes from the environment with an empty default is
  one the deployment must fill in, but a ``HOST`` written as ``localhost`` beside it is
  what production gets unless it sets that too.
- A name bound to an empty environment default (``REDIS_HOST = os.environ.get(
  "REDIS_HOST", "")``) is an empty host in the URLs built from it: this host's.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DATABASES = """\
import os

INSTALLED_APPS = ["app"]
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("POSTGRES_DB", ""),
        "HOST": os.environ.get("POSTGRES_HOST", "{host}"),
    }}
}}
"""


def test_a_localhost_default_beside_a_name_to_fill_in_is_found(tmp_path: Path) -> None:
    settings = DATABASES.format(host="localhost")
    found = scan(tmp_path, {"config/settings.py": settings}, "settings")
    assert where(found) == [("config/settings.py", 8)]


def test_an_empty_host_beside_a_name_to_fill_in_is_silent(tmp_path: Path) -> None:
    settings = DATABASES.format(host="")
    assert scan(tmp_path, {"config/settings.py": settings}, "settings") == []


CACHES = """\
import os

INSTALLED_APPS = ["app"]
REDIS_HOST = os.environ.get("REDIS_HOST", "{host}")
REDIS_URL = f"redis://{{REDIS_HOST}}:6379"
CACHES = {{
    "default": {{
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"{{REDIS_URL}}/1",
    }}
}}
"""


def test_a_cache_url_built_on_an_empty_host_default_is_found(tmp_path: Path) -> None:
    settings = CACHES.format(host="")
    found = scan(tmp_path, {"config/settings.py": settings}, "settings")
    assert [path for path, _ in where(found)] == ["config/settings.py"]


def test_a_cache_url_built_on_a_named_host_default_is_silent(tmp_path: Path) -> None:
    settings = CACHES.format(host="redis.internal")
    assert scan(tmp_path, {"config/settings.py": settings}, "settings") == []
