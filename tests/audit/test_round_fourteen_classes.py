"""Classes of the fourteenth round (issue 14), each with a true case and a safe twin.

- A memo over a lookup through a related manager (``unit.display_units.filter(default=
  True)``) or under a project's own ``@lang_lru_cache`` is a memo over the database; one
  whose entries expire within a minute (``@memoize(ttl=20)``) is as fresh as a cache read.
- ``uwsgi --static-map /media=…`` on a start script's command line serves uploads from
  this host's disk, as the same option in an ini file does.
- A ``DATABASES`` literal with no ``HOST`` chosen in the ``else`` of ``if "DATABASE_URL"
  in env`` is what production gets when nothing is set.
- A ``%``-formatted default (``default="sqlite:///%s/db.sqlite3" % BASE_DIR``) is read.
- ``STORAGES = global_settings.STORAGES`` sets the setting to Django's local default.
- A runit service the image installs next to the web service (``ln -s run_beat.bash
  /etc/service/beat/run``) runs one scheduler per container.
- django-configurations' ``DATABASES = values.DatabaseURLValue(url)`` is read as a URL.
- Not what replicas run: a Dockerfile stage named ``dev``, a ``supervisord-dev.conf``, a
  Python file in a ``*scripts/`` folder (run by hand), ``samples/`` and ``localdev/``
  folders, a ``docs/`` folder that is not a Django app.
- This host's own files: a profiler's report, a file moved into ``/etc/``. (A lock file is
  not: other requests look for it, so it stays a finding.)
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from horizontal.audit.settings_imported import random_secret_key_sites
from tests.audit.test_outside_measurements import scan, where

# -- memos over the database ---------------------------------------------------------------

RELATED_LOOKUP = """\
from functools import lru_cache


@lru_cache()
def get_display_unit(sales_unit):
    return sales_unit.display_units.filter(default=True).first()
"""

PURE_LOOKUP = """\
from functools import lru_cache


@lru_cache()
def get_display_unit(units, name):
    return dict(units).get(name, None)
"""


def test_a_memo_over_a_related_managers_lookup_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"units.py": RELATED_LOOKUP}, "cache")
    assert where(found) == [("units.py", 4)]


def test_a_memo_over_a_dict_lookup_is_not(tmp_path: Path) -> None:
    assert scan(tmp_path, {"units.py": PURE_LOOKUP}, "cache") == []


PROJECT_MEMO = """\
from app.utils.i18n import lang_lru_cache
from app.models import GDPRSettings


@lang_lru_cache
def get_setting(shop):
    return GDPRSettings.objects.get_or_create(shop=shop)[0]
"""


def test_a_projects_own_lru_cache_wrapper_is_a_memo(tmp_path: Path) -> None:
    found = scan(tmp_path, {"gdpr.py": PROJECT_MEMO}, "cache")
    assert where(found) == [("gdpr.py", 5)]


def test_a_decorator_that_only_ends_in_cache_is_not(tmp_path: Path) -> None:
    # ``@never_cache`` marks a response; it memoises nothing.
    source = PROJECT_MEMO.replace("lang_lru_cache", "never_cache")
    assert scan(tmp_path, {"gdpr.py": source}, "cache") == []


def test_a_memo_that_expires_within_a_minute_is_not_reported(tmp_path: Path) -> None:
    short = PROJECT_MEMO.replace("@lang_lru_cache", "@memoize(ttl=20)").replace(
        "from app.utils.i18n import lang_lru_cache", "from app.utils import memoize"
    )
    assert scan(tmp_path, {"gdpr.py": short}, "cache") == []
    hourly = short.replace("ttl=20", "ttl=3600")
    assert where(scan(tmp_path / "b", {"gdpr.py": hourly}, "cache")) == [("gdpr.py", 5)]


# -- uWSGI serving media, given on the command line --------------------------------------

UWSGI_START = """\
#!/bin/sh
set -e
uwsgi \\
    --http :8000 \\
    --module app.wsgi:application \\
    --static-map /static=/app/static \\
    --static-map /media=/app/media \\
    --processes 4
