"""Classes of the seventieth round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-twenty-fourth group (patrowlmanager, nemo, dpaste, labelled
before either tool ran on them), after its first measurement:

- A settings module shipped as the copy an image or an operator makes
  (``settings.py.sample``, ``settings_deployment.py.example``) is read as the settings it
  becomes, unless the module it makes is in the tree too (patrowlmanager).
- A value empty by default and filled when empty (``BROKER_URL = os.environ.get(…, "")``
  then ``if BROKER_URL == "": BROKER_URL = "amqp://…"``) is not Celery's default broker
  (patrowlmanager).
- A Celery worker started with ``--purge`` (or ``celery purge``) by what every replica
  starts deletes the tasks the other replicas queued: one finding per start file
  (patrowlmanager).
- Variants of one start file in one folder that say the same line
  (``supervisord-celery.conf`` and ``supervisord-celery-pro.conf``) are one cause
  (patrowlmanager).
- A locking decorator whose lock is a ``threading.Lock`` kept per key in a dict
  (``locks.setdefault(name, Lock())``) guards the views it decorates within one process
  only (nemo); a batching decorator's lock around its own buffer is not such a lock.
- A lock around a fill of a class attribute named through the class
  (``CustomizationBase._variables_cache = …``) makes a memo thread-safe (nemo).
- Several URL patterns of one module serving ``MEDIA_ROOT`` are one cause (nemo).
- A production compose file's service environment that sets a single-box backend
  (``DATABASE_URL: sqlite:////db/app.sqlite``), also in a stack named first
  (``minimal.docker-compose.yml``); not a service that mounts the checkout, nor an
  override file (dpaste).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

SAMPLE_SETTINGS = """\
import os
INSTALLED_APPS = ['scans']
DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': os.environ['DB']}}
MEDIA_ROOT = os.path.join('/srv', 'media')
"""
SHARED_STORAGE = "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}"
UPLOADS = """\
from django.db import models


class Report(models.Model):
    file = models.FileField(upload_to="reports")
"""


def test_a_settings_sample_the_image_copies_is_read_as_settings(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/settings.py.sample": SAMPLE_SETTINGS,
        "scans/models.py": UPLOADS,
        "Dockerfile": "FROM python\nCOPY app/settings.py.sample /srv/app/settings.py\n",
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py.sample", 4)]


def test_a_settings_example_beside_its_module_is_not_read(tmp_path: Path) -> None:
    files = {
        "app/settings.py.sample": SAMPLE_SETTINGS,
        "app/settings.py": SAMPLE_SETTINGS + SHARED_STORAGE + "\n",
        "scans/models.py": UPLOADS,
    }
    assert scan(tmp_path, files, "settings") == []


def test_an_example_outside_the_projects_packages_or_shadowed_is_not_read(
    tmp_path: Path,
) -> None:
    files = {
        "contrib/settings_override.py.example": SAMPLE_SETTINGS,
        "proj/__init__.py": "",
        "proj/settings.py.example": SAMPLE_SETTINGS,
        "proj/settings/__init__.py": SAMPLE_SETTINGS + SHARED_STORAGE + "\n",
        "scans/models.py": UPLOADS,
    }
    assert scan(tmp_path, files, "settings") == []


def test_a_local_settings_example_is_a_developers_copy(tmp_path: Path) -> None:
    files = {"app/local_settings.py.example": SAMPLE_SETTINGS, "scans/models.py": UPLOADS}
    assert scan(tmp_path, files, "settings") == []


FILLED_BROKER = """\
import os
INSTALLED_APPS = []
CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://cache'}}
BROKER_URL = os.environ.get('BROKER_URL', '')
if BROKER_URL == "":
    BROKER_URL = 'amqp://guest:guest@{}/'.format(os.environ.get('RABBIT', 'rabbitmq'))
"""


def test_an_empty_broker_filled_when_empty_is_no_default_broker(tmp_path: Path) -> None:
    assert scan(tmp_path, {"proj/settings.py": FILLED_BROKER}, "settings") == []


def test_an_empty_broker_left_empty_is_celerys_default(tmp_path: Path) -> None:
    source = FILLED_BROKER.split("if BROKER_URL")[0]
    found = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert where(found) == [("proj/settings.py", 4)]
    assert "default broker" in found[0].message


SUPERVISOR = """\
[program:celery-beat]
command=celery beat --app=app -l info

[program:celery-default]
command=celery worker --app=app -Q default --purge -Ofair

