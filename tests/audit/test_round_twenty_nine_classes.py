"""Classes of the twenty-ninth round (issue 14), each with a true case and a safe twin.

- A settings module that star-imports its base and extends it (``INSTALLED_APPS +=``,
  its own ``ROOT_URLCONF``) is a settings module whatever its folder is called
  (``conf/caseworker.py``): what it sets is production's, so the base's missing
  ``CACHES`` is not reported when every such module sets it.
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
