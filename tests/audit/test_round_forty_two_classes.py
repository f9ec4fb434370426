"""Classes of the forty-second round (issue 14), each with a true case and a safe twin.

They came from the seventy-sixth and seventy-seventh labelled groups (icms, fft,
report-a-breach, enquiry-mgmt-tool; hitas, city-infrastructure-platform, ndoh-hub,
contentrepo), measured once after the forty-first round and before any of these was
written.

- A form's or serializer's file field is the request's upload, not a model's stored file:
  its name does not make ``x.<name>.path`` elsewhere a local path.
- A cache alias given only to django-compressor (``COMPRESS_CACHE_BACKEND``) is a memo that
  a miss rebuilds alike on any host.
- A settings module that only the test runner's configuration names (``pytest.ini``'s
  ``DJANGO_SETTINGS_MODULE = app.settings.djangotest``) is the tests'.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

FILE_MODEL = """\
from django.db import models


class File(models.Model):
    path = models.CharField(max_length=4000)
"""
CASE_MODEL = """\
from django.db import models


class CaseDocument(models.Model):
    {declaration}
"""
VIEW = """\
from web.s3 import get_file_from_s3


def download(request, pk):
    document = CaseDocument.objects.get(pk=pk)
    return get_file_from_s3(document.document.path)
"""
FORM = """\
from django import forms


class UploadForm(forms.Form):
    document = forms.FileField(required=True)
"""


def test_a_form_file_field_does_not_make_a_relation_a_local_path(tmp_path: Path) -> None:
    files = {
        "web/file/models.py": FILE_MODEL,
        "web/case/models.py": CASE_MODEL.format(
            declaration='document = models.OneToOneField("web.File", on_delete=models.CASCADE)'
        ),
        "web/case/forms.py": FORM,
        "web/case/views.py": VIEW,
    }
    assert scan(tmp_path, files, "file-write") == []


def test_a_model_file_field_read_by_its_path_is_found(tmp_path: Path) -> None:
    files = {
        "web/case/models.py": CASE_MODEL.format(declaration="document = models.FileField()"),
        "web/case/forms.py": FORM,
        "web/case/views.py": VIEW,
    }
    found = scan(tmp_path, files, "file-write")
    assert ("web/case/views.py", 6) in where(found)


CACHES = """\
CACHES = {{
    "default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r:6379"}},
    "memo": {{"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
}}
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
{library}
"""


def test_a_local_cache_given_only_to_compressor_is_silent(tmp_path: Path) -> None:
    settings = CACHES.format(library='COMPRESS_OFFLINE = True\nCOMPRESS_CACHE_BACKEND = "memo"')
    assert scan(tmp_path, {"config/settings.py": settings}, "settings") == []


def test_a_local_cache_given_to_select2_is_found(tmp_path: Path) -> None:
    settings = CACHES.format(library='SELECT2_CACHE_BACKEND = "memo"')
    found = scan(tmp_path, {"config/settings.py": settings}, "settings")
    assert where(found) == [("config/settings.py", 3)]


LOCAL_CACHE_SETTINGS = """\
from .common import *

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
"""
COMMON = 'SECRET_KEY = "x"\nINSTALLED_APPS = ["app"]\nDATABASES = {}\n'


def _settings_files(pytest_ini: str) -> dict[str, str]:
    return {
        "app/settings/__init__.py": "",
        "app/settings/common.py": COMMON,
        "app/settings/djangotest.py": LOCAL_CACHE_SETTINGS,
        "pytest.ini": pytest_ini,
    }


def test_settings_only_the_test_runner_names_are_silent(tmp_path: Path) -> None:
    files = _settings_files("[pytest]\nDJANGO_SETTINGS_MODULE = app.settings.djangotest\n")
    assert scan(tmp_path, files, "settings") == []


def test_the_same_settings_named_by_no_test_runner_are_found(tmp_path: Path) -> None:
    files = _settings_files("[pytest]\naddopts = -ra\n")
    found = scan(tmp_path, files, "settings")
    assert ("app/settings/djangotest.py", 3) in where(found)


def test_production_settings_a_test_runner_also_names_are_found(tmp_path: Path) -> None:
    files = _settings_files("[pytest]\nDJANGO_SETTINGS_MODULE = app.settings.production\n")
    files["app/settings/production.py"] = files.pop("app/settings/djangotest.py")
    found = scan(tmp_path, files, "settings")
    assert ("app/settings/production.py", 3) in where(found)


TASK = """\
def import_faqs(task):
    with open(task.csv_file.path) as handle:
        return handle.read()
"""
VIEW_FORM = """\
from django import forms


class ImportForm(forms.ModelForm):
    csv_file = forms.FileField(label="Import file")
"""


def test_a_form_field_mirroring_a_librarys_model_field_is_still_found(tmp_path: Path) -> None:
    # ``ImportTask.csv_file`` is declared by a library; the project's form names it.
    files = {"app/views.py": VIEW_FORM, "app/tasks.py": TASK}
    assert ("app/tasks.py", 2) in where(scan(tmp_path, files, "file-write"))