"""


def test_uwsgi_static_map_of_media_on_the_command_line_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"bin/docker_start.sh": UWSGI_START}, "file-write")
    assert where(found) == [("bin/docker_start.sh", 7)]


def test_uwsgi_static_map_of_static_files_alone_is_not(tmp_path: Path) -> None:
    source = UWSGI_START.replace("    --static-map /media=/app/media \\\n", "")
    assert scan(tmp_path, {"bin/docker_start.sh": source}, "file-write") == []


# -- settings: the branch production gets, formatted defaults, Django's defaults ------------

NO_HOST_IN_ELSE = """\
import os
import dj_database_url

INSTALLED_APPS = []
if "DATABASE_URL" in os.environ:
    DATABASES = {"default": dj_database_url.config()}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "app",
        }
    }
"""


def test_a_database_with_no_host_in_the_branch_taken_when_nothing_is_set(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"settings.py": NO_HOST_IN_ELSE}, "settings")
    assert [(f.line, [r.line for r in f.related]) for f in found] == [(9, [8])]


def test_a_database_with_no_host_only_under_debug_is_not_reported(tmp_path: Path) -> None:
    source = NO_HOST_IN_ELSE.replace(
        'if "DATABASE_URL" in os.environ:',
        'DEBUG = os.environ.get("DEBUG") == "1"\nif not DEBUG:',
    )
    assert scan(tmp_path, {"settings.py": source}, "settings") == []


PERCENT_DEFAULT = """\
import environ

env = environ.Env()
BASE_DIR = "/app"
INSTALLED_APPS = []
DATABASES = {
    "default": env.db_url(
        "DATABASE_URL",
        default="sqlite:///%s/db.sqlite3" % BASE_DIR,
    ),
}
"""


def test_a_percent_formatted_sqlite_default_is_read(tmp_path: Path) -> None:
    found = scan(tmp_path, {"settings.py": PERCENT_DEFAULT}, "settings")
    assert [(f.line, f.message.split(":")[0]) for f in found] == [(9, "DATABASES")]


def test_a_percent_formatted_server_default_is_not_sqlite(tmp_path: Path) -> None:
    source = PERCENT_DEFAULT.replace(
        '"sqlite:///%s/db.sqlite3" % BASE_DIR', '"postgres://app@%s/app" % "db.internal"'
    )
    assert scan(tmp_path, {"settings.py": source}, "settings") == []


COPIED_DEFAULT = """\
import copy
import os

from django.conf import global_settings

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
STORAGES = copy.deepcopy(global_settings.STORAGES)
if os.environ.get("FILE_STORAGE"):
    STORAGES["default"]["BACKEND"] = os.environ["FILE_STORAGE"]
"""


def test_storages_copied_from_djangos_defaults_is_local_disk(tmp_path: Path) -> None:
    found = scan(tmp_path, {"settings.py": COPIED_DEFAULT}, "settings")
    assert [(f.line, f.message.split(" (")[0]) for f in found] == [
        (8, "STORAGES is Django's default")
    ]


def test_a_copy_whose_backend_is_replaced_unconditionally_is_not(tmp_path: Path) -> None:
    source = COPIED_DEFAULT.replace(
        'if os.environ.get("FILE_STORAGE"):\n    STORAGES["default"]["BACKEND"] = '
        'os.environ["FILE_STORAGE"]',
        'STORAGES["default"]["BACKEND"] = "storages.backends.s3.S3Storage"',
    )
    assert scan(tmp_path, {"settings.py": source}, "settings") == []


# -- runit services installed beside the web service --------------------------------------

DOCKERFILE = """\
FROM python:3.12
ENV SERVICES_DIR=/etc/service
COPY . /app
RUN mkdir -p ${SERVICES_DIR}/uwsgi ${SERVICES_DIR}/celery_beat
RUN ln -s "/app/docker/run_uwsgi.bash" "${SERVICES_DIR}/uwsgi/run" && \\
    ln -s "/app/docker/run_celery_beat.bash" "${SERVICES_DIR}/celery_beat/run"
