"""Classes of the seventeenth round (issue 14), each with a true case and a safe twin.

- A settings module with a star import the scan cannot read (an installed package's
  settings) may have any setting set for it, and Django's defaults are not judged there;
  but a setting the module itself assigns only in a branch that is off when nothing is
  set (``if USE_S3: STORAGES = …`` with ``USE_S3`` false by default) is decided by the
  module: production gets Django's default (uploads on this host's disk, ``LocMemCache``).
- Uploads served from this host's folder by the web server are one cause, however many
  configs say so (a production and a staging nginx, uWSGI's ``static-map`` beside them):
  one finding, the other places related. A config that serves only static files adds
  nothing.
- ``MEDIA_ROOT`` with no storage (or a local default storage) matters only where the
  project stores files: a file or image field, ``default_storage``, ``request.FILES``,
  ``MEDIA_ROOT`` in code (not the project template's ``static(…, document_root=
  settings.MEDIA_ROOT)`` in ``urls.py``), or an installed app that stores uploads
  (Wagtail's images, django-filer, …). A project whose code shows none of these, once its
  models were read, stores nothing there, and is not told to move it.
- A folder named for tests (``test_framework/``, ``tests_e2e/``, ``shuup_tests/``,
  ``selenium-tests/``) holds tests and their support, as a ``tests/`` folder does: not
  audited. A folder whose name merely contains "test" (``latest/``, ``contest/``) is.
- A script named for the server it starts (``python3 ./gunicorn_run.py``,
  ``./run-uwsgi.sh``) is the server: ``migrate && … && python3 ./gunicorn_run.py`` in a
  compose service migrates at every container start. Chained before another script
  (``load_fixtures.py``) it is a one-off job's.
- A Kubernetes workload whose celery worker embeds beat (``worker --beat``, ``-B``) starts
  a scheduler in every replica; so does a Helm chart's ``values.yaml`` that gives a
  container that command. A Job, a worker without beat, and a values file outside a
  chart are silent.
- A memo on a method of an object Django makes anew for every request (a class-based
  view, a serializer, a form: ``@functools.cache def get_root_object(self)``) has
  ``self`` in every key and lives one request: not a per-process memo. The same memo on
  a long-lived object's method is.
- A salt, a signing key or an encryption key other than ``SECRET_KEY`` generated at
  start-up when the environment does not give one (``HASHID_FIELD_SALT = env(…,
  default=get_random_string(50))``): what one instance salts, signs or encrypts, no
  other matches. Read from the environment alone, or a setting that names a secret's
  file, it is silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- a default decided in an off-by-default branch, below an unreadable star import ------

VENDOR_SETTINGS = """\
import os

from vendor_toolkit.settings.celery import *  # noqa: F403

INSTALLED_APPS = ["django.contrib.contenttypes", "app"]
MEDIA_ROOT = os.environ.get("MEDIA_ROOT", "/var/media/")
USE_S3 = os.environ.get("USE_S3", "{default}") == "true"
if USE_S3:
    STORAGES = {{"default": {{"BACKEND": "storages.backends.s3.S3Storage"}}}}
"""


def test_storage_chosen_only_behind_an_option_under_an_unread_star_import(
    tmp_path: Path,
) -> None:
    files = {"app/settings.py": VENDOR_SETTINGS.format(default="false")}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 6)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")


@pytest.mark.parametrize(
    "source",
    [
        VENDOR_SETTINGS.format(default="true"),  # the branch is production's
        # No STORAGES anywhere in the module: the unread import may set it.
        VENDOR_SETTINGS.format(default="false").split("USE_S3 =")[0],
    ],
    ids=["on-by-default", "not-decided-here"],
)
def test_storage_left_to_an_unread_star_import_is_not_judged(tmp_path: Path, source: str) -> None:
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


# -- one finding for uploads served from this host's folder ---------------------------------

NGINX_MEDIA = """\
server {{
    listen 80;
    location /{path}/ {{
        alias /srv/app/{path}/;
    }}
}}
"""
UWSGI_MEDIA = "[uwsgi]\nmodule = app.wsgi\nstatic-map = /media=/srv/app/media\n"


def test_media_served_from_disk_by_several_configs_is_one_finding(tmp_path: Path) -> None:
    files = {
        "deploy/nginx/prod.conf": NGINX_MEDIA.format(path="media"),
        "deploy/nginx/staging.conf": NGINX_MEDIA.format(path="media"),
        "deploy/uwsgi.ini": UWSGI_MEDIA,
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("deploy/nginx/prod.conf", 3)]
    related = {(r.path, r.line) for r in found[0].related}
    assert {("deploy/nginx/staging.conf", 3), ("deploy/uwsgi.ini", 3)} <= related


def test_a_config_serving_only_static_files_adds_nothing(tmp_path: Path) -> None:
    files = {
        "deploy/nginx/prod.conf": NGINX_MEDIA.format(path="media"),
        "deploy/nginx/assets.conf": NGINX_MEDIA.format(path="static"),
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("deploy/nginx/prod.conf", 3)]
    assert [r.path for r in found[0].related] == ["deploy/nginx/prod.conf"]


# -- the default storage of a project that stores no files -------------------------------

UPLOAD_SETTINGS = """\
INSTALLED_APPS = ["django.contrib.contenttypes", "app"{apps}]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
MEDIA_ROOT = "/srv/media"
"""
MODELS = """\
from django.db import models


