"""Classes of the eighteenth round (issue 14), each with a true case and a safe twin.

They came from the twenty-eighth labelled group (pootle, takahe, hurumap, les-emplois,
openprescribing), measured once before any of them was written.

- Django's settings imported under another name (``from django.conf import settings as
  djsettings``) name the same folders: a URL pattern that serves
  ``djsettings.MEDIA_ROOT`` serves uploads from this host's disk. Its static files are
  in every image: silent.
- python-diskcache's ``diskcache.DjangoCache`` keeps its entries in SQLite and files on
  this host, as ``FileBasedCache`` does (the audit's W109 and the deploy check W002); the
  folder in a file cache's ``LOCATION`` is not also a server "on this host".
- A memo on a method that reads ``self.request`` lives one request, whatever its class is
  called (a view mixin): ``self`` is in every key. The same memo on a method that does
  not read the request is per process.
- A web server config that serves ``/media/`` from this host's folder matters only where
  the project stores files: with no file field, no ``default_storage``, no upload app
  once its models were read, the folder holds the assets the image ships.
- A write at a module's top level to a path relative to the working directory
  (``with open("schema.csv", "w")``) is a script run by hand in its folder; the same
  write inside a function the application calls, or to an absolute path, is reported.
- A module that implements a staticfiles finder runs in ``collectstatic``, a build step:
  what it writes is in the image before any request. The same code outside a finder is
  reported.
- A file an exec probe reads in the same container (``liveness_file``, ``/tmp/healthy``)
  is this host's own, like a pid file: a file other requests read is reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- Django's settings under another name --------------------------------------------------

ALIASED_URLS = """\
from django.conf import settings as djsettings
from django.urls import re_path

from core.views import custom_static_serve

urlpatterns = [
    re_path(
        r"^media/(?P<path>.*)$",
        custom_static_serve,
        kwargs={{"document_root": djsettings.{root}}},
    ),
]
"""


def test_media_served_through_aliased_settings(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/urls.py": ALIASED_URLS.format(root="MEDIA_ROOT")}, "file-write")
    assert where(found) == [("site/urls.py", 10)]
    assert "MEDIA_ROOT" in found[0].message


def test_static_files_served_through_aliased_settings_are_silent(tmp_path: Path) -> None:
    files = {"site/urls.py": ALIASED_URLS.format(root="STATIC_ROOT")}
    assert scan(tmp_path, files, "file-write") == []


# -- python-diskcache's Django backend -----------------------------------------------------

CACHE_SETTINGS = """\
INSTALLED_APPS = ["django.contrib.contenttypes", "app"]
CACHES = {{"default": {{"BACKEND": "{backend}", "LOCATION": "{location}"}}}}
"""


def test_diskcache_is_a_cache_on_this_host(tmp_path: Path) -> None:
    source = CACHE_SETTINGS.format(backend="diskcache.DjangoCache", location="/var/cache/app")
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    # One finding: the folder is the backend's, not a server's address on this host.
    assert where(found) == [("app/settings.py", 2)]
    assert "diskcache" in found[0].message


def test_a_shared_cache_beside_it_is_silent(tmp_path: Path) -> None:
    source = CACHE_SETTINGS.format(
        backend="django_redis.cache.RedisCache", location="redis://cache.internal:6379/0"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


# -- a memo on a method that reads the request ---------------------------------------------

MIXIN_MEMO = """\
from functools import lru_cache

from shop.models import Unit


class UnitMixin(object):
    @lru_cache()
    def get_object(self):
        return Unit.objects.get(id={key})
"""


def test_a_memo_reading_the_request_lives_one_request(tmp_path: Path) -> None:
    source = MIXIN_MEMO.format(key='self.request.resolver_match.kwargs["uid"]')
    assert scan(tmp_path, {"shop/mixins.py": source}, "cache") == []


def test_a_memo_on_a_mixin_that_ignores_the_request(tmp_path: Path) -> None:
    found = scan(tmp_path, {"shop/mixins.py": MIXIN_MEMO.format(key="1")}, "cache")
    assert where(found) == [("shop/mixins.py", 7)]


# -- media served by the web server where nothing is stored ---------------------------------

NGINX = """\
server {
    location /media/ {
        alias /srv/app/media/;
    }
}
"""
PLAIN_MODELS = """\
from django.db import models