CMD ["/sbin/my_init"]
"""
RUN_UWSGI = """\
#!/bin/bash
exec uwsgi --ini /app/docker/uwsgi.ini
"""
RUN_BEAT = """\
#!/bin/bash
cd /app
exec celery -A app beat --loglevel=info
"""


def test_a_beat_service_installed_beside_the_web_service_is_reported(tmp_path: Path) -> None:
    files = {
        "Dockerfile": DOCKERFILE,
        "docker/run_uwsgi.bash": RUN_UWSGI,
        "docker/run_celery_beat.bash": RUN_BEAT,
    }
    found = scan(tmp_path, files, "scheduler")
    assert [(f.path, f.line, [r.path for r in f.related]) for f in found] == [
        ("docker/run_celery_beat.bash", 3, ["Dockerfile"])
    ]


def test_a_beat_service_in_an_image_that_serves_nothing_is_not(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE.replace(
        'ln -s "/app/docker/run_uwsgi.bash" "${SERVICES_DIR}/uwsgi/run" && \\\n    ', ""
    )
    files = {"Dockerfile": dockerfile, "docker/run_celery_beat.bash": RUN_BEAT}
    assert scan(tmp_path, files, "scheduler") == []


# -- what developers and operators run, not replicas ---------------------------------------

STAGED_DOCKERFILE = """\
FROM python:3.12-alpine AS base
COPY . /app

FROM base AS dev
CMD ["sh", "-c", "./manage.py migrate --no-input && gunicorn app.wsgi"]

FROM base AS prod
CMD ["sh", "-c", "./manage.py migrate --no-input && gunicorn app.wsgi"]
"""


def test_migrate_in_a_dockerfiles_production_stage_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"Dockerfile": STAGED_DOCKERFILE}, "boot-migrate")
    assert where(found) == [("Dockerfile", 8)]


def test_migrate_in_a_development_stage_alone_is_not(tmp_path: Path) -> None:
    development_only = STAGED_DOCKERFILE.split("FROM base AS prod")[0]
    assert scan(tmp_path, {"Dockerfile": development_only}, "boot-migrate") == []


SUPERVISOR = """\
[program:app]
command=sh -c "python manage.py migrate && gunicorn app.wsgi"
"""


def test_a_supervisor_config_named_for_development_is_not_read(tmp_path: Path) -> None:
    files = {"back/supervisord.conf": SUPERVISOR, "back/supervisord-dev.conf": SUPERVISOR}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("back/supervisord.conf", 2)]


HAND_RUN = """\
from app.models import Email

with open("/srv/esp/emailtimes.txt", mode="w") as f:
    f.write("\\n".join(str(e.sent) for e in Email.objects.all()))
"""


def test_a_script_in_a_scripts_folder_is_run_by_hand(tmp_path: Path) -> None:
    assert scan(tmp_path, {"esp/useful_scripts/get_emails.py": HAND_RUN}, "file-write") == []
    found = scan(tmp_path / "b", {"esp/app/export.py": HAND_RUN}, "file-write")
    assert where(found) == [("esp/app/export.py", 3)]


CONFIGURATION_URL = """\
from configurations import Configuration, values


class Base(Configuration):
    INSTALLED_APPS = []
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
    DATABASES = values.DatabaseURLValue("postgres://postgres@localhost/app")


class Production(Base):
    pass
"""


def test_a_configuration_database_url_defaulting_to_this_host(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": CONFIGURATION_URL}, "settings")
    assert where(found) == [("app/settings.py", 7)]


def test_a_configuration_database_url_on_a_shared_host_is_not(tmp_path: Path) -> None:
    shared = CONFIGURATION_URL.replace("@localhost/", "@db.internal/")
    assert scan(tmp_path, {"app/settings.py": shared}, "settings") == []


# -- writes that are this host's own, and folders no replica runs --------------------------

PROFILER = """\
import cProfile


class ProfileMiddleware:
    def __call__(self, request):
        with open(self.profiler_output_path, "w") as f:
            f.write(self.report)
        with open(self.report_path, "w") as f:
            f.write(self.report)
"""


def test_a_profilers_report_is_this_hosts_own_and_a_report_is_not(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/middleware.py": PROFILER}, "file-write")
    assert [f.source.strip() for f in found] == ['with open(self.report_path, "w") as f:']


HOST_CONFIG = """\
import shutil


