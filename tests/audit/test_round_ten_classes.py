"""Classes found on the nineteenth fresh corpus group (issue 14, the tenth round): an
``elif`` chain read as Python runs it, one root cause for a local storage and the code
that reads its uploads by path, and start scripts read as the shell runs them (help text
and heredocs are printed, a function's body runs where it is called). Each has a true
case that must be found and a safe twin that must stay silent."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from horizontal.audit.settings_imported import random_secret_key_sites
from tests.audit.test_outside_measurements import scan, where

# -- an elif chain: each test in turn -------------------------------------------------------

ENV_KEY = 'os.environ["SECRET_KEY"]'
CHAIN = """\
import os, secrets
DEBUG = os.environ.get("DEBUG") == "1"
if DEBUG:
    SECRET_KEY = "dev"
elif {second}:
    SECRET_KEY = {second_key}
else:
    SECRET_KEY = {else_key}
"""


def test_a_random_key_in_an_elif_that_production_does_not_take_is_silent(tmp_path: Path) -> None:
    source = CHAIN.format(
        second='"CI" in os.environ',
        second_key="secrets.token_urlsafe(32)",
        else_key='os.environ["SECRET_KEY"]',
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []


def test_a_random_key_in_the_else_after_an_option_only_elif_is_found(tmp_path: Path) -> None:
    source = CHAIN.format(
        second='os.environ.get("PRODUCTION")',
        second_key='os.environ["SECRET_KEY"]',
        else_key="secrets.token_urlsafe(32)",
    )
    found = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert where(found) == [("proj/settings.py", 8)]
    assert found[0].message.startswith("SECRET_KEY is generated at start-up")


def test_w050_reads_the_elif_chain_as_the_audit_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One catalogue: the deploy check reads the imported settings module's source with
    # the audit's rules, and gives the same verdict on both chains.
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SECRET_KEY", "from-the-environment")
    for name, second, key, else_key in (
        ("ci_only_chain", '"CI" in os.environ', "secrets.token_urlsafe(32)", ENV_KEY),
        ("prod_only_chain", 'os.environ.get("PRODUCTION")', ENV_KEY, "secrets.token_urlsafe(32)"),
    ):
        text = CHAIN.format(second=second, second_key=key, else_key=else_key)
        (tmp_path / f"{name}.py").write_text(text)
        monkeypatch.delitem(sys.modules, name, raising=False)
        importlib.import_module(name)  # W050 reads the settings module Django imported
    assert random_secret_key_sites("ci_only_chain") == []
    assert random_secret_key_sites("prod_only_chain") == [f"{tmp_path}/prod_only_chain.py:8"]


# -- one root cause: the local storage and the code that needs it ----------------------------

MODELS = """\
from django.db import models

class Document(models.Model):
    file = models.FileField(upload_to="docs")

def page_count(document):
    with open(document.file.path, "rb") as handle:
        return handle.read().count(b"/Page")
"""


def test_path_reads_are_related_to_the_local_storage_setting(tmp_path: Path) -> None:
    files = {
        "proj/settings.py": "INSTALLED_APPS = ['docs']\nMEDIA_ROOT = '/srv/media'\n",
        "docs/models.py": MODELS,
    }
    found = scan(tmp_path, files)
    assert [(f.category, f.path) for f in found] == [("settings", "proj/settings.py")]
    assert ("docs/models.py", 7) in [(r.path, r.line) for r in found[0].related]
    assert "1 place in code that uses uploads by their local path" in found[0].message
    assert "storage.open(name)" in found[0].fix


def test_with_a_shared_storage_a_path_read_stands_alone(tmp_path: Path) -> None:
    files = {
        "proj/settings.py": (
            "INSTALLED_APPS = ['docs']\nMEDIA_ROOT = '/srv/media'\n"
            "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
        ),
        "docs/models.py": MODELS,
    }
    found = scan(tmp_path, files)
    assert where(found) == [("docs/models.py", 7)]
    assert found[0].message.startswith("reads the upload file.path")


def test_a_project_storage_class_built_in_code_is_one_finding_at_the_class(
    tmp_path: Path,
) -> None:
    files = {
        "core/file_system.py": (
            "from django.core.files.storage import FileSystemStorage\n\n"
            "class JournalFileSystemStorage(FileSystemStorage):\n"
            "    pass\n"
        ),
        "press/models.py": (
            "from django.db import models\n"
            "from core.file_system import JournalFileSystemStorage\n"
            "fs = JournalFileSystemStorage()\n"
            "class Press(models.Model):\n"
            "    logo = models.ImageField(storage=JournalFileSystemStorage('logos'))\n"
        ),
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("core/file_system.py", 3)]
    assert sorted((r.path, r.line) for r in found[0].related) == [
        ("press/models.py", 3),
        ("press/models.py", 5),
    ]


def test_another_library_file_system_storage_stays_its_own_finding(tmp_path: Path) -> None:
    files = {
        "thumbs/models.py": (
            "from easy_thumbnails.storage import ThumbnailFileSystemStorage\n"
            "thumbs = ThumbnailFileSystemStorage()\n"
        ),
    }
    assert where(scan(tmp_path, files, "file-write")) == [("thumbs/models.py", 2)]


# -- start scripts read as the shell runs them -------------------------------------------------

DISPATCH = """\
#!/bin/bash
set -e