class Invoice(models.Model):
    number = models.CharField(max_length=20)
{field}"""
TEMPLATE_URLS = """\
from django.conf import settings
from django.conf.urls.static import static

urlpatterns = [] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
"""


@pytest.mark.parametrize(
    ("apps", "field"),
    [
        ("", "    scan = models.FileField(upload_to='scans/')\n"),
        (', "wagtail.images"', ""),
    ],
    ids=["file-field", "upload-app"],
)
def test_media_root_without_storage_where_the_project_stores_files(
    tmp_path: Path, apps: str, field: str
) -> None:
    files = {
        "app/settings.py": UPLOAD_SETTINGS.format(apps=apps),
        "app/models.py": MODELS.format(field=field),
        "app/urls.py": TEMPLATE_URLS,
    }
    found = scan(tmp_path, files, "settings")
    assert [f.message.split(" ", 1)[0] for f in found] == ["MEDIA_ROOT"]


def test_media_root_without_storage_where_nothing_is_stored(tmp_path: Path) -> None:
    files = {
        "app/settings.py": UPLOAD_SETTINGS.format(apps=""),
        "app/models.py": MODELS.format(field=""),
        "app/urls.py": TEMPLATE_URLS,
    }
    assert scan(tmp_path, files, "settings") == []


# -- folders named for tests ---------------------------------------------------------------

REPORT_WRITE = """\
def export(request, rows):
    with open("/srv/reports/latest.csv", "w") as out:
        out.write(render(rows))
"""


@pytest.mark.parametrize("folder", ["test_framework", "tests_e2e", "shop_tests", "load-test"])
def test_a_folder_named_for_tests_is_not_audited(tmp_path: Path, folder: str) -> None:
    assert scan(tmp_path, {f"{folder}/harness.py": REPORT_WRITE}) == []


@pytest.mark.parametrize("folder", ["contest", "latest", "attestation"])
def test_a_folder_whose_name_contains_test_is_audited(tmp_path: Path, folder: str) -> None:
    found = scan(tmp_path, {f"{folder}/harness.py": REPORT_WRITE})
    assert [f.path for f in found] == [f"{folder}/harness.py"]


# -- a script named for the server it starts ------------------------------------------------

COMPOSE_START = """\
services:
  web:
    image: shop
    command: ["python manage.py migrate --no-input && cd /app && python3 ./{script}"]
"""


@pytest.mark.parametrize("script", ["gunicorn_run.py", "run-uwsgi.sh"])
def test_migrate_before_a_script_named_for_the_server(tmp_path: Path, script: str) -> None:
    found = scan(tmp_path, {"docker-compose.yml": COMPOSE_START.format(script=script)})
    assert [(f.category, f.line) for f in found] == [("boot-migrate", 4)]


def test_migrate_before_another_script_is_a_one_off(tmp_path: Path) -> None:
    files = {"docker-compose.yml": COMPOSE_START.format(script="load_fixtures.py")}
    assert scan(tmp_path, files) == []


# -- celery beat embedded in every pod ------------------------------------------------------

WORKLOAD = """\
apiVersion: {api}
kind: {kind}
metadata:
  name: worker
spec:
  template:
    spec:
      containers:
        - name: worker
          image: shop
          command: ["celery", "-A", "shop", "worker", {flag}"-l", "info"]
