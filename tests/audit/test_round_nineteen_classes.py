"""Classes of the nineteenth round (issue 14), each with a true case and a safe twin.

They came from the twenty-ninth labelled group (remo, job-server, airmozilla,
mailarchive, qgis-django), measured once before any of them was written.

- A default django-environ's schema declares (``env = environ.Env(DB_HOST=(str, ""))``)
  is decided at the schema: the finding at the setting that reads it has the schema's line
  related. A default written at the call has nothing to relate.
- ``instance.<field>.file.name`` is the upload's local path on ``FileSystemStorage``, as
  ``.path`` is: opening it needs the file on this disk. A name not of a declared file
  field is not.
- An unpacked release of another project kept in the tree (``py-mysql2pgsql-0.1.5/``) is
  its author's code, as site-packages is: not audited. A folder named ``api-v2`` is ours.
- A Dockerfile stage named for development (``FROM base AS app-dev``) starts a
  development container: what its ``ENTRYPOINT`` script runs at start is not reported;
  the production stage's is.
- A ``build/`` folder that holds the project's image (``build/app/Dockerfile``) is read;
  a ``build/`` folder of a build's output is not.
- A start script that migrates twice (``migrate``, then ``migrate --database=other``) is
  one finding at its first ``migrate``, the second related.
- From the tuning projects: ``CACHES`` left unset matters where the code keeps shared
  state in the cache (an invalidation, a counter, a gate, a flag, a rate limit) or a
  command fills it for the requests; a memo (``get`` then ``set`` of a computed value) on
  a per-process cache only recomputes, and is not a reason to report it.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a default declared in django-environ's schema ------------------------------------------

SCHEMA_SETTINGS = """\
import environ

env = environ.Env(
    DEBUG=(bool, False),
    DATABASES_HOST=(str, ""),
)
INSTALLED_APPS = ["archive"]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "archive",
        "HOST": {host},
    }}
}}
"""


def test_a_schema_default_relates_the_schema_line(tmp_path: Path) -> None:
    source = SCHEMA_SETTINGS.format(host='env("DATABASES_HOST")')
    [found] = scan(tmp_path, {"archive/settings.py": source}, "settings")
    assert (found.path, found.line) == ("archive/settings.py", 13)
    assert [(r.path, r.line) for r in found.related] == [("archive/settings.py", 5)]


def test_a_default_written_at_the_call_relates_nothing(tmp_path: Path) -> None:
    source = SCHEMA_SETTINGS.format(host='env("DB_HOST", default="")')
    [found] = scan(tmp_path, {"archive/settings.py": source}, "settings")
    assert (found.line, found.related) == (13, ())


# -- an upload opened by its file's name ------------------------------------------------------

PACKAGE_MODELS = """\
from django.db import models


class PluginVersion(models.Model):
    package = models.FileField(upload_to="packages")
"""
DOWNLOAD_VIEW = """\
from django.http import HttpResponse


def download(request, version):
    archive = open(version.{attribute}.file.name, "rb")
    return HttpResponse(archive.read(), content_type="application/zip")
"""


def test_an_upload_opened_by_its_file_name_is_found(tmp_path: Path) -> None:
    files = {
        "plugins/models.py": PACKAGE_MODELS,
        "plugins/views.py": DOWNLOAD_VIEW.format(attribute="package"),
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("plugins/views.py", 5)]
    assert "package.file.name" in found[0].message


def test_a_file_name_not_of_a_file_field_is_silent(tmp_path: Path) -> None:
    files = {
        "plugins/models.py": PACKAGE_MODELS,
        "plugins/views.py": DOWNLOAD_VIEW.format(attribute="upload_form"),
    }
    assert scan(tmp_path, files, "file-write") == []


# -- another project's release kept in the tree -----------------------------------------------

EXPORTER = """\
def export(rows):
    with open("/srv/exports/latest.csv", "w") as out:
        out.write(str(rows))