class Unit(models.Model):
    source = models.TextField()
{field}"""


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("    attachment = models.FileField(upload_to='units/')\n", [("deploy/nginx.conf", 2)]),
        ("", []),
    ],
    ids=["stores-files", "stores-nothing"],
)
def test_media_served_by_nginx_matters_where_files_are_stored(
    tmp_path: Path, field: str, expected: list[tuple[str, int]]
) -> None:
    files = {"deploy/nginx.conf": NGINX, "units/models.py": PLAIN_MODELS.format(field=field)}
    assert where(scan(tmp_path, files, "file-write")) == expected


# -- a script's top-level write in its own folder -------------------------------------------

TOP_LEVEL_WRITE = """\
import json

records = {{}}
with open({path!r}, "w") as f:
    json.dump(records, f)
"""
FUNCTION_WRITE = """\
import json


def save(records):
    with open("schema.json", "w") as f:
        json.dump(records, f)
"""


def test_a_top_level_write_to_a_relative_path_is_a_script(tmp_path: Path) -> None:
    files = {"dmd/gen_models/gen_view_schema.py": TOP_LEVEL_WRITE.format(path="view-schema.json")}
    assert scan(tmp_path, files, "file-write") == []


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("dmd/export.py", TOP_LEVEL_WRITE.format(path="/srv/data/view-schema.json")),
        ("dmd/export.py", FUNCTION_WRITE),
    ],
    ids=["absolute-path", "inside-a-function"],
)
def test_an_absolute_or_called_write_is_reported(tmp_path: Path, name: str, source: str) -> None:
    found = scan(tmp_path, {name: source}, "file-write")
    assert [f.path for f in found] == [name]


# -- a staticfiles finder, and a probe's file ----------------------------------------------

VENDORING_FINDER = """\
import shutil

from django.contrib.staticfiles.finders import BaseFinder

DESTINATION = "/srv/app/vendored"


def move(source, target):
    shutil.copy(source, f"{DESTINATION}/{target}")


class DownloadAndVendorFinder(BaseFinder):
    def list(self, ignore_patterns):
        move("/tmp/package/dist.js", "dist.js")
        return []
"""


def test_a_staticfiles_finder_runs_in_collectstatic(tmp_path: Path) -> None:
    assert scan(tmp_path, {"itou/utils/staticfiles.py": VENDORING_FINDER}, "file-write") == []
    plain = VENDORING_FINDER.replace(
        "from django.contrib.staticfiles.finders import BaseFinder\n", "BaseFinder = object\n"
    )
    found = scan(tmp_path / "b", {"itou/utils/vendor.py": plain}, "file-write")
    assert where(found) == [("itou/utils/vendor.py", 9)]


PROBED_RUNNER = """\
import time


class Runner:
    def __init__(self, {name}):
        self.{name} = {name}

    def tick(self):
        with open(self.{name}, "w") as fh:
            fh.write(str(int(time.time())))
"""


def test_a_file_an_exec_probe_reads_is_this_hosts_own(tmp_path: Path) -> None:
    # (``liveness_path``: a place of its object, so the probe's rule is what keeps it silent)
    source = PROBED_RUNNER.format(name="liveness_path")
    assert scan(tmp_path, {"stator/runner.py": source}, "file-write") == []


def test_a_file_other_requests_read_is_reported(tmp_path: Path) -> None:
    source = PROBED_RUNNER.format(name="results_path")
    found = scan(tmp_path, {"stator/runner.py": source}, "file-write")
    assert where(found) == [("stator/runner.py", 9)]


def test_a_file_whose_place_the_object_is_given_is_judged_where_it_is_given(
    tmp_path: Path,
) -> None:
    # ``self.results``, set from the constructor: the code that makes the runner says
    # where the file goes; the runner names no place of its own.
    source = PROBED_RUNNER.format(name="results")
    assert scan(tmp_path, {"stator/runner.py": source}, "file-write") == []
