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


# -- after a review: places the first version of the rule did not see ---------------------

PLACES = {
    "a-module-level-folder": (
        "import os\ncache_dir = os.path.join(os.path.dirname(__file__), 'cache')\n\n\n"
        "def store(key, data):\n"
        "    with open(os.path.join(cache_dir, key), 'w') as handle:\n"
        "        handle.write(data)\n",
        6,
    ),
    "the-module's-own-folder": (
        "from pathlib import Path\n\n\ndef store(name, data):\n"
        "    with open(Path(__file__).parent / name, 'w') as handle:\n"
        "        handle.write(data)\n",
        5,
    ),
    "an-environment-variable": (
        "import os\n\n\ndef store(name, data):\n    base = os.environ['DATA_DIR']\n"
        "    with open(os.path.join(base, name), 'w') as handle:\n"
        "        handle.write(data)\n",
        6,
    ),
    "an-imported-folder-helper": (
        "import os\nfrom app.paths import export_folder\n\n\ndef store(name, data):\n"
        "    with open(os.path.join(export_folder(), name), 'w') as handle:\n"
        "        handle.write(data)\n",
        6,
    ),
    "the-constructor-names-it": (
        "import os\nfrom django.conf import settings\n\n\nclass Report:\n"
        "    def __init__(self):\n"
        "        self.output = os.path.join(settings.EXPORT_ROOT, 'x.csv')\n\n"
        "    def write(self, data):\n"
        "        with open(self.output, 'w') as handle:\n"
        "            handle.write(data)\n",
        10,
    ),
    "a-class-attribute-of-cls": (
        "class Cache:\n    cache_dir = '/var/lib/app/cache/'\n\n    @classmethod\n"
        "    def put(cls, name, data):\n"
        "        with open(cls.cache_dir + name, 'w') as handle:\n"
        "            handle.write(data)\n",
        6,
    ),
    "an-f-string-a-caller-passes": (
        "def _write(target, data, encoding):\n"
        "    with open(target, 'w', encoding=encoding) as handle:\n"
        "        handle.write(data)\n\n\n"
        "def archive(doc):\n    _write(f'{doc.pk}.bin', doc.data, 'utf-8')\n",
        2,
    ),
}


@pytest.mark.parametrize("case", list(PLACES))
def test_a_place_named_another_way_is_a_place(tmp_path: Path, case: str) -> None:
    source, line = PLACES[case]
    found = scan(tmp_path, {"app/store.py": source}, "file-write")
    assert where(found) == [("app/store.py", line)]


def test_a_literal_a_caller_passes_for_another_parameter_names_no_place(tmp_path: Path) -> None:
    # The encoding is a literal; the path is the record's: the record decides.
    source = PLACES["an-f-string-a-caller-passes"][0].replace("f'{doc.pk}.bin'", "doc.path")
    assert scan(tmp_path, {"app/store.py": source}, "file-write") == []


def test_the_uploads_storage_through_a_variable_keeps_its_name(tmp_path: Path) -> None:
    settings = (
        "import os\nDEBUG = False\nSECRET_KEY = os.environ['SECRET_KEY']\n"
        "FILE_STORAGE = os.environ.get('FILE_STORAGE', "
        "'django.core.files.storage.FileSystemStorage')\n"
        "STORAGES = {'default': {'BACKEND': FILE_STORAGE}}\n"
    )
    found = scan(tmp_path, {"app/settings.py": settings, "app/models.py": MODELS}, "settings")
    assert [f.message.split(":")[0] for f in found] == ["STORAGES['default']"]


def test_a_one_line_storages_names_each_alias(tmp_path: Path) -> None:
    settings = (
        "DEBUG = False\nSECRET_KEY = 'x'\nSTORAGES = {'default': {'BACKEND': "
        "'storages.backends.s3.S3Storage'}, 'backups': {'BACKEND': "
        "'django.core.files.storage.FileSystemStorage'}}\n"
    )
    found = scan(tmp_path, {"app/settings.py": settings, "app/models.py": MODELS}, "settings")
    assert [f.message.split(":")[0] for f in found] == ["STORAGES['backups']"]
    assert not found[0].related


def test_local_storages_of_two_modules_are_two_findings(tmp_path: Path) -> None:
    files = {
        "proj/settings.py": STORAGE_SETTINGS.format(
            default="storages.backends.s3.S3Storage"
        ).replace('DBBACKUP_STORAGE = "django.core.files.storage.FileSystemStorage"\n', ""),
        "proj/settings_worker.py": "from proj.settings import *\n"
        'DBBACKUP_STORAGE = "django.core.files.storage.FileSystemStorage"\n',
    }
    found = scan(tmp_path, files, "settings")
    assert sorted((f.path, f.line) for f in found) == [
        ("proj/settings.py", 5),
        ("proj/settings_worker.py", 2),
    ]


def test_a_git_flow_checkout_named_develop_is_judged(tmp_path: Path) -> None:
    path = "develop/mysite/settings.py"
    assert where(scan(tmp_path, {path: DEVELOP_SETTINGS}, "settings")) == [(path, 4)]
