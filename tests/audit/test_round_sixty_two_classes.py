"""Classes of the sixty-second round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-fourteenth to hundred-and-sixteenth groups (ten projects,
labelled before either tool ran on them), read after their first measurement:

- An s6-overlay service that the ``user`` bundle does not reach is never started: its
  ``run`` script, and a crontab installed for a cron daemon that is such a service, keep
  nothing (redirectioneaza, war-support-sprijin-de-urgenta-api).
- ``CACHES["uploads"] = {…FileBasedCache, "LOCATION": "/tmp/…"}`` names a folder, not a
  server: the file cache is the finding, its path no address (votong).
- ``url = urlparse(os.getenv("DATABASE_URL", "postgres://…@localhost/app"))`` and
  ``"HOST": url.hostname``: the default's host is production's (muckrock).
- A django-environ schema built in one settings module (``env = environ.Env(DB_HOST=(str,
  "localhost"))``) and read in another (``from .environment import env``) gives its default
  there, the schema's line related (redirectioneaza).
- A settings module for an image build step (``compress_production.py``) is not what
  requests run: a base value it leaves in place is no production value (muckrock).
- Django's cache wiped in ``ready()`` (``caches["lock"].reset_all()``, ``cache.clear()``)
  resets what every running replica shares, at each process start (muckrock).
- ``doc.ffile.open("wb")`` on a model's file field (the module also deletes or saves
  ``doc.ffile``) writes through its storage, not to a path (muckrock).
- ``self.activity["count"] = …`` on a class-level dict: an object's record, refilled on
  each call, not a memo (muckrock).
- No ``CACHES`` with django-q's ``Q_CLUSTER`` configured: the cluster keeps its state in
  the default cache, related to the finding (war-support-sprijin-de-urgenta-api).
- A folder under ``MEDIA_ROOT`` that a command fills by path and a view streams: the
  storage setting does not move those files, so it is a data folder of its own
  (healthsites).
"""

from __future__ import annotations

import ast
from pathlib import Path

from horizontal.audit.file_calls import written_path
from horizontal.audit.source import PythonModule
from tests.audit.test_outside_measurements import scan, where

CRON_RUN = "#!/bin/sh -e\ncron -f\n"
INIT = (
    "#!/bin/sh\npython manage.py check\n"
    "(crontab -l; echo '*/5 * * * * python manage.py send') | crontab -\n"
)
WEB_RUN = "#!/bin/sh\nexec gunicorn app.wsgi\n"


def s6_tree(bundle: list[str]) -> dict[str, str]:
    files = {
        "docker/s6-rc.d/cron/run": CRON_RUN,
        "docker/s6-rc.d/cron/type": "longrun\n",
        "docker/s6-rc.d/init/up": "/bin/sh /etc/s6-overlay/s6-rc.d/init/init.sh\n",
        "docker/s6-rc.d/init/init.sh": INIT,
        "docker/s6-rc.d/init/type": "oneshot\n",
        "docker/s6-rc.d/web/run": WEB_RUN,
        "docker/s6-rc.d/web/type": "longrun\n",
        "docker/s6-rc.d/web/dependencies": "init\n",
        "docker/s6-rc.d/user/type": "bundle\n",
    }
    files.update({f"docker/s6-rc.d/user/contents.d/{name}": "" for name in bundle})
    return files


def test_cron_in_an_s6_service_the_bundle_starts_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, s6_tree(["web", "cron"]), "image-cron")
    assert {path for path, _ in where(found)} >= {"docker/s6-rc.d/cron/run"}


def test_cron_in_an_s6_service_no_bundle_starts_is_not(tmp_path: Path) -> None:
    # init is reached through web's dependencies; cron through nothing.
    assert scan(tmp_path, s6_tree(["web"]), "image-cron") == []


FILE_CACHE_ALIAS = """\
INSTALLED_APPS = ["file_resubmit"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                      "LOCATION": "redis://cache.internal:6379"}}
CACHES["file_resubmit"] = {
    "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
    "LOCATION": "/tmp/file_resubmit/",
}
"""


def test_a_file_cache_alias_is_reported_once_for_its_backend_not_its_folder(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"app/settings.py": FILE_CACHE_ALIAS}, "settings")
    assert [f.message.split(":", 1)[0] for f in found] == ["CACHES"]
    assert "is this host" not in found[0].message


def test_a_file_cache_alias_on_a_shared_volume_location_has_no_address_finding(
    tmp_path: Path,
) -> None:
    redis_alias = FILE_CACHE_ALIAS.replace(
        "django.core.cache.backends.filebased.FileBasedCache",
        "django.core.cache.backends.redis.RedisCache",
    ).replace("/tmp/file_resubmit/", "redis://cache.internal:6379/2")
    assert scan(tmp_path, {"app/settings.py": redis_alias}, "settings") == []


PARSED_URL = """\
import os
import urllib.parse

INSTALLED_APPS = []
CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": os.environ["REDIS_URL"]}}}}
url = urllib.parse.urlparse(os.environ.get("DATABASE_URL", "postgres://app@{host}/app"))
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": url.path[1:],
        "USER": url.username,
        "HOST": url.hostname,
    }}
}}
"""


def test_a_parsed_database_url_defaulting_to_this_host_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": PARSED_URL.format(host="localhost")}, "settings")
    assert where(found) == [("app/settings.py", 7)]
    assert "localhost" in found[0].message


def test_a_parsed_database_url_defaulting_to_a_named_server_is_not(tmp_path: Path) -> None:
    source = PARSED_URL.format(host="db.internal")
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


