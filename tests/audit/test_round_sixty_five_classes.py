"""Classes of the sixty-fifth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-nineteenth group (kausal-watch, configdb, science-archive,
observation-portal, extensions-web, ietf-www, labelled before either tool ran on them),
read after its first measurement:

- APScheduler's ``BlockingScheduler`` never returns from ``start()``: the program that
  runs it (``manage.py runscript app.task_scheduler``) is the scheduler's own process
  type, deployed once, not a scheduler inside every web instance (observation-portal).
  Built in an app's ``ready()`` it would be every process's: reported there.
- A global filled on first use with a reference (``_original = Admin.get_queryset``
  before a monkeypatch, ``_ready = True``) holds nothing loaded, even where the function
  also queries the database (kausal-watch; on the tuning projects thirteen such findings,
  none labelled). A value a call returns is still a load.
- A web server block whose URL path does not say uploads but whose folder does
  (``location /extension-data/ { alias /srv/www/uploaded-files/; }``) serves uploads
  from this host (extensions-web); an uploads block nested in an unnamed one (Caddy's
  ``handle @matcher { handle_path /media/* { … } }``) is read as itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

SCHEDULER = """\
from apscheduler.schedulers.blocking import BlockingScheduler

from app.tasks import expire_requests


def run():
    scheduler = BlockingScheduler()
    scheduler.add_job(expire_requests.send, "interval", minutes=5)
    scheduler.start()
"""
APPS = """\
from apscheduler.schedulers.blocking import BlockingScheduler
from django.apps import AppConfig


class AppConfig(AppConfig):
    name = "app"

    def ready(self):
        scheduler = BlockingScheduler()
        scheduler.start()
"""


def test_a_blocking_scheduler_is_its_own_programs_process(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/task_scheduler.py": SCHEDULER}, "scheduler") == []


def test_a_blocking_scheduler_an_apps_ready_builds_is_every_processs(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/apps.py": APPS}, "scheduler")
    assert where(found) == [("app/apps.py", 9)]


def test_a_background_scheduler_is_still_every_processs(tmp_path: Path) -> None:
    background = SCHEDULER.replace("blocking import Blocking", "background import Background")
    background = background.replace("BlockingScheduler()", "BackgroundScheduler()")
    found = scan(tmp_path, {"app/task_scheduler.py": background}, "scheduler")
    assert where(found) == [("app/task_scheduler.py", 7)]


PATCH = """\
from app.models import Collection

_original_get_queryset = None


def get_queryset(self, request):
    return _original_get_queryset(self, request).filter(
        collection__in=Collection.objects.filter(owner=request.user)
    )


def monkeypatch_admin():
    from vendor.admin import VendorAdmin

    global _original_get_queryset
    if _original_get_queryset is None:
        _original_get_queryset = {value}
        VendorAdmin.get_queryset = get_queryset
    Collection.objects.filter(owner=None).count()
"""


def test_a_reference_kept_before_a_monkeypatch_is_no_load(tmp_path: Path) -> None:
    source = PATCH.format(value="VendorAdmin.get_queryset")
    assert scan(tmp_path, {"app/patches.py": source}, "cache") == []


def test_a_value_a_query_returns_kept_globally_is_a_load(tmp_path: Path) -> None:
    source = PATCH.format(value="list(Collection.objects.values_list('pk', flat=True))")
    found = scan(tmp_path, {"app/patches.py": source}, "cache")
    assert where(found) == [("app/patches.py", 15)]


MODELS = (
    "from django.db import models\n\n\n"
    "class Extension(models.Model):\n    zipfile = models.FileField(upload_to='zips')\n"
)
NGINX = """\
server {{
    listen 8080;
    location {path} {{
        alias {folder};
    }}
}}
"""


def test_a_block_serving_an_uploads_folder_under_another_path(tmp_path: Path) -> None:
    conf = NGINX.format(path="/extension-data/", folder="/srv/www/uploaded-files/")
    files = {"deploy/default.conf.template": conf, "app/models.py": MODELS}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("deploy/default.conf.template", 3)]


def test_a_block_serving_static_files_is_not(tmp_path: Path) -> None:
    conf = NGINX.format(path="/assets/", folder="/srv/www/static/")
    files = {"deploy/default.conf.template": conf, "app/models.py": MODELS}
    assert scan(tmp_path, files, "file-write") == []


CADDY = """\
{$ADDRESSES} {
    handle @is_app {
        handle /api/* {
            reverse_proxy backend:8000
        }
        handle_path /media/* {
            file_server {
                root /app/media/
            }
        }
    }
}
"""


def test_an_uploads_block_inside_an_unnamed_one_is_read_as_itself(tmp_path: Path) -> None:
    files = {"Caddyfile": CADDY, "app/models.py": MODELS}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("Caddyfile", 6)]


def test_a_build_served_from_a_folder_named_after_media_is_not_uploads(tmp_path: Path) -> None:
    conf = NGINX.format(path="/", folder="/srv/socialmedia/frontend/build")
    files = {"deploy/default.conf.template": conf, "app/models.py": MODELS}
    assert scan(tmp_path, files, "file-write") == []


def test_a_global_published_from_a_local_the_query_filled_is_a_load(tmp_path: Path) -> None:
    source = """\
from app.models import Rate

_RATES = None


def rates():
    global _RATES
    if _RATES is None:
        loaded = {}
        for rate in Rate.objects.all():
            loaded[rate.code] = rate.value
        _RATES = loaded
    return _RATES
"""
    found = scan(tmp_path, {"app/rates.py": source}, "cache")
    assert where(found) == [("app/rates.py", 7)]


def test_a_blocking_scheduler_a_thread_of_ready_runs_is_every_processs(tmp_path: Path) -> None:
    source = """\
import threading

from apscheduler.schedulers.blocking import BlockingScheduler
from django.apps import AppConfig


def run():
    scheduler = BlockingScheduler()
    scheduler.start()


class AppConfig(AppConfig):
    name = "app"

    def ready(self):
        threading.Thread(target=run, daemon=True).start()
"""
    found = scan(tmp_path, {"app/apps.py": source}, "scheduler")
    assert where(found) == [("app/apps.py", 8)]
