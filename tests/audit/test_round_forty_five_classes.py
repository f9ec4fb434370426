"""Classes of the forty-fifth round (issue 14), each with a true case and a safe twin.

They came from the eighty-second and eighty-third labelled groups (masterfirefoxos,
update-supply-chain-information, orp; gem-bbb-indo-server, strategic-companies-list,
integreat-compass), measured once after the forty-fourth round and before any of these
was written.

- A storage class that extends the module's own ``FileSystemStorage`` subclass
  (``class ProfileImgStorage(OverwriteStorage)``) keeps files on this host's disk too.
- WhiteNoise's ``application.add_files(settings.MEDIA_ROOT, prefix=…)`` serves uploads
  from this host's disk.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

STORAGE = """\
from django.core.files.storage import FileSystemStorage


class OverwriteStorage(FileSystemStorage):
    def get_available_name(self, name, max_length=None):
        self.delete(name)
        return name


class ProfileImgStorage({base}):
    pass
"""
MODELS = """\
from django.db import models

from users.storage import ProfileImgStorage


class Profile(models.Model):
    image = models.ImageField(storage=ProfileImgStorage())
"""


def _storage_findings(tmp_path: Path, base: str) -> list:
    files = {"users/storage.py": STORAGE.format(base=base), "users/models.py": MODELS}
    found = scan(tmp_path, files, "file-write")
    return [f for f in found if "is a FileSystemStorage" in f.message]


def test_a_subclass_of_the_modules_own_local_storage_is_found(tmp_path: Path) -> None:
    assert where(_storage_findings(tmp_path, "OverwriteStorage")) == [("users/storage.py", 10)]


def test_a_subclass_of_a_remote_storage_is_silent(tmp_path: Path) -> None:
    assert _storage_findings(tmp_path, "S3Boto3Storage") == []


WSGI = """\
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from whitenoise.django import DjangoWhiteNoise

application = DjangoWhiteNoise(get_wsgi_application())
application.add_files(settings.{root}, prefix="/{prefix}/")
"""


def test_whitenoise_serving_the_media_root_is_found(tmp_path: Path) -> None:
    wsgi = WSGI.format(root="MEDIA_ROOT", prefix="media")
    found = scan(tmp_path, {"site/wsgi.py": wsgi}, "file-write")
    assert where(found) == [("site/wsgi.py", 6)]


def test_whitenoise_serving_the_static_root_is_silent(tmp_path: Path) -> None:
    wsgi = WSGI.format(root="STATIC_ROOT", prefix="static")
    assert scan(tmp_path, {"site/wsgi.py": wsgi}, "file-write") == []