show_help() {
    echo \"\"\"
Commands:
gunicorn     : start the web server
celery-beat  : start celery beat (python manage.py migrate first)
\"\"\"
}

run_server() {
  exec gunicorn app.wsgi --bind 0.0.0.0:8000
}

start_beat() {
  exec celery -A app beat -l INFO
}

case "$1" in
  gunicorn)
    run_server
  ;;
  celery-beat)
    start_beat
  ;;
  *)
    show_help
  ;;
esac
"""


def test_help_text_and_a_beat_arm_calling_a_function_are_not_reported(tmp_path: Path) -> None:
    files = {"docker/docker-entrypoint.sh": DISPATCH}
    assert scan(tmp_path, files, "scheduler") == []
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_function_that_migrates_called_before_the_server_is_found(tmp_path: Path) -> None:
    migrate_db = "migrate_db() {\n  python manage.py migrate --noinput\n}\n\n"
    source = DISPATCH.replace("run_server() {\n", migrate_db + "run_server() {\n")
    source = source.replace("    run_server\n", "    migrate_db\n    run_server\n")
    found = scan(tmp_path, {"docker/docker-entrypoint.sh": source}, "boot-migrate")
    assert [f.source for f in found] == ["python manage.py migrate --noinput"]


def test_a_function_that_starts_beat_beside_the_server_is_found(tmp_path: Path) -> None:
    source = DISPATCH.replace("    run_server\n", "    start_beat &\n    run_server\n")
    found = scan(tmp_path, {"docker/docker-entrypoint.sh": source}, "scheduler")
    assert [f.source for f in found] == ["exec celery -A app beat -l INFO"]


def test_a_heredoc_is_printed_unless_a_shell_reads_it(tmp_path: Path) -> None:
    printed = (
        "#!/bin/sh\n"
        "cat <<EOF\n"
        "Run python manage.py migrate before the first start.\n"
        "EOF\n"
        "exec gunicorn app.wsgi\n"
    )
    assert scan(tmp_path / "a", {"docker/entrypoint.sh": printed}, "boot-migrate") == []
    run = printed.replace("cat <<EOF", "sh <<EOF").replace(
        "Run python manage.py migrate before the first start.", "python manage.py migrate"
    )
    found = scan(tmp_path / "b", {"docker/entrypoint.sh": run}, "boot-migrate")
    assert where(found) == [("docker/entrypoint.sh", 3)]


# -- web server sites: the folder line, and sites nobody deploys -------------------------------

CADDY_MEDIA = """\
example.com {
\thandle_path /media/* {
\t\theader Cache-Control max-age=3600
\t\tfile_server {
\t\t\troot {$MEDIA_ROOT:/srv/media/}
\t\t}
\t}
\treverse_proxy app:8000
}
"""


def test_a_media_block_names_its_folder_line_as_related(tmp_path: Path) -> None:
    found = scan(tmp_path, {"Caddyfile": CADDY_MEDIA}, "file-write")
    assert where(found) == [("Caddyfile", 2)]
    assert [(r.path, r.line) for r in found[0].related] == [("Caddyfile", 4), ("Caddyfile", 5)]


def test_development_sites_templates_and_documented_configs_are_not_read(tmp_path: Path) -> None:
    supervisor = "[program:beat]\ncommand=celery -A app beat -l INFO\n"
    files = {
        "Caddyfile.dev": CADDY_MEDIA,
        "deploy/nginx/nginx.local.conf": "location /media/ {\n  alias /srv/media/;\n}\n",
        "boilerplate/{{ cookiecutter.project_slug }}/Caddyfile": CADDY_MEDIA,
        "docs/installation/supervisor.conf": supervisor,
    }
    assert scan(tmp_path, files) == []
    # The same files where a deployment reads them are judged.
    deployed = {
        "Caddyfile": CADDY_MEDIA,
        "deploy/supervisor.conf": supervisor + "[program:web]\ncommand=gunicorn app.wsgi\n",
    }
    assert sorted(f.category for f in scan(tmp_path / "b", deployed)) == [
        "file-write",
        "scheduler",
    ]


def test_a_line_that_only_names_a_command_in_a_variable_runs_nothing(tmp_path: Path) -> None:
    defaults = (
        "#!/bin/bash\n"
        'if [ -n "$DEV" ]; then\n'
        "  BACKEND_COMMAND='django-dev'\n"
        "  BEAT_COMMAND='celery-beat'\n"
        "else\n"
        "  BACKEND_COMMAND='gunicorn'\n"
        '  export BEAT_COMMAND="celery -A app beat"\n'
        "fi\n"
    )
    assert scan(tmp_path / "a", {"deploy/supervisor/default_env.sh": defaults}) == []
    # An assignment that runs a command, and a command with a variable before it, run.
    runs = (
        "#!/bin/sh\n"
        'SECRET_KEY=$(openssl rand -hex 32) && echo "$SECRET_KEY" > /data/.secret\n'
        "SERVICE=migrate python manage.py migrate\n"
        "exec gunicorn app.wsgi\n"
    )
    found = scan(tmp_path / "b", {"docker/entrypoint.sh": runs})
    assert sorted((f.category, f.line) for f in found) == [("boot-migrate", 3), ("file-write", 2)]


# -- a helper writes where its caller says: judged where the path is built --------------------

EXPORTER = """\
import csv
def export_rows(rows, filepath):
    with open(filepath, "w", newline="") as handle:
        csv.writer(handle).writerows(rows)
"""


def test_a_helper_writing_to_the_path_its_caller_gives_is_silent(tmp_path: Path) -> None:
    files = {
        "app/exporters.py": EXPORTER,
        # The caller is elsewhere, and passes its own caller's path on.
        "app/reports.py": EXPORTER + "def report(rows, out):\n    export_rows(rows, out)\n",
    }
    assert scan(tmp_path, files, "file-write") == []


def test_a_caller_in_the_module_giving_a_place_of_its_own_makes_the_write_found(
    tmp_path: Path,
) -> None:
    for index, place in enumerate(
        ('"/srv/reports/today.csv"', 'os.path.join(settings.REPORTS_DIR, "today.csv")')
    ):
        caller = (
            "import os\nfrom django.conf import settings\n"
            + EXPORTER
            + f"def nightly(rows):\n    target = {place}\n    export_rows(rows, target)\n"
        )
        found = scan(tmp_path / str(index), {"app/exporters.py": caller}, "file-write")
        assert where(found) == [("app/exporters.py", 5)], place


def test_a_function_that_names_the_file_in_a_folder_of_its_own_choice_is_found(
    tmp_path: Path,
) -> None:
    # The caller gives the file's name; the folder is the function's: it decides the place.
    code = (
        "import os\n"
        "BASE = '/srv/uploads'\n"
        "def save(name, data):\n"
        "    path = os.path.join(BASE, name)\n"
        "    with open(path, 'wb') as handle:\n"
        "        handle.write(data)\n"
    )
    assert where(scan(tmp_path, {"app/store.py": code}, "file-write")) == [("app/store.py", 5)]


def test_an_update_mode_that_nothing_writes_through_is_a_read(tmp_path: Path) -> None:
    read = (
        "import codecs, json\n"
        "def load(instance):\n"
        "    with codecs.open('/srv/app/settings.json', 'r+', encoding='utf-8') as data:\n"
        "        return json.load(data)\n"
    )
    assert scan(tmp_path / "a", {"app/install.py": read}, "file-write") == []
    rewritten = (
        "def clean():\n"
        "    with open('/srv/app/page.html', 'r+') as page:\n"
        "        text = page.read()\n"
        "        page.seek(0)\n"
        "        page.write(text.strip())\n"
        "        page.truncate()\n"
    )
    found = scan(tmp_path / "b", {"app/clean.py": rewritten}, "file-write")
    assert where(found) == [("app/clean.py", 2)]


def test_a_cache_imported_under_another_name_is_the_caches_related_write(tmp_path: Path) -> None:
    files = {
        "proj/settings.py": "INSTALLED_APPS = ['app']\nDATABASES = {}\n",
        "app/function_cache.py": (
            "from django.core.cache import cache as django_cache\n"
            "def cached(key, compute):\n"
            "    value = django_cache.get(key)\n"
            "    if value is None:\n"
            "        value = compute()\n"
            "        django_cache.set(key, value, 300)\n"
            "    return value\n"
            "def forget(key):\n"
            "    django_cache.delete(key)\n"
        ),
    }
    found = [f for f in scan(tmp_path, files, "settings") if f.message.startswith("CACHES")]
    assert len(found) == 1
    assert ("app/function_cache.py", 6) in [(r.path, r.line) for r in found[0].related]


def test_django_environ_cache_urls_name_their_backends(tmp_path: Path) -> None:
    for index, (url, expected) in enumerate(
        (
            ("locmemcache://snowflake", "LocMemCache"),
            ("filecache:///var/tmp/django_cache", "FileBasedCache"),
            ("dummycache://", "DummyCache"),
        )
    ):
        source = (
            "import environ\nenv = environ.Env()\nINSTALLED_APPS = ['app']\n"
            f'CACHES = {{"default": env.cache(default="{url}")}}\n'
        )
        found = scan(tmp_path / str(index), {"proj/settings.py": source}, "settings")
        assert [f.line for f in found] == [4], url
        assert expected in found[0].message
    shared = (
        "import environ\nenv = environ.Env()\nINSTALLED_APPS = ['app']\n"
        'CACHES = {"default": env.cache(default="rediscache://redis:6379/1")}\n'
    )
    assert scan(tmp_path / "shared", {"proj/settings.py": shared}, "settings") == []


def test_a_required_option_read_through_another_call_has_no_default(tmp_path: Path) -> None:
    source = (
        "import dj_database_url\nINSTALLED_APPS = ['app']\n"
        "DEFAULT_DATABASE_CONFIG = dj_database_url.parse(\n"
        "    get_string(name='DATABASE_URL', default='sqlite:///db.sqlite3', required={req})\n"
        ")\n"
    )
    assert scan(tmp_path / "a", {"proj/settings.py": source.format(req="True")}, "settings") == []
    found = scan(tmp_path / "b", {"proj/settings.py": source.format(req="False")}, "settings")
    assert [f.line for f in found] == [4]


# -- the twelfth round: found on the twenty-first group ---------------------------------------


def test_the_option_that_would_choose_a_shared_storage_is_related(tmp_path: Path) -> None:
    source = (
        "INSTALLED_APPS = ['app']\n"
        "MEDIA_ROOT = get_string(name='MEDIA_ROOT', default='/var/media/')\n"
        "USE_S3 = get_bool(name='USE_S3', default=False)\n"
        "if USE_S3:\n"
        "    STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    )
    found = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert where(found) == [("proj/settings.py", 2)]
    assert [r.line for r in found[0].related] == [5, 4, 3]


def test_a_duty_to_its_own_process_on_a_thread_is_not_periodic_work(tmp_path: Path) -> None:
    loop = (
        "import threading, time\n"
        "def {name}():\n"
        "    while True:\n"
        "        time.sleep(30)\n"
        "class Worker:\n"
        "    def start(self):\n"
        "        self.{attr} = threading.Thread(target={name}, daemon=True)\n"
        "        self.{attr}.start()\n"
        "class AppConfig:\n"
        "    def ready(self):\n"
        "        self.worker = Worker()\n"
        "        self.worker.start()\n"
    )
    own = loop.format(name="beat_heart", attr="heartbeat_thread")
    assert scan(tmp_path / "a", {"app/worker.py": own}, "timer-thread") == []
    job = loop.format(name="send_reminders", attr="reminder_thread")
    assert where(scan(tmp_path / "b", {"app/worker.py": job}, "timer-thread")) == [
        ("app/worker.py", 7)
    ]


def test_a_scheduler_that_is_a_process_type_of_its_own_is_not_every_replicas(
    tmp_path: Path,
) -> None:
    own = "web: gunicorn app.wsgi\nclock: ./manage.py runscript cron\n"
    assert scan(tmp_path / "a", {"Procfile": own}, "image-cron") == []
    beside = "web: cron && gunicorn app.wsgi\n"
    assert where(scan(tmp_path / "b", {"Procfile": beside}, "image-cron")) == [("Procfile", 1)]


def test_test_support_and_the_null_device_are_not_files_kept(tmp_path: Path) -> None:
    files = {
        "pkg/pytest_plugin.py": "def cert(tmp):\n    open('/srv/certs/ca.pem', 'w').write('x')\n",
        "pkg/cli.py": "from os import devnull\nFNULL = open(devnull, 'w')\n",
    }
    assert scan(tmp_path, files, "file-write") == []


APPSPEC = """\
version: 0.0
os: linux
files:
  - source: /
    destination: /srv/app/
hooks:
  AfterInstall:
    - location: deploy/hooks/afterinstall/{script}
      timeout: 300
      runas: app
"""


def test_a_codedeploy_hook_runs_on_every_instance_it_deploys_to(tmp_path: Path) -> None:
    files = {
        "appspec.yml": APPSPEC.format(script="migrate.sh"),
        "deploy/hooks/afterinstall/migrate.sh": "#!/bin/sh\n/srv/app/manage.py migrate --noinput\n",
    }
    found = scan(tmp_path / "a", files, "boot-migrate")
    assert where(found) == [("deploy/hooks/afterinstall/migrate.sh", 2)]
    assert [(r.path, r.line) for r in found[0].related] == [("appspec.yml", 8)]
    # The same script that no appspec names is a migration step someone runs once.
    alone = {"deploy/hooks/afterinstall/migrate.sh": files["deploy/hooks/afterinstall/migrate.sh"]}
    assert scan(tmp_path / "b", alone, "boot-migrate") == []


def test_installing_an_empty_crontab_runs_nothing(tmp_path: Path) -> None:
    install = "#!/bin/sh\nmv deploy/conf/crontab /etc/cron.d/app_cron\nexec gunicorn app.wsgi\n"
    empty = "# WARNING: commands here run on every instance\n"
    files = {"deploy/start.sh": install, "deploy/conf/crontab": empty}
    assert scan(tmp_path / "a", files, "image-cron") == []
    with_job = {**files, "deploy/conf/crontab": empty + "0 3 * * * app ./manage.py purge\n"}
    found = scan(tmp_path / "b", with_job, "image-cron")
    assert "deploy/start.sh" in [f.path for f in found]


def test_an_image_that_sets_a_single_box_backend_in_its_environment_is_found(
    tmp_path: Path,
) -> None:
    image = (
        "FROM python:3.12\n"
        'ENV CHANNEL_LAYERS_BACKEND="channels.layers.InMemoryChannelLayer"\n'
        "ENV CACHE_URL=locmemcache://\n"
        'ENV STORAGE_BACKEND="storages.backends.s3.S3Storage" DB_HOST=db\n'
        'CMD ["gunicorn", "app.wsgi"]\n'
    )
    found = scan(tmp_path / "a", {"Dockerfile": image}, "settings")
    assert where(found) == [("Dockerfile", 2), ("Dockerfile", 3)]
    assert "InMemoryChannelLayer" in found[0].message
    development = image.replace('["gunicorn", "app.wsgi"]', '["python", "manage.py", "runserver"]')
    assert scan(tmp_path / "b", {"Dockerfile": development}, "settings") == []
