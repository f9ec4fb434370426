"""Classes of the sixty-third round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-seventeenth group (lunes-cms, nav, adjutant, pinakes,
labelled before either tool ran on them), read after its first measurement:

- A module's ``threading.Lock`` taken by hand as a single-flight guard (``if not
  _drain_lock.acquire(blocking=False): return``) over database work lets one run at a time
  in a process, any number across instances (lunes-cms). A semaphore's slots and a
  blocking ``acquire()`` cap this process's own concurrency: not reported (on the tuning
  projects seven such, none labelled).
- A start script under ``minikube/`` is a developer's local cluster, as ``dev/`` is
  (pinakes).
- An Apache site the project ships (``apache.conf``, ``…vhost.conf.example``) that maps an
  uploads path to a local folder (``Alias /uploads /usr/share/app/uploads``), or leaves it
  to the ``DocumentRoot`` (``ProxyPass /media/ !``), serves uploads from this host (nav).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DRAIN = """\
import threading

from app.models import Word

_drain_lock = {factory}


def drain():
    if not _drain_lock.acquire({blocking}):
        return
    try:
        for word in Word.objects.filter(audio=""):
            word.audio = "x"
            word.save()
    finally:
        _drain_lock.release()
"""


def test_a_single_flight_lock_over_database_work_is_reported(tmp_path: Path) -> None:
    source = DRAIN.format(factory="threading.Lock()", blocking="blocking=False")
    found = scan(tmp_path, {"app/services.py": source}, "in-process-lock")
    assert where(found) == [("app/services.py", 9)]


def test_a_semaphores_slots_are_not(tmp_path: Path) -> None:
    source = DRAIN.format(factory="threading.BoundedSemaphore(4)", blocking="blocking=False")
    assert scan(tmp_path, {"app/services.py": source}, "in-process-lock") == []


def test_a_blocking_acquire_is_not_a_single_flight_guard(tmp_path: Path) -> None:
    source = DRAIN.format(factory="threading.Lock()", blocking="")
    assert scan(tmp_path, {"app/services.py": source}, "in-process-lock") == []


SERVER = "#!/bin/bash\npython manage.py migrate\nexec gunicorn app.wsgi --bind 0.0.0.0:8000\n"


def test_a_start_script_of_the_image_migrates(tmp_path: Path) -> None:
    found = scan(tmp_path, {"tools/docker/scripts/server.sh": SERVER}, "boot-migrate")
    assert where(found) == [("tools/docker/scripts/server.sh", 2)]


def test_a_start_script_for_minikube_is_a_developers(tmp_path: Path) -> None:
    assert scan(tmp_path, {"tools/minikube/scripts/server.sh": SERVER}, "boot-migrate") == []


MODELS = (
    "from django.db import models\n\n\n"
    "class Room(models.Model):\n    image = models.ImageField(upload_to='rooms')\n"
)
APACHE = """\
<VirtualHost *:443>
    ServerName nav.example.org
    DocumentRoot /usr/share/app/www
    Alias /static /usr/share/app/www/static
    Alias {path} /usr/share/app/var/uploads
    ProxyPass /static !
    ProxyPass / http://127.0.0.1:8000/
</VirtualHost>
"""


def test_an_apache_site_serving_uploads_from_a_folder_is_reported(tmp_path: Path) -> None:
    files = {
        "app/models.py": MODELS,
        "etc/apache/apache.conf.example": APACHE.format(path="/uploads"),
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("etc/apache/apache.conf.example", 5)]


def test_an_apache_site_serving_only_static_files_is_not(tmp_path: Path) -> None:
    files = {"app/models.py": MODELS, "etc/apache/apache.conf.example": APACHE.format(path="/js")}
    assert scan(tmp_path, files, "file-write") == []


PROXY_LEFT = """\
<VirtualHost *:443>
    DocumentRoot /var/www/app
    ProxyPass /media/ !
    ProxyPass / http://localhost:8080/
</VirtualHost>
"""


def test_an_apache_site_leaving_media_to_its_document_root_is_reported(tmp_path: Path) -> None:
    files = {"app/models.py": MODELS, "deploy/apache2-vhost.conf": PROXY_LEFT}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("deploy/apache2-vhost.conf", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("deploy/apache2-vhost.conf", 2)]


def test_an_apache_site_proxying_media_is_not(tmp_path: Path) -> None:
    proxied = PROXY_LEFT.replace("ProxyPass /media/ !\n", "")
    files = {"app/models.py": MODELS, "deploy/apache2-vhost.conf": proxied}
    assert scan(tmp_path, files, "file-write") == []
