"""Classes of the forty-first round (issue 14), each with a true case and a safe twin.

They came from the seventy-third and seventy-fourth labelled groups
(seed-stage-based-messaging, hellolily, a4-opin, great-international-ui; jml, messages,
sites-faciles, quefairedemesobjets), measured once after the fortieth round and before
any of these was written.

- A Procfile process type named for the scheduler (``beat: celery worker -B``) is the
  scheduler's type, run once; ``Procfile.dev`` is a developer's.
- A folder named ``sample_*`` or ``example_*`` holds examples, as ``*-samples`` does.
- A table of storage classes from several packages that an option picks from by name is
  a choice, not the storage chosen.
- A branch taken when an option names ``"local-storage"`` is the local storage's own.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

PROCFILE = "web: gunicorn app.wsgi\n{kind}: celery worker -B --app=app.celery -Q celery\n"


def test_a_process_type_named_beat_that_embeds_beat_is_silent(tmp_path: Path) -> None:
    files = {"Procfile": PROCFILE.format(kind="beat"), "Procfile.dev": PROCFILE.format(kind="w")}
    assert scan(tmp_path, files, "scheduler") == []


def test_a_worker_type_that_embeds_beat_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"Procfile": PROCFILE.format(kind="worker")}, "scheduler")
    assert where(found) == [("Procfile", 2)]


NGINX = "server {\n    location /medias {\n        alias /app/medias;\n    }\n}\n"


def test_a_site_in_a_sample_folder_is_not_read(tmp_path: Path) -> None:
    found = scan(tmp_path, {"scripts/sample_conf_files/nginx.conf": NGINX}, "file-write")
    assert found == []


def test_the_same_site_in_a_config_folder_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"scripts/conf_files/nginx.conf": NGINX}, "file-write")
    assert where(found) == [("scripts/conf_files/nginx.conf", 2)]


THUMBNAILS = """\
import os

INSTALLED_APPS = ["sorl.thumbnail"]
CACHES = {{"default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}}}
THUMBNAIL_STORAGE_CLASS_NAME = os.environ.get("THUMBNAIL_STORAGE_CLASS_NAME", "s3")
{storage}
"""
TABLE = """\
THUMBNAIL_STORAGE_CLASSES = {
    "s3": "storages.backends.s3boto3.S3Boto3Storage",
    "local-storage": "django.core.files.storage.FileSystemStorage",
}
THUMBNAIL_STORAGE = THUMBNAIL_STORAGE_CLASSES[THUMBNAIL_STORAGE_CLASS_NAME]
"""


def _thumbnails(found: list) -> list:
    return [f for f in found if f.message.startswith("THUMBNAIL")]


def test_a_table_of_storages_picked_by_name_is_silent(tmp_path: Path) -> None:
    settings = THUMBNAILS.format(storage=TABLE)
    assert _thumbnails(scan(tmp_path, {"app/settings.py": settings}, "settings")) == []


def test_a_local_thumbnail_storage_set_directly_is_found(tmp_path: Path) -> None:
    storage = 'THUMBNAIL_STORAGE = "django.core.files.storage.FileSystemStorage"'
    settings = THUMBNAILS.format(storage=storage)
    found = _thumbnails(scan(tmp_path, {"app/settings.py": settings}, "settings"))
    assert where(found) == [("app/settings.py", 6)]


URLS = """\
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = []
{guard}
    media = {{"document_root": settings.MEDIA_ROOT}}
    urlpatterns += [re_path(r"^media/(?P<path>.*)$", serve, media)]
"""


def test_media_served_when_the_option_names_local_storage_is_silent(tmp_path: Path) -> None:
    urls = URLS.format(guard='if settings.STORAGE_CLASS_NAME == "local-storage":')
    assert scan(tmp_path, {"app/urls.py": urls}, "file-write") == []


def test_media_served_under_another_option_is_found(tmp_path: Path) -> None:
    urls = URLS.format(guard="if settings.SERVE_MEDIA:")
    assert where(scan(tmp_path, {"app/urls.py": urls}, "file-write")) == [("app/urls.py", 7)]
