"""Classes of the twenty-seventh round (issue 14), each with a true case and a safe twin.

They came from the forty-first and forty-second labelled groups (open-discussions,
aggregator-api, network-pulse-api, trade-remedies-public, money-to-prisoners-bank-admin;
tilavarauspalvelu-core, edx-analytics-data-api, directory-forms-api), measured once before
any of them was written.

- uWSGI's YAML config (a top-level ``uwsgi:``) is read like its ini: a ``static-map`` of
  media serves uploads from this host's disk.
- A function that runs a profiler writes its report: this process's own.
- A start script named for development (``run-django-dev.sh``) is a developer's.
- django-environment-config's ``Environment`` classes are read like django-configurations'
  ``Configuration``; a setting a configuration class computes with a ``@classproperty`` is
  set.
- A number (``os.getenv("CONN_MAX_AGE", "0")``) is no address.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- uWSGI in YAML --------------------------------------------------------------------------

UWSGI_YAML = """\
uwsgi:
  http-socket: :8000
  module: config.wsgi
  static-map: {mapping}
  processes: 4
"""


def test_a_yaml_uwsgi_static_map_of_media_is_found(tmp_path: Path) -> None:
    files = {"docker/uwsgi.yml": UWSGI_YAML.format(mapping="$(MEDIA_URL)=$(MEDIA_ROOT)")}
    assert where(scan(tmp_path, files, "file-write")) == [("docker/uwsgi.yml", 4)]


def test_a_yaml_uwsgi_static_map_of_static_files_is_silent(tmp_path: Path) -> None:
    files = {"docker/uwsgi.yml": UWSGI_YAML.format(mapping="/static=/srv/static")}
    assert scan(tmp_path, files, "file-write") == []


# -- a profiler's report ----------------------------------------------------------------

PROFILING = """\
from pathlib import Path

from pyinstrument import Profiler


class ProfilerMiddleware:
    def __call__(self, request):
        {start}
        response = self.get_response(request)
        output = {report}
        with Path("graphql-report.html").open(mode="w") as file:
            file.write(output)
        return response
"""


def test_a_profilers_report_is_silent(tmp_path: Path) -> None:
    source = PROFILING.format(
        start="profiler = Profiler()\n        profiler.start()",
        report="profiler.stop().output_html()",
    )
    assert scan(tmp_path, {"config/middleware.py": source}, "file-write") == []


def test_the_same_write_without_a_profiler_is_found(tmp_path: Path) -> None:
    source = PROFILING.format(start="pass", report="response.content.decode()")
    found = scan(tmp_path, {"config/middleware.py": source}, "file-write")
    assert where(found) == [("config/middleware.py", 11)]


# -- a development start script ----------------------------------------------------------

START = """\
#!/usr/bin/env bash
set -e
python3 manage.py migrate --noinput
uwsgi uwsgi.ini --honour-stdin
"""


def test_a_start_script_named_for_development_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"scripts/run-django-dev.sh": START}, "boot-migrate") == []


def test_the_same_start_as_an_entrypoint_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"scripts/run-django.sh": START}, "boot-migrate")
    assert where(found) == [("scripts/run-django.sh", 3)]


# -- django-environment-config classes ----------------------------------------------------

ENVIRONMENTS = """\
from env_config import Environment, values
from env_config.decorators import classproperty


class Common(Environment):
    INSTALLED_APPS = ["django.contrib.staticfiles"]
    STORAGES = {{
        "default": {{"BACKEND": "django.core.files.storage.FileSystemStorage"}},
        "staticfiles": {{"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"}},
    }}
    CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}


class Platta(Common):
{platta}


class Local(Common):
    DEBUG = True


class Production(Platta):
    pass
"""
S3 = """\
    STORAGES = {
        "default": {"BACKEND": "storages.backends.s3.S3Storage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
    }"""


def test_an_environment_class_chain_is_read_as_production_runs_it(tmp_path: Path) -> None:
    source = ENVIRONMENTS.format(platta="    DEBUG = False")
    found = scan(tmp_path, {"config/settings.py": source}, "settings")
    assert ("config/settings.py", 8) in where(found)


def test_the_production_chains_own_storage_replaces_the_commons(tmp_path: Path) -> None:
    source = ENVIRONMENTS.format(platta=S3)
    found = scan(tmp_path, {"config/settings.py": source}, "settings")
    assert [f for f in found if "STORAGES" in f.message] == []


CACHE_STATE = """\
from django.core.cache import cache


def count_login(user_id):
    cache.incr(f"logins:{user_id}")
"""
PROPERTY_CACHES = """\
from configurations import Configuration
from env_config.decorators import classproperty


class Common(Configuration):
    INSTALLED_APPS = ["django.contrib.staticfiles"]


class Production(Common):
{body}
"""
COMPUTED = """\
    @classproperty
    def CACHES(cls):
        return {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": cls.REDIS}}
"""


def test_caches_computed_by_a_classproperty_are_set(tmp_path: Path) -> None:
    files = {
        "config/settings.py": PROPERTY_CACHES.format(body=COMPUTED),
        "accounts/limits.py": CACHE_STATE,
    }
    found = scan(tmp_path, files, "settings")
    assert [f for f in found if "CACHES" in f.message] == []


def test_caches_nowhere_set_are_found(tmp_path: Path) -> None:
    files = {
        "config/settings.py": PROPERTY_CACHES.format(body="    DEBUG = False"),
        "accounts/limits.py": CACHE_STATE,
    }
    found = scan(tmp_path, files, "settings")
    assert [f.message.split(":")[0] for f in found if "CACHES" in f.message] == [
        "CACHES is not set, so Django uses LocMemCache"
    ]


# -- a number is no address -------------------------------------------------------------

NUMBER = """\
import os

from configurations import values

INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
DATABASES = values.DatabaseURLValue({argument})
"""


def test_a_numeric_default_is_no_address(tmp_path: Path) -> None:
    source = NUMBER.format(argument='conn_max_age=int(os.getenv("CONN_MAX_AGE", "0"))')
    found = scan(tmp_path, {"site/settings.py": source}, "settings")
    assert [f for f in found if "DATABASES" in f.message] == []


def test_an_address_default_is_found(tmp_path: Path) -> None:
    source = NUMBER.format(argument='os.getenv("DATABASE_URL", "postgres://localhost/app")')
    found = scan(tmp_path, {"site/settings.py": source}, "settings")
    assert where([f for f in found if "DATABASES" in f.message]) == [("site/settings.py", 7)]
