"""Classes of the sixty-ninth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-twenty-third group (eventol, tacticalrmm, labelled before
either tool ran on them), after its first measurement, and from the tuning projects'
findings read by class:

- Files read or written under ``MEDIA_ROOT`` by path (``os.path.join(settings.MEDIA_ROOT,
  …)``) only work while uploads are on this disk, as ``doc.file.path`` reads do: where a
  settings module keeps uploads local they are related places of that finding (one root
  cause, fixed with it); with a shared storage they stay findings of their own.
- A file write inside a reported ``FileSystemStorage`` subclass's own methods
  (``os.rename(self.path(a), self.path(b))`` in its ``rename()``) is how the class keeps
  its files: related to the class's finding (tacticalrmm).
- ``update.sh``, ``restore.sh``, ``backup.sh`` and ``uninstall.sh`` are run by hand, as
  installers and upgrade scripts are (tacticalrmm).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

EXPORT = """\
import os

from django.conf import settings
from django.http import HttpResponse


def badge_photo(request, name):
    path = os.path.join(settings.MEDIA_ROOT, "badges", name)
    with open(path, "rb") as handle:
        return HttpResponse(handle.read(), content_type="image/png")
"""
MODELS = """\
from django.db import models


class Document(models.Model):
    file = models.FileField(upload_to="docs")
"""
LOCAL = "INSTALLED_APPS = ['docs']\nMEDIA_ROOT = '/srv/media'\n"
SHARED = (
    "INSTALLED_APPS = ['docs']\nMEDIA_ROOT = '/srv/media'\n"
    "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
)


def test_media_root_by_path_is_one_cause_with_the_local_storage(tmp_path: Path) -> None:
    files = {"proj/settings.py": LOCAL, "docs/models.py": MODELS, "docs/export.py": EXPORT}
    found = scan(tmp_path, files)
    assert where(found) == [("proj/settings.py", 2)]
    assert ("docs/export.py", 8) in [(r.path, r.line) for r in found[0].related]
    assert "1 place in code that uses uploads by their local path" in found[0].message


def test_media_root_by_path_with_a_shared_storage_stands_alone(tmp_path: Path) -> None:
    files = {"proj/settings.py": SHARED, "docs/models.py": MODELS, "docs/export.py": EXPORT}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("docs/export.py", 8)]


STORAGE = """\
import os
import shutil

from django.core.files.storage import FileSystemStorage


class AssetStorage(FileSystemStorage):
    def rename(self, *, path, new_name):
        new_path = self.get_available_name(new_name)
        os.rename(self.path(path), self.path(new_path))
        return new_path

    def move(self, *, source, destination):
        shutil.move(self.path(source), self.path(destination))
        return destination


assets = AssetStorage(location="/opt/app/assets")


def rename_elsewhere(old, new):
    with open("/opt/app/renamed.json", "w") as handle:
        handle.write(f'{{"{old}": "{new}"}}')
"""
VIEW = """\
from assets.storage import assets, rename_elsewhere


def rename(request):
    assets.rename(path=request.POST["path"], new_name=request.POST["name"])
    rename_elsewhere(request.POST["a"], request.POST["b"])
"""


def test_writes_in_a_storage_class_are_related_to_its_finding(tmp_path: Path) -> None:
    storage = STORAGE.split("\n\n\ndef rename_elsewhere")[0] + "\n"
    view = VIEW.replace(", rename_elsewhere", "").replace(
        '    rename_elsewhere(request.POST["a"], request.POST["b"])\n', ""
    )
    found = scan(tmp_path, {"assets/storage.py": storage, "assets/views.py": view}, "file-write")
    assert where(found) == [("assets/storage.py", 7)]
    related = [(r.path, r.line) for r in found[0].related]
    assert ("assets/storage.py", 10) in related and ("assets/storage.py", 14) in related


def test_a_modules_writes_partly_outside_the_class_stay_its_own(tmp_path: Path) -> None:
    files = {"assets/storage.py": STORAGE, "assets/views.py": VIEW}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("assets/storage.py", 7), ("assets/storage.py", 10)]


UPDATE = """\
#!/usr/bin/env bash
set -e
cd /rmm/api/tacticalrmm
python manage.py migrate --no-input
python manage.py collectstatic --no-input
for service in nginx daphne celery; do sudo systemctl start $service; done
"""


def test_an_update_script_is_run_by_hand(tmp_path: Path) -> None:
    for name in ("update.sh", "restore.sh", "backup-db.sh", "uninstall.sh"):
        assert scan(tmp_path / name, {name: UPDATE}, "boot-migrate") == []


def test_a_start_script_that_migrates_is_still_every_replicas(tmp_path: Path) -> None:
    found = scan(tmp_path, {"start.sh": UPDATE}, "boot-migrate")
    assert where(found) == [("start.sh", 4)]
