"""file-write: local writes that outlive the request; temp files that do not are fine."""

import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage

REPORTS = Path("/var/lib/shop/reports")  # expect: file-write (where the folder is decided)
invoice_storage = FileSystemStorage(location="/srv/invoices")  # expect: file-write


def write_report(report_id, body):
    with open(REPORTS / f"{report_id}.csv", "w") as handle:  # expect: file-write
        handle.write(body)


def save_avatar(user, data):
    Path(settings.BASE_DIR, "avatars", f"{user.pk}.png").write_bytes(data)  # expect: file-write


def media_path(name):
    return os.path.join(settings.MEDIA_ROOT, "exports", name)  # expect: file-write


def disk_usage():
    return os.statvfs(settings.MEDIA_ROOT)  # ok: reports the disk, builds no path


def orphans():
    media_dir = settings.MEDIA_ROOT  # expect: file-write
    return [name for _, _, names in os.walk(media_dir) for name in names]


def export_frame(frame):
    frame.to_csv("/var/exports/latest.csv")  # expect: file-write


def keep_upload(upload):
    handle = tempfile.NamedTemporaryFile(delete=False, suffix=".pdf")
    with open(handle.name, "wb") as out:  # expect: file-write
        out.write(upload.read())
    convert_upload.delay(handle.name)


def stage_upload(upload):
    handle = tempfile.NamedTemporaryFile(delete=False, suffix=".pdf")
    with open(handle.name, "wb") as out:  # ok: the caller reads it in this request
        out.write(upload.read())
    return handle.name


def read_template(name):
    with open(os.path.join(settings.BASE_DIR, "templates", name)) as handle:  # ok: a read
        return handle.read()


def render_pdf(html):
    with tempfile.TemporaryDirectory() as workdir:
        source = os.path.join(workdir, "page.html")
        with open(source, "w") as handle:  # ok: inside a temp dir removed on exit
            handle.write(html)
        return source


def convert(data):
    fd, path = tempfile.mkstemp()
    try:
        with open(path, "wb") as handle:  # ok: removed in finally
            handle.write(data)
    finally:
        os.remove(path)


def zip_in_memory(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # ok: an archive in memory
        for name, data in files:
            archive.writestr(name, data)
    return buffer.getvalue()


def quiet():
    with open(os.devnull, "w") as sink:  # ok: /dev/null
        print("x", file=sink or sys.stdout)


def store(name, content):
    return default_storage.save(name, content)  # ok: through the configured storage