[program:celery-scan]
command=celery worker --app=app -Q scan --purge -Ofair
"""


def test_workers_started_with_purge_are_one_finding_per_file(tmp_path: Path) -> None:
    found = scan(tmp_path, {"etc/supervisord.conf": SUPERVISOR}, "boot-reset")
    assert where(found) == [("etc/supervisord.conf", 5)]
    assert [(r.path, r.line) for r in found[0].related] == [("etc/supervisord.conf", 8)]
    assert "purges the queues" in found[0].message


def test_celery_purge_in_an_entrypoint_is_a_reset(tmp_path: Path) -> None:
    script = "#!/bin/sh\ncelery -A app purge -f\nexec gunicorn app.wsgi\n"
    found = scan(tmp_path, {"docker-entrypoint.sh": script}, "boot-reset")
    assert where(found) == [("docker-entrypoint.sh", 2)]


def test_workers_without_purge_and_apt_purge_are_no_reset(tmp_path: Path) -> None:
    files = {
        "etc/supervisord.conf": SUPERVISOR.replace(" --purge", ""),
        "Dockerfile": "FROM debian\nRUN apt-get remove --purge -y gcc\n",
    }
    assert scan(tmp_path, files, "boot-reset") == []


def test_the_same_line_in_variants_of_a_start_file_is_one_cause(tmp_path: Path) -> None:
    files = {"etc/supervisord.conf": SUPERVISOR, "etc/supervisord-pro.conf": SUPERVISOR}
    found = scan(tmp_path, files, "scheduler")
    assert where(found) == [("etc/supervisord.conf", 2)]
    assert ("etc/supervisord-pro.conf", 2) in [(r.path, r.line) for r in found[0].related]
    resets = scan(tmp_path, files, "boot-reset")
    assert where(resets) == [("etc/supervisord.conf", 5)]
    assert len(resets[0].related) == 3


def test_different_lines_in_two_start_files_stay_two_findings(tmp_path: Path) -> None:
    other = SUPERVISOR.replace("--app=app -l info", "--app=worker -l debug")
    files = {"etc/supervisord.conf": SUPERVISOR, "etc/supervisord-pro.conf": other}
    assert len(scan(tmp_path, files, "scheduler")) == 2


SYNCHRONIZED = """\
from functools import wraps
from threading import Lock

locks = {}


def synchronized(key=""):
    def decorator(function):
        @wraps(function)
        def wrapper(*args, **kwargs):
            lock = locks.setdefault(f"{function.__qualname__}_{kwargs.get(key)}", Lock())
            with lock:
                return function(*args, **kwargs)

        return wrapper

    return decorator
"""


def test_a_locking_decorator_with_a_lock_per_key_is_in_process(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/decorators.py": SYNCHRONIZED}, "in-process-lock")
    assert where(found) == [("app/decorators.py", 12)]
    assert "the functions it decorates" in found[0].message


def test_a_batching_decorators_lock_around_its_buffer_is_not(tmp_path: Path) -> None:
    source = """\
    import threading


    def bulk_handle(handler):
        def decorator(func):
            buffer = []
            lock = threading.Lock()

            def flush():
                with lock:
                    handler(buffer)
                    buffer.clear()

            def wrapper(*args, **kwargs):
                buffer.append(func(*args, **kwargs))

            return wrapper

        return decorator
    """
    assert scan(tmp_path, {"app/batch.py": source}, "in-process-lock") == []


CUSTOMIZATION = """\
import threading
import time

from app.models import Customization


class CustomizationBase:
    _cache_lock = threading.Lock()
    _variables_cache = None
    _cache_expiry = 0

    @staticmethod
    def _load_cache():
        with CustomizationBase._cache_lock:
            if CustomizationBase._variables_cache is None:
                CustomizationBase._variables_cache = {
                    c.name: c.value for c in Customization.objects.all()
                }
                CustomizationBase._cache_expiry = time.time() + 30