def apply_logging(path):
    shutil.move(path, "/etc/rsyslog.d/app.conf")


def keep_export(path):
    shutil.move(path, "/srv/app/exports/latest.csv")
"""


def test_a_file_moved_into_etc_is_host_configuration(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/logging_setup.py": HOST_CONFIG}, "file-write")
    assert [f.line for f in found] == [9]


WRITER = """\
def write_report(rows):
    with open("/srv/app/report.csv", "w") as f:
        f.write(rows)
"""


def test_sample_and_localdev_folders_are_not_scanned(tmp_path: Path) -> None:
    files = {
        "plugin/samples/integration/report.py": WRITER,
        "localdev/configs/api.py": WRITER,
        "plugin/report.py": WRITER,
    }
    assert where(scan(tmp_path, files, "file-write")) == [("plugin/report.py", 2)]


def test_a_docs_folder_is_scanned_only_when_it_is_a_django_app(tmp_path: Path) -> None:
    files = {"docs/hooks.py": WRITER, "docs/__init__.py": ""}
    assert scan(tmp_path, files, "file-write") == []
    app = {**files, "docs/models.py": "", "docs/views.py": ""}
    assert where(scan(tmp_path / "b", app, "file-write")) == [("docs/hooks.py", 2)]


def test_a_memo_in_an_import_jobs_code_lives_as_long_as_the_run(tmp_path: Path) -> None:
    files = {"app/importer/base.py": RELATED_LOOKUP, "app/units.py": RELATED_LOOKUP}
    assert where(scan(tmp_path, files, "cache")) == [("app/units.py", 4)]


SEARCH_INDEX = """\
INSTALLED_APPS = ["haystack"]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
HAYSTACK_CONNECTIONS = {
    "default": {
        "ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
        "PATH": "/srv/app/whoosh_index",
    }
}
"""


def test_a_whoosh_search_index_is_a_folder_on_one_host(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": SEARCH_INDEX}, "settings")
    assert [(f.line, f.message.split(":")[0]) for f in found] == [(5, "HAYSTACK_CONNECTIONS")]


def test_an_elasticsearch_index_is_shared(tmp_path: Path) -> None:
    shared = SEARCH_INDEX.replace(
        "whoosh_backend.WhooshEngine", "elasticsearch7_backend.Elasticsearch7SearchEngine"
    ).replace('"PATH": "/srv/app/whoosh_index"', '"URL": "http://search:9200/"')
    assert scan(tmp_path, {"app/settings.py": shared}, "settings") == []


# -- a renderer's output written into a settings folder ------------------------------------

RENDERED_INTO_FOLDER = """\
from django.conf import settings

from app.pdf import render_pdf


class Invoice:
    def generate_pdf(self):
        settings.INVOICES_PATH.mkdir(exist_ok=True)
        render_pdf(
            html=self.render_html(),
            output=settings.INVOICES_PATH / self.filename,
        )
"""


def test_a_renderers_output_keyword_into_a_folder_is_a_write(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/invoices.py": RENDERED_INTO_FOLDER}, "file-write")
    assert where(found) == [("app/invoices.py", 11)]


def test_an_output_keyword_naming_a_format_is_not(tmp_path: Path) -> None:
    source = RENDERED_INTO_FOLDER.replace(
        "output=settings.INVOICES_PATH / self.filename", 'output="pdf"'
    )
    assert scan(tmp_path, {"app/invoices.py": source}, "file-write") == []


WEASYPRINT = """\
from django.conf import settings
from weasyprint import HTML


def render_badge(badge):
    HTML(string=badge.html).write_pdf(settings.BADGES_ROOT / f"{badge.pk}.pdf")


def render_badge_in_memory(badge):
    return HTML(string=badge.html).write_pdf()
"""


def test_weasyprint_writing_to_a_path_is_a_write(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/badges.py": WEASYPRINT}, "file-write")
    assert where(found) == [("app/badges.py", 6)]


# -- a temp file that removes itself --------------------------------------------------------

THUMBNAIL = """\
from tempfile import NamedTemporaryFile


def resize(image, storage, name):
    nm = NamedTemporaryFile(suffix=".png")
    image.save(nm.name)
    storage.save(name, nm)