"""


def test_an_unpacked_release_is_not_audited(tmp_path: Path) -> None:
    files = {"mysql2postgres/py-mysql2pgsql-0.1.5/mysql2pgsql/export.py": EXPORTER}
    assert scan(tmp_path, files, "file-write") == []


def test_a_versioned_folder_of_ours_is_audited(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/api-v2/export.py": EXPORTER}, "file-write")
    assert where(found) == [("app/api-v2/export.py", 2)]


# -- a development stage of a multi-stage Dockerfile ------------------------------------------

STAGED_DOCKERFILE = """\
FROM python:3.12 AS base
COPY . /app

FROM base AS job-server-prod
ENTRYPOINT ["/app/docker/entrypoints/prod.sh"]
CMD ["gunicorn", "jobserver.wsgi"]

FROM base AS job-server-dev
ENTRYPOINT ["/app/docker/entrypoints/dev.sh"]
"""
MIGRATING_ENTRYPOINT = '#!/bin/bash\nset -e\n./manage.py migrate\nexec "$@"\n'


def test_a_development_stages_entrypoint_is_silent_and_productions_found(
    tmp_path: Path,
) -> None:
    files = {
        "docker/Dockerfile": STAGED_DOCKERFILE,
        "docker/entrypoints/prod.sh": MIGRATING_ENTRYPOINT,
        "docker/entrypoints/dev.sh": MIGRATING_ENTRYPOINT,
    }
    found = scan(tmp_path, files, "boot-migrate")
    assert [f.path for f in found] == ["docker/entrypoints/prod.sh"]


# -- a build folder that holds the image ------------------------------------------------------

START_SCRIPT = """\
#!/bin/bash
./backend/manage.py migrate
./backend/manage.py migrate --database=blobdb
gunicorn backend.wsgi:application
"""


def test_a_build_folder_with_the_image_is_read(tmp_path: Path) -> None:
    files = {
        "build/app/Dockerfile": 'FROM python:3.12\nCOPY . .\nCMD ["./start.sh"]\n',
        "build/app/start.sh": START_SCRIPT,
    }
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("build/app/start.sh", 2)]
    # Two migrations in one script are one cause: the second is related.
    assert [(r.path, r.line) for r in found[0].related] == [("build/app/start.sh", 3)]


def test_a_build_output_folder_is_not_read(tmp_path: Path) -> None:
    files = {"build/lib/app/start.sh": START_SCRIPT}
    assert scan(tmp_path, files, "boot-migrate") == []


# -- the implicit LocMemCache where the code keeps state in the cache ------------------------

NO_CACHES = "INSTALLED_APPS = ['shop']\nDATABASES = {}\n"
MEMO = """\
from django.core.cache import cache


def price_list(currency):
    prices = cache.get(currency)
    if prices is None:
        prices = compute(currency)
        cache.set(currency, prices, 300)
    return prices
"""
INVALIDATION = MEMO + "\n\ndef forget(currency):\n    cache.delete(currency)\n"
FILLED_BY_A_COMMAND = """\
from django.core.cache import cache
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        cache.set("local_ids", load_ids(), None)
"""


def test_caches_unset_where_the_code_keeps_state_in_the_cache(tmp_path: Path) -> None:
    files = {"shop/settings.py": NO_CACHES, "shop/prices.py": INVALIDATION}
    found = scan(tmp_path, files, "settings")
    assert [f.message.split(",")[0] for f in found] == ["CACHES is not set"]


def test_caches_unset_where_a_command_fills_the_cache(tmp_path: Path) -> None:
    files = {
        "shop/settings.py": NO_CACHES,
        "shop/management/commands/fill_ids.py": FILLED_BY_A_COMMAND,
    }
    assert [f.path for f in scan(tmp_path, files, "settings")] == ["shop/settings.py"]


def test_caches_unset_where_the_code_only_memoises_is_silent(tmp_path: Path) -> None:
    files = {"shop/settings.py": NO_CACHES, "shop/prices.py": MEMO}
    assert scan(tmp_path, files, "settings") == []
