"""Classes of the twenty-second round (issue 14), each with a true case and a safe twin.

They came from the thirty-second labelled group (regulations-site, peopledepot,
cove-ocds, fred-webwhois, standup), measured once before any of them was written.

- An nginx site in a ``.conf`` file of any name (``default.conf``, the name nginx's
  image gives it) is read by its ``server {`` block; a ``.conf`` file that is not an
  nginx site is not.
- A cache URL without the slashes (``locmem:default``), as django-cache-url also parses
  it, names the same backend as ``locmem://``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

NGINX_SITE = """\
server {
    listen 8080;

    location /media/ {
        root /data;
    }
}
"""
MODELS = """\
from django.db import models


class SuppliedData(models.Model):
    original_file = models.FileField(upload_to="uploads")
"""


def test_an_nginx_site_named_default_conf_is_read(tmp_path: Path) -> None:
    files = {"default.conf": NGINX_SITE, "cove/models.py": MODELS}
    assert where(scan(tmp_path, files, "file-write")) == [("default.conf", 4)]


def test_a_conf_file_that_is_no_nginx_site_is_not(tmp_path: Path) -> None:
    other = "[global]\nlocation /media/ {\n    root /data;\n}\n"
    files = {"default.conf": other, "cove/models.py": MODELS}
    assert scan(tmp_path, files, "file-write") == []


CACHE_SETTINGS = """\
import django_cache_url
from decouple import config

INSTALLED_APPS = ["standup"]
CACHES = {{"default": config("CACHE_URL", parser=django_cache_url.parse, default="{url}")}}
"""


@pytest.mark.parametrize("url", ["locmem:default", "locmem://default"])
def test_a_locmem_cache_url_with_or_without_slashes(tmp_path: Path, url: str) -> None:
    found = scan(tmp_path, {"standup/settings.py": CACHE_SETTINGS.format(url=url)}, "settings")
    assert where(found) == [("standup/settings.py", 5)]


def test_a_redis_cache_url_is_silent(tmp_path: Path) -> None:
    source = CACHE_SETTINGS.format(url="redis://cache.internal:6379/0")
    assert scan(tmp_path, {"standup/settings.py": source}, "settings") == []