"""


def test_a_named_temporary_file_outside_a_with_removes_itself(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/images.py": THUMBNAIL}, "file-write") == []
    kept = THUMBNAIL.replace(
        'NamedTemporaryFile(suffix=".png")', "NamedTemporaryFile(delete=False)"
    )
    # Kept but read only here: no other request opens it.
    assert scan(tmp_path / "b", {"app/images.py": kept}, "file-write") == []
    handed = kept.replace("storage.save(name, nm)", "store_thumbnail.delay(name, nm.name)")
    assert where(scan(tmp_path / "c", {"app/images.py": handed}, "file-write")) == [
        ("app/images.py", 6)
    ]


# -- globals used as scratch variables, not built once --------------------------------------

SCRATCH_GLOBALS = """\
from app.models import Finding, Rule

vul_col = None
severity = None


def parse_report(data):
    global vul_col, severity
    for item in data:
        severity = item["severity"]
        if severity == "HIGH":
            vul_col = "danger"
        else:
            vul_col = "info"
        Finding.objects.create(severity=severity, colour=vul_col)
"""

BUILT_ONCE = """\
from app.models import Rule

RULES = None


def rules():
    global RULES
    if RULES is None:
        RULES = list(Rule.objects.all())
    return RULES
"""


def test_globals_set_each_call_from_its_data_are_not_a_memo(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/parser.py": SCRATCH_GLOBALS}, "cache") == []


def test_a_global_built_once_from_the_database_is(tmp_path: Path) -> None:
    assert where(scan(tmp_path, {"app/rules.py": BUILT_ONCE}, "cache")) == [("app/rules.py", 7)]


# -- a script that only a development start runs -------------------------------------------

POST_DEPLOY = """\
#!/bin/bash -ex
python manage.py migrate --noinput
"""


def test_a_script_only_a_runserver_start_runs_is_a_developers(tmp_path: Path) -> None:
    files = {
        "bin/post-deploy.sh": POST_DEPLOY,
        "bin/run-dev.sh": "#!/bin/bash\nbin/post-deploy.sh\n./manage.py runserver 0.0.0.0:8000\n",
    }
    assert scan(tmp_path, files, "boot-migrate") == []
    production = {
        **files,
        "bin/run-prod.sh": "#!/bin/bash\nbin/post-deploy.sh\ngunicorn app.wsgi\n",
    }
    found = scan(tmp_path / "b", production, "boot-migrate")
    assert [(f.path, f.line, [r.path for r in f.related]) for f in found] == [
        ("bin/post-deploy.sh", 2, ["bin/run-prod.sh"])
    ]


# -- a key file the settings module writes at first boot -----------------------------------

KEY_FILE_SETTINGS = """\
import os

from keyutil import random_key

DATA_DIR = {data_dir!r}
secret_key_file = os.getenv("SECRET_KEY_FILE", None)
if secret_key_file is None:
    secret_key_file = os.path.join(DATA_DIR, "secret.dat")