"""
CHART_VALUES = """\
tasks:
  command:
    - celery
    - -A
    - shop
    - worker
    - {flag}
"""


@pytest.mark.parametrize("flag", ['"--beat", ', '"-B", '])
def test_a_deployment_whose_worker_embeds_beat(tmp_path: Path, flag: str) -> None:
    files = {"k8s/worker.yaml": WORKLOAD.format(api="apps/v1", kind="Deployment", flag=flag)}
    found = scan(tmp_path, files)
    assert [(f.category, f.line) for f in found] == [("scheduler", 11)]


@pytest.mark.parametrize(
    ("kind", "flag"), [("Job", '"--beat", '), ("Deployment", "")], ids=["job", "no-beat"]
)
def test_a_job_or_a_worker_without_beat_is_silent(tmp_path: Path, kind: str, flag: str) -> None:
    api = "batch/v1" if kind == "Job" else "apps/v1"
    files = {"k8s/worker.yaml": WORKLOAD.format(api=api, kind=kind, flag=flag)}
    assert scan(tmp_path, files) == []


def test_a_chart_values_file_whose_worker_embeds_beat(tmp_path: Path) -> None:
    files = {"charts/shop/values.yaml": CHART_VALUES.format(flag="--beat")}
    found = scan(tmp_path, files)
    assert [(f.category, f.line) for f in found] == [("scheduler", 7)]


@pytest.mark.parametrize(
    ("path", "flag"),
    [("charts/shop/values.yaml", "--loglevel=info"), ("config/values.yaml", "--beat")],
    ids=["no-beat", "not-a-chart"],
)
def test_values_without_beat_or_outside_a_chart_are_silent(
    tmp_path: Path, path: str, flag: str
) -> None:
    assert scan(tmp_path, {path: CHART_VALUES.format(flag=flag)}) == []


# -- a memo on a per-request object's method ------------------------------------------------

MEMO_METHOD = """\
import functools

from rest_framework.generics import DestroyAPIView

from shop.models import Invoice


class {name}({base}):
    @functools.cache
    def get_root_object(self):
        return Invoice.objects.filter(pk=self.kwargs["pk"]).first()
"""


def test_a_memo_on_a_long_lived_objects_method(tmp_path: Path) -> None:
    source = MEMO_METHOD.format(name="InvoiceRegistry", base="object")
    found = scan(tmp_path, {"shop/registry.py": source}, "cache")
    assert where(found) == [("shop/registry.py", 9)]


@pytest.mark.parametrize(
    ("name", "base"),
    [("InvoiceDeleteView", "DestroyAPIView"), ("InvoiceRoot", "DestroyAPIView")],
    ids=["named-view", "a-view-by-its-base"],
)
def test_a_memo_on_a_views_method_lives_one_request(tmp_path: Path, name: str, base: str) -> None:
    source = MEMO_METHOD.format(name=name, base=base)
    assert scan(tmp_path, {"shop/views.py": source}, "cache") == []


# -- a salt or signing key generated at start-up -----------------------------------------

SALTED_SETTINGS = """\
import os

from django.utils.crypto import get_random_string

INSTALLED_APPS = ["shop"]
SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
{line}
"""


@pytest.mark.parametrize(
    "line",
    [
        'HASHID_FIELD_SALT = os.environ.get("HASHID_SALT", get_random_string(50))',
        "JWT_SIGNING_KEY = os.getenv('JWT_KEY') or get_random_string(64)",
    ],
    ids=["salt", "signing-key"],
)
def test_a_shared_secret_generated_at_start_up(tmp_path: Path, line: str) -> None:
    found = scan(tmp_path, {"shop/settings.py": SALTED_SETTINGS.format(line=line)}, "settings")
    assert where(found) == [("shop/settings.py", 7)]
    assert "generated at start-up" in found[0].message


@pytest.mark.parametrize(
    "line",
    [
        'HASHID_FIELD_SALT = os.environ["HASHID_SALT"]',
        'SALT_FILE = "/run/secrets/salt-" + get_random_string(4)',
        "REQUEST_ID_PREFIX = get_random_string(8)",
    ],
    ids=["from-the-environment", "a-secrets-file", "not-a-secret"],
)
def test_a_shared_secret_from_the_environment_is_silent(tmp_path: Path, line: str) -> None:
    files = {"shop/settings.py": SALTED_SETTINGS.format(line=line)}
    assert scan(tmp_path, files, "settings") == []