SCHEMA = 'import environ\n\nenv = environ.Env(\n    DATABASE_HOST=(str, "{host}"),\n)\n'
READER = """\
from .environment import env

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                      "LOCATION": "redis://cache.internal:6379"}}
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "app",
        "HOST": env.str("DATABASE_HOST"),
    }
}
"""


def test_a_schema_default_read_in_another_settings_module_is_reported_there(
    tmp_path: Path,
) -> None:
    files = {
        "app/settings/__init__.py": "from .database import *\nfrom .environment import *\n",
        "app/settings/environment.py": SCHEMA.format(host="localhost"),
        "app/settings/database.py": READER,
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings/database.py", 10)]
    assert [(r.path, r.line) for r in found[0].related] == [("app/settings/environment.py", 4)]


def test_a_schema_default_naming_a_server_is_not(tmp_path: Path) -> None:
    files = {
        "app/settings/__init__.py": "from .database import *\nfrom .environment import *\n",
        "app/settings/environment.py": SCHEMA.format(host="db.internal"),
        "app/settings/database.py": READER,
    }
    assert scan(tmp_path, files, "settings") == []


BASE_LOCMEM = """\
INSTALLED_APPS = []
SECRET_KEY = "x"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
"""
HOSTED = (
    "from app.settings.base import *\n"
    'CACHES["default"] = {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}\n'
)


def test_a_build_step_module_does_not_keep_a_base_value_production_replaces(
    tmp_path: Path,
) -> None:
    files = {
        "app/settings/base.py": BASE_LOCMEM,
        "app/settings/production.py": HOSTED,
        "app/settings/compress_production.py": "from app.settings.base import *\n"
        'STATIC_URL = "https://cdn.example.com/"\n',
    }
    assert scan(tmp_path, files, "settings") == []


def test_a_served_module_that_leaves_the_base_value_keeps_it(tmp_path: Path) -> None:
    files = {
        "app/settings/base.py": BASE_LOCMEM,
        "app/settings/production.py": HOSTED,
        "app/settings/staging.py": "from app.settings.base import *\n"
        'STATIC_URL = "https://cdn.example.com/"\n',
    }
    assert where(scan(tmp_path, files, "settings")) == [("app/settings/base.py", 3)]


APPS = """\
from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self):
        from django.core.cache import caches

        caches["lock"].reset_all()
"""
COMMAND = """\
from django.core.cache import cache
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        cache.clear()
"""


def test_a_cache_wiped_in_ready_is_a_boot_reset(tmp_path: Path) -> None:
    found = scan(tmp_path, {"accounts/apps.py": APPS}, "boot-reset")
    assert where(found) == [("accounts/apps.py", 10)]


def test_a_cache_wiped_by_a_command_an_operator_runs_is_not(tmp_path: Path) -> None:
    files = {"accounts/management/commands/clear_all.py": COMMAND}
    assert scan(tmp_path, files, "boot-reset") == []


FIELD_FILE = """\
import requests


def import_file(ffile, url):
    ffile.ffile.delete(save=False)
    with ffile.ffile.open("wb") as out, requests.get(url, stream=True) as response:
        for chunk in response.iter_content(1024):
            out.write(chunk)
"""


def _opened_for_writing(source: str) -> ast.AST | None:
    tree = ast.parse(source)
    module = PythonModule("docs/tasks.py", source, tree, source.splitlines())
    call = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "open"
    )
    return written_path(module, call)


def test_a_file_fields_value_opened_for_writing_goes_to_its_storage(tmp_path: Path) -> None:
    assert _opened_for_writing(FIELD_FILE) is None
    assert scan(tmp_path, {"docs/tasks.py": FIELD_FILE}, "file-write") == []


def test_a_path_opened_for_writing_is_a_write_to_that_path() -> None:
    source = FIELD_FILE.replace("    ffile.ffile.delete(save=False)\n", "")
    written = _opened_for_writing(source)
    assert written is not None and ast.unparse(written) == "ffile.ffile"


RECORD = """\
from app.models import Notification


class ActivityDigest:
    activity = {{"count": 0}}

    def get_activity(self, user):
        notifications = Notification.objects.filter(user=user)
        {write}
        return self.activity
"""


def test_a_class_dict_filled_by_field_name_on_each_call_is_no_memo(tmp_path: Path) -> None:
    source = RECORD.format(write='self.activity["count"] = notifications.count()')
    assert scan(tmp_path, {"app/digests.py": source}, "cache") == []


def test_a_class_dict_keyed_by_what_it_read_is_a_memo(tmp_path: Path) -> None:
    source = RECORD.format(
        write="if user.pk not in self.activity:\n"
        "            self.activity[user.pk] = notifications.count()"
    )
    found = scan(tmp_path, {"app/digests.py": source}, "cache")
    assert where(found) == [("app/digests.py", 5)]


Q_CLUSTER = """\
INSTALLED_APPS = ["django_q"]
Q_CLUSTER = {"name": "app", "orm": "default"}
"""
VIEW = "from django.core.cache import cache\n\n\ndef hit(request):\n    cache.incr('hits')\n"


def test_no_caches_with_django_q_relates_its_cluster(tmp_path: Path) -> None:
    files = {"app/settings.py": Q_CLUSTER, "app/views.py": VIEW}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 1)]
    assert ("app/settings.py", 2) in [(r.path, r.line) for r in found[0].related]


def test_a_shared_cache_with_django_q_is_silent(tmp_path: Path) -> None:
    shared = Q_CLUSTER + (
        'CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",'
        ' "LOCATION": "redis://cache.internal"}}\n'
    )
    assert scan(tmp_path, {"app/settings.py": shared, "app/views.py": VIEW}, "settings") == []