if not os.path.exists(secret_key_file):
    fd = os.open(secret_key_file, os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(random_key(64))

SECRET_KEY = open(secret_key_file).read()
"""


def test_a_key_file_written_at_first_boot_is_found_by_both_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "keyutil.py").write_text("def random_key(n):\n    return 'k' * n\n")
    source = KEY_FILE_SETTINGS.format(data_dir=str(tmp_path))
    (tmp_path / "first_boot_key.py").write_text(source)
    monkeypatch.delitem(sys.modules, "first_boot_key", raising=False)
    importlib.import_module("first_boot_key")  # W050 reads the module Django imported
    assert random_secret_key_sites("first_boot_key") == [f"{tmp_path}/first_boot_key.py:11"]
    found = scan(tmp_path / "a", {"proj/settings.py": source}, "settings")
    assert [(f.line, f.message.split(":")[0]) for f in found] == [
        (11, "SECRET_KEY is generated at start-up")
    ]


def test_a_key_file_only_read_is_the_operators(tmp_path: Path) -> None:
    read_only = KEY_FILE_SETTINGS.split("if not os.path.exists")[0] + (
        "SECRET_KEY = open(secret_key_file).read()\n"
    )
    source = read_only.format(data_dir=str(tmp_path))
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []


# -- a console script that migrates, then becomes the server -------------------------------

CONSOLE_SCRIPT = """\
import os
import sys

from app.manage import main as manage


def main():
    fast = "--fast" in sys.argv
    if not fast:
        sys.argv = ["app-admin", "migrate"]
        manage()
    argv = [sys.executable, "-m", "gunicorn.app.wsgiapp", "app.wsgi"]
    os.execv(sys.executable, argv)
"""


def test_a_console_script_that_migrates_then_execs_the_server(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/run/__init__.py": CONSOLE_SCRIPT}, "boot-migrate")
    assert where(found) == [("app/run/__init__.py", 10)]


def test_a_console_script_that_only_serves_is_not_reported(tmp_path: Path) -> None:
    serves = CONSOLE_SCRIPT.replace(
        'sys.argv = ["app-admin", "migrate"]', 'sys.argv = ["a", "check"]'
    )
    assert scan(tmp_path, {"app/run/__init__.py": serves}, "boot-migrate") == []


PRETIX_STYLE_KEY = """\
import os

from django.utils.crypto import get_random_string

DATA_DIR = "/data"
SECRET_KEY = os.environ.get("APP_SECRET", "")
if not SECRET_KEY:
    SECRET_FILE = os.path.join(DATA_DIR, ".secret")
    if os.path.exists(SECRET_FILE):
        with open(SECRET_FILE) as f:
            SECRET_KEY = f.read().strip()
    else:
        SECRET_KEY = get_random_string(50)
        with open(SECRET_FILE, "w") as f:
            f.write(SECRET_KEY)
"""


def test_a_key_file_and_the_key_read_from_it_are_one_finding(tmp_path: Path) -> None:
    found = scan(tmp_path, {"proj/settings.py": PRETIX_STYLE_KEY})
    # Related: the ``if not SECRET_KEY:`` that makes it the fallback, and the file's write.
    assert [(f.category, f.line, [r.line for r in f.related]) for f in found] == [
        ("settings", 13, [7, 14])
    ]


NESTED_EMPTY_HOST = """\
import configparser
import os

config = configparser.RawConfigParser()
INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "app",
        "HOST": os.getenv("APP_DB_HOST", config.get("database", "host", fallback="")),
    }
}
"""


def test_an_empty_host_default_through_a_config_lookup_is_this_host(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": NESTED_EMPTY_HOST}, "settings")
    assert [(f.line, f.message.split(",")[0]) for f in found] == [
        (11, "DATABASES: HOST defaults to empty")
    ]
    named = NESTED_EMPTY_HOST.replace('fallback=""', 'fallback="db.internal"')
    assert scan(tmp_path / "b", {"app/settings.py": named}, "settings") == []


LOCKF = """\
import fcntl


def send_mail_once(path):
    handle = open(path, "w")
    fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        send()
    finally:
        fcntl.lockf(handle, fcntl.LOCK_UN)
"""


def test_a_locks_release_is_not_a_second_lock(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/mail.py": LOCKF}, "in-process-lock")
    assert where(found) == [("app/mail.py", 6)]


def test_one_modules_file_locks_are_one_finding(tmp_path: Path) -> None:
    two = LOCKF + (
        "\n\ndef rotate(path):\n"
        "    with open(path) as handle:\n"
        "        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)\n"
    )
    found = scan(tmp_path, {"app/mail.py": two}, "in-process-lock")
    assert [(f.line, [r.line for r in f.related]) for f in found] == [(6, [15])]


def test_a_storage_path_is_part_of_the_copied_default_storages_finding(tmp_path: Path) -> None:
    files = {
        "app/settings.py": COPIED_DEFAULT,
        "app/exports.py": "from django.core.files.storage import default_storage\n\n\n"
        "def export_path(name):\n    return default_storage.path(name)\n",
    }
    found = scan(tmp_path, files)
    assert [(f.path, f.line, [(r.path, r.line) for r in f.related]) for f in found] == [
        ("app/settings.py", 8, [("app/exports.py", 5)])
    ]