"""


def test_a_lock_around_a_class_attributes_fill_guards_a_memo(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/customization.py": CUSTOMIZATION}, "in-process-lock") == []


def test_a_lock_around_a_row_change_is_still_reported(tmp_path: Path) -> None:
    source = CUSTOMIZATION.replace(
        "                CustomizationBase._cache_expiry = time.time() + 30\n",
        "                Customization.objects.filter(stale=True).delete()\n",
    )
    found = scan(tmp_path, {"app/customization.py": source}, "in-process-lock")
    assert where(found) == [("app/customization.py", 14)]


SERVED_URLS = """\
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = [
    re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
    re_path(r"^media/protected/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
]
"""


def test_one_modules_patterns_serving_media_root_are_one_cause(tmp_path: Path) -> None:
    files = {"app/urls.py": SERVED_URLS, "app/models.py": UPLOADS}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("app/urls.py", 6)]
    assert [(r.path, r.line) for r in found[0].related] == [("app/urls.py", 7)]


def test_media_served_by_two_modules_stays_two_places(tmp_path: Path) -> None:
    one = SERVED_URLS.replace(
        '    re_path(r"^media/protected/(?P<path>.*)$", serve, {"document_root": '
        "settings.MEDIA_ROOT}),\n",
        "",
    )
    files = {"app/urls.py": one, "other/urls.py": one, "app/models.py": UPLOADS}
    found = scan(tmp_path, files, "file-write")
    places = {(f.path, f.line) for f in found} | {
        (r.path, r.line) for f in found for r in f.related
    }
    assert {("app/urls.py", 6), ("other/urls.py", 6)} <= places


COMPOSE = """\
services:
  paste:
    image: example/paste:latest
    restart: unless-stopped
    environment:
      DATABASE_URL: sqlite:////db/paste.sqlite
      PORT: 8000
    volumes:
      - ./data/db:/db
"""


def test_a_production_stacks_service_setting_sqlite_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"minimal.docker-compose.yml": COMPOSE}, "settings")
    assert where(found) == [("minimal.docker-compose.yml", 6)]
    assert "the service paste sets DATABASE_URL to SQLite" in found[0].message


def test_a_list_form_environment_sets_a_local_cache(tmp_path: Path) -> None:
    compose = COMPOSE.replace(
        "      DATABASE_URL: sqlite:////db/paste.sqlite\n", "      - CACHE_URL=locmemcache://\n"
    ).replace("      PORT: 8000\n", "")
    found = scan(tmp_path, {"docker-compose.yml": compose}, "settings")
    assert where(found) == [("docker-compose.yml", 6)]


def test_a_stack_that_mounts_the_checkout_or_overrides_is_a_developers(tmp_path: Path) -> None:
    mounted = COMPOSE.replace("      - ./data/db:/db\n", "      - .:/srv/app\n")
    files = {
        "docker-compose.yml": mounted,
        "docker-compose.override.yml": COMPOSE,
        "docker-compose.dev.yml": COMPOSE,
    }
    assert scan(tmp_path, files, "settings") == []


# -- guards from a review of the round (2026-12-06) ---------------------------------------


def test_a_queue_or_node_named_purge_is_no_purge(tmp_path: Path) -> None:
    conf = (
        "[program:worker]\ncommand=celery -A app worker -Q purge,default -n purge@%%h\n"
        "[program:other]\ncommand=celery -A app worker -Q purge\n"
    )
    assert scan(tmp_path, {"etc/supervisord.conf": conf}, "boot-reset") == []


def test_purge_in_a_json_cmd_and_a_compose_command_is_reported(tmp_path: Path) -> None:
    files = {
        "Dockerfile": 'FROM python\nCMD ["celery", "-A", "app", "worker", "--purge"]\n',
        "docker-compose.yml": (
            "services:\n  worker:\n    image: app\n    command: celery -A app worker --purge\n"
        ),
    }
    found = scan(tmp_path, files, "boot-reset")
    assert sorted(where(found)) == [("Dockerfile", 2), ("docker-compose.yml", 4)]
    assert all("purges the queues" in f.message for f in found)


def test_a_broker_only_extended_when_set_stays_empty_by_default(tmp_path: Path) -> None:
    source = FILLED_BROKER.replace(
        'if BROKER_URL == "":\n    BROKER_URL = ', "if BROKER_URL:\n    BROKER_URL += "
    )
    found = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert where(found) == [("proj/settings.py", 4)]
    filled_in_else = FILLED_BROKER.replace(
        'if BROKER_URL == "":\n', "if BROKER_URL:\n    pass\nelse:\n"
    )
    assert scan(tmp_path, {"proj/settings.py": filled_in_else}, "settings") == []


def test_a_module_lock_in_a_decorator_serialising_a_library_is_not_reported(
    tmp_path: Path,
) -> None:
    source = """\
    import threading
    from functools import wraps

    _render_lock = threading.Lock()


    def not_thread_safe(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            with _render_lock:
                return func(*args, **kwargs)

        return wrapper
    """
    assert scan(tmp_path, {"app/pdf.py": source}, "in-process-lock") == []


def test_a_media_pattern_only_debug_serves_does_not_hide_another(tmp_path: Path) -> None:
    urls = """\
    from django.conf import settings
    from django.urls import re_path
    from django.views.static import serve

    urlpatterns = []
    if settings.DEBUG:
        urlpatterns += [re_path(r"^m/(?P<p>.*)$", serve, {"document_root": settings.MEDIA_ROOT})]

    urlpatterns += [
        re_path(r"^protected/(?P<p>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
    ]
    """
    found = scan(tmp_path, {"app/urls.py": urls, "app/models.py": UPLOADS}, "file-write")
    assert where(found) == [("app/urls.py", 10)]


def test_two_programs_of_one_folder_that_both_migrate_stay_two(tmp_path: Path) -> None:
    script = "#!/bin/sh\npython manage.py migrate --noinput\nexec gunicorn app.wsgi\n"
    files = {"docker/web.sh": script, "docker/worker.sh": script}
    assert len(scan(tmp_path, files, "boot-migrate")) == 2


def test_a_block_scalar_and_a_mounted_source_folder_are_no_environment(tmp_path: Path) -> None:
    compose = """\
    services:
      cfg:
        image: app
        environment:
          EXTRA_CONFIG: |
            DATABASE_URL=sqlite:////tmp/x.db
          NEXT: 1
      web:
        image: app
        environment:
          DATABASE_URL: sqlite:////app/db.sqlite3
        volumes:
          - ./src:/app
    """
    assert scan(tmp_path, {"docker-compose.yml": compose}, "settings") == []
