"""file-write: files handed from a request to a task by local path; scratch space."""

import shutil
import tempfile
from pathlib import Path

import pikepdf
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage

from .tasks import consume


def upload(request):
    # The task may run on another instance, which has no such file.
    target = Path(tempfile.mkdtemp(dir=settings.SCRATCH_DIR)) / request.FILES["doc"].name
    target.write_bytes(request.FILES["doc"].read())  # expect: file-write
    consume.delay(str(target))


def rotate(document, degrees):
    filepath: Path = Path(tempfile.mkdtemp(dir=settings.SCRATCH_DIR)) / "rotated.pdf"
    with pikepdf.open(document.path) as pdf:
        for page in pdf.pages:
            page.rotate(degrees, relative=True)
        pdf.save(filepath)  # expect: file-write
    document.save(update_fields=["version"])  # ok: a model save
    consume.delay(str(filepath))


class Parser:
    """Owns a scratch directory for one parse and removes it on exit."""

    def __init__(self):
        self.tempdir = Path(tempfile.mkdtemp())

    def render(self, data):
        out = self.tempdir / "out.pdf"
        out.write_bytes(data)  # ok: the object's own scratch directory
        return out

    def __exit__(self, *exc):
        shutil.rmtree(self.tempdir)


def favicon():
    return open(staticfiles_storage.path("favicon.ico"), "rb")  # ok: static, in every image
