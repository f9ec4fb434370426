"""Classes of the forty-fourth round (issue 14), each with a true case and a safe twin.

They came from the eightieth and eighty-first labelled groups (covid-alert-portal,
verdant-rca, higher-health-django, malaria24-django; export-support, healthcheck,
resourcing-approval, kaavoitus-api), measured once after the forty-third round and
before any of these was written.

- A name bound in a top-level ``if`` on an option is read in the branch taken when
  nothing is set (``if os.getenv("DATABASE_URL"): … else: db = …sqlite…``).
- Heroku's ``heroku.yml``: each process type under ``run:`` is a Procfile line.
- A generated ``SECRET_KEY``'s finding relates the ``if`` that makes it the fallback and
  the random source it draws from.
- A static-files storage class (``django.contrib.staticfiles.storage.…``) in any setting
  is for what the build compiles, never for uploads.
- A memo of ``get_or_create`` by its own key, of a model with no other field than that
  key and its timestamps, is the row a name stands for, the same on every instance.
- A form's file field stores nothing: it does not show that the project stores files.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DATABASE = """\
import os

import dj_database_url

INSTALLED_APPS = ["app"]
if os.getenv("{variable}"):
    db_config = dj_database_url.config(default="sqlite:///db.sqlite3")
else:
    db_config = dj_database_url.config(default="{fallback}")
DATABASES = {{"default": db_config}}
"""


def test_a_database_url_bound_in_the_default_branch_is_found(tmp_path: Path) -> None:
    settings = DATABASE.format(variable="USE_SQLITE", fallback="sqlite:///fallback.db")
    found = scan(tmp_path, {"portal/settings.py": settings}, "settings")
    assert where(found) == [("portal/settings.py", 9)]


def test_sqlite_bound_only_in_the_branch_an_option_takes_is_silent(tmp_path: Path) -> None:
    settings = DATABASE.format(variable="USE_SQLITE", fallback="postgres://db.internal/app")
    assert scan(tmp_path, {"portal/settings.py": settings}, "settings") == []


HEROKU = """\
build:
  docker:
    web: Dockerfile
{phase}:
  web: |
    python manage.py collectstatic --noinput
    python manage.py migrate
    uwsgi --http :$PORT --module portal.wsgi
"""


def test_a_migrate_in_heroku_yml_run_section_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"heroku.yml": HEROKU.format(phase="run")}, "boot-migrate")
    assert where(found) == [("heroku.yml", 7)]


def test_a_migrate_in_heroku_yml_release_section_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"heroku.yml": HEROKU.format(phase="release")}, "boot-migrate") == []


SECRET = """\
import random

INSTALLED_APPS = ["app"]
{guard}
system_random = random.SystemRandom()
SECRET_KEY = "".join(
    [system_random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for i in range(64)]
)
"""


def _secret_findings(tmp_path: Path, guard: str) -> list:
    settings = SECRET.format(guard=guard)
    if guard:
        settings = settings.replace("\nsystem_random", "\n    system_random").replace(
            "\nSECRET_KEY", "\n    SECRET_KEY"
        )
        settings = settings.replace("\n    [system", "\n        [system").replace("\n)", "\n    )")
    found = scan(tmp_path, {"app/settings.py": settings}, "settings")
    return [f for f in found if f.message.startswith("SECRET_KEY")]


def test_a_generated_fallback_key_relates_its_guard_and_source(tmp_path: Path) -> None:
    (finding,) = _secret_findings(tmp_path, 'if "SECRET_KEY" not in locals():')
    assert [(r.path, r.line) for r in finding.related] == [
        ("app/settings.py", 4),
        ("app/settings.py", 5),
    ]


def test_a_key_generated_unguarded_relates_nothing(tmp_path: Path) -> None:
    (finding,) = _secret_findings(tmp_path, "")
    assert finding.related == ()


STORAGE = """\
INSTALLED_APPS = ["app", "sass_processor"]
STORAGES = {{"default": {{"BACKEND": "storages.backends.s3boto3.S3Boto3Storage"}}}}
SASS_PROCESSOR_STORAGE = "{storage}"
"""
MODELS = """\
from django.db import models


class Attachment(models.Model):
    upload = models.FileField()
"""


def test_a_static_files_storage_in_any_setting_is_silent(tmp_path: Path) -> None:
    settings = STORAGE.format(storage="django.contrib.staticfiles.storage.FileSystemStorage")
    files = {"config/settings.py": settings, "app/models.py": MODELS}
    assert scan(tmp_path, files, "settings") == []


def test_a_file_system_storage_in_the_same_setting_is_found(tmp_path: Path) -> None:
    settings = STORAGE.format(storage="django.core.files.storage.FileSystemStorage")
    files = {"config/settings.py": settings, "app/models.py": MODELS}
    assert where(scan(tmp_path, files, "settings")) == [("config/settings.py", 3)]


MEMO = """\
from functools import lru_cache

from django.db import models


class Province(models.Model):
    name = models.CharField(max_length=50, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    {field}

    @staticmethod
    @lru_cache(maxsize=None)
    def get_province(name):
        province, _ = Province.objects.get_or_create(name=name)
        return province
"""


def test_a_memo_of_a_row_made_by_its_key_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"cases/models.py": MEMO.format(field="")}, "cache") == []


def test_a_memo_of_a_row_with_fields_an_admin_edits_is_found(tmp_path: Path) -> None:
    source = MEMO.format(field="banner = models.TextField(blank=True)")
    assert where(scan(tmp_path, {"cases/models.py": source}, "cache")) == [("cases/models.py", 12)]


MEDIA = 'INSTALLED_APPS = ["app"]\nMEDIA_ROOT = "/srv/media"\n'
FORM = """\
from django import forms


class FacilityUploadForm(forms.Form):
    upload = forms.FileField()
"""
PLAIN_MODELS = """\
from django.db import models


class Facility(models.Model):
    name = models.CharField(max_length=50)
"""


def _media_findings(tmp_path: Path, models: str) -> list:
    files = {"config/settings.py": MEDIA, "app/forms.py": FORM, "app/models.py": models}
    return [f for f in scan(tmp_path, files, "settings") if f.message.startswith("MEDIA_ROOT")]


def test_a_form_file_field_does_not_show_stored_files(tmp_path: Path) -> None:
    assert _media_findings(tmp_path, PLAIN_MODELS) == []


def test_a_model_file_field_shows_stored_files(tmp_path: Path) -> None:
    assert where(_media_findings(tmp_path, MODELS)) == [("config/settings.py", 2)]
