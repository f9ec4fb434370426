"""The seventy-fifth round (2026-12-07): a plain write in a function that names no place;
settings in a folder named for development and a branch on a variable read with a None
default, and a local storage of another alias named as what it is (a fourth new user's
trial).

A function that writes where a record or its caller says (``open(document.file_path,
"wb")``) is not where the folder is decided; the write is reported when the function, a
helper of its module it calls, a caller in its module, or the written path itself names a
place: a setting, a constant, a path literal, the object's own folder. Each case has a
true twin that must be found and a safe one that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

WRITER = """\
import os

from django.conf import settings

EXPORT_DIR = "/srv/exports"


class Exporter:
    def __init__(self, folder):
        self.folder = folder

    def write(self, document, data):
        {path_line}
        with open(path, "wb") as handle:
            handle.write(data)
"""


@pytest.mark.parametrize(
    "path_line",
    [
        "path = document.file_path",
        "path = self.destination",
        'content_type = "text/csv"; path = document.file_path',
    ],
    ids=["a-record's-path", "a-place-the-object-is-given", "a-media-type-is-no-path"],
)
def test_a_write_whose_place_a_record_or_its_maker_gives_is_silent(
    tmp_path: Path, path_line: str
) -> None:
    files = {"app/exporter.py": WRITER.format(path_line=path_line)}
    assert scan(tmp_path, files, "file-write") == []


@pytest.mark.parametrize(
    "path_line",
    [
        "path = os.path.join(settings.MEDIA_EXPORTS, document.name)",
        "path = os.path.join(EXPORT_DIR, document.name)",
        'path = os.path.join("/var/lib/app/exports", document.name)',
        "path = os.path.join(self.export_path, document.name)",
        "path = os.path.join(self.get_export_dir(), document.name)",
    ],
    ids=["setting", "constant", "path-literal", "own-path", "own-folder-method"],
)
def test_a_write_whose_function_names_its_place_is_found(tmp_path: Path, path_line: str) -> None:
    files = {"app/exporter.py": WRITER.format(path_line=path_line)}
    assert where(scan(tmp_path, files, "file-write")) == [("app/exporter.py", 14)]


HELPER = """\
from django.conf import settings


def export_folder():
    return settings.BASE_DIR / "exports"


def save(document, data):
    path = {path}
    with open(path, "wb") as handle:
        handle.write(data)
"""


def test_a_place_a_helper_of_the_module_names_is_named(tmp_path: Path) -> None:
    files = {"app/store.py": HELPER.format(path="export_folder() / document.name")}
    assert where(scan(tmp_path, files, "file-write")) == [("app/store.py", 10)]
    silent = {"app/store.py": HELPER.format(path="document.upload_to")}
    assert scan(tmp_path / "b", silent, "file-write") == []


CALLED = """\
def _write(target, data):
    with open(target, "wb") as handle:
        handle.write(data)


def archive(document):
    _write({argument}, document.data)
"""


def test_a_caller_that_passes_a_literal_names_the_place(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/archive.py": CALLED.format(argument='"archive.bin"')})
    assert where([f for f in found if f.category == "file-write"]) == [("app/archive.py", 2)]
    silent = {"app/archive.py": CALLED.format(argument="document.archive_path")}
    assert scan(tmp_path / "b", silent, "file-write") == []


# -- settings in a folder named for development, and the documentation build's ----------

DEVELOP_SETTINGS = """\
DEBUG = False
SECRET_KEY = "x"
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "app",
                         "HOST": "localhost"}}
"""


@pytest.mark.parametrize(
    "path",
    ["project/develop/settings/base.py", "project/devel/settings.py", "project/settings/docs.py"],
)
def test_settings_of_a_develop_folder_or_the_docs_build_are_silent(
    tmp_path: Path, path: str
) -> None:
    assert scan(tmp_path, {path: DEVELOP_SETTINGS}, "settings") == []


@pytest.mark.parametrize(
    "path", ["project/developers/settings.py", "project/production/settings/base.py"]
)
def test_settings_of_other_folders_are_judged(tmp_path: Path, path: str) -> None:
    assert where(scan(tmp_path, {path: DEVELOP_SETTINGS}, "settings")) == [(path, 4)]


# -- a branch on a variable read with an explicit None default ---------------------------

SWITCHED = """\
import os

DEBUG = False
SECRET_KEY = os.environ["SECRET_KEY"]
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": "/data/app.db"}}}}
if {test} == "postgres":
    DATABASES["default"] = {{"ENGINE": "django.db.backends.postgresql", "NAME": "app",
                            "HOST": "localhost"}}
"""


def test_a_branch_on_a_variable_whose_default_is_none_is_off_by_default(tmp_path: Path) -> None:
    off = SWITCHED.format(test='os.environ.get("TESTDB", None)')
    found = scan(tmp_path, {"app/settings.py": off}, "settings")
    assert "localhost" not in " ".join(f.message for f in found)
    on = SWITCHED.format(test='os.environ.get("DB", "postgres")')
    found = scan(tmp_path / "b", {"app/settings.py": on}, "settings")
    assert any("localhost" in f.message and f.line == 8 for f in found)


# -- a local storage for another alias, or another setting, is named as what it is ------

STORAGE_SETTINGS = """\
DEBUG = False
SECRET_KEY = "x"
STORAGES = {{
    "default": {{"BACKEND": "{default}"}},
    "backups": {{"BACKEND": "django.core.files.storage.FileSystemStorage"}},
}}
DBBACKUP_STORAGE = "django.core.files.storage.FileSystemStorage"
"""
MODELS = """\
from django.db import models


class Document(models.Model):
    upload = models.FileField()
"""


def test_a_local_storage_of_another_alias_or_setting_is_named_so(tmp_path: Path) -> None:
    files = {
        "app/settings.py": STORAGE_SETTINGS.format(default="storages.backends.s3.S3Storage"),
        "app/models.py": MODELS,
    }
    found = scan(tmp_path, files, "settings")
    # One module's local storages are one cause: one finding, the other line related
    # (and not the upload fields, which the uploads' storage keeps elsewhere).
    assert [(f.line, f.message.split(":")[0]) for f in found] == [(5, "STORAGES['backups']")]
    assert "files saved through it" in found[0].message
    assert [(r.path, r.line) for r in found[0].related] == [("app/settings.py", 7)]
    assert "shared storage" in found[0].fix_text


def test_the_uploads_local_storage_keeps_its_name_and_its_upload_fields(tmp_path: Path) -> None:
    files = {
        "app/settings.py": STORAGE_SETTINGS.format(
            default="django.core.files.storage.FileSystemStorage"
        ),
        "app/models.py": MODELS,
    }
    found = scan(tmp_path, files, "settings")
    assert [f.line for f in found] == [4]
    assert found[0].message.startswith("STORAGES['default']: uploads go to this host's disk")
    related = [(r.path, r.line) for r in found[0].related]
    assert ("app/models.py", 5) in related
    assert {("app/settings.py", 5), ("app/settings.py", 7)} <= set(related)
