"""Classes found on the fourteenth fresh corpus group (issue 14, the seventh round): a
project command that runs migrate, started by every replica; servers that reload on code
changes; hidden CI settings and folders of examples; upload paths named in messages.
Each has a true case that must be found and a safe twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

WRAPPER = (
    "from django.core.management import BaseCommand, call_command\n"
    "class Command(BaseCommand):\n"
    "    def handle(self, *args, **options):\n"
    "        call_command(\n"
    "            'migrate', interactive=False)\n"
    "        call_command('collectstatic', interactive=False)\n"
)
ENTRYPOINT = "#!/bin/sh\nset -e\npython manage.py post_upgrade --noinput\nexec gunicorn app.wsgi\n"
COMMAND = "app/management/commands/post_upgrade.py"


def test_a_project_command_that_migrates_run_at_every_start_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {COMMAND: WRAPPER, "docker-entrypoint.sh": ENTRYPOINT}, "boot-migrate")
    assert where(found) == [("docker-entrypoint.sh", 3)]
    assert found[0].source == "python manage.py post_upgrade --noinput"
    assert [(r.path, r.line) for r in found[0].related] == [(COMMAND, 4)]


def test_a_project_command_that_migrates_under_a_lock_is_not_reported(tmp_path: Path) -> None:
    locked = WRAPPER.replace(
        "    def handle(self, *args, **options):\n",
        "    def handle(self, *args, **options):\n        with advisory_lock('migrations'):\n",
    ).replace("        call_command(", "            call_command(")
    files = {COMMAND: locked, "docker-entrypoint.sh": ENTRYPOINT}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_command_that_migrates_run_through_a_console_script_in_a_procfile_is_found(
    tmp_path: Path,
) -> None:
    subclass = (
        "from django.core.management.commands.migrate import Command as MigrateCommand\n"
        "class Command(MigrateCommand):\n"
        "    pass\n"
    )
    files = {
        "core/management/commands/safe_migrate.py": subclass,
        "Procfile": "web: app-server safe_migrate && gunicorn app.wsgi\n",
    }
    assert where(scan(tmp_path, files, "boot-migrate")) == [("Procfile", 1)]
    # A release step runs once per deploy: fine however it migrates.
    release = {**files, "Procfile": "release: app-server safe_migrate\nweb: gunicorn app.wsgi\n"}
    assert scan(tmp_path / "b", release, "boot-migrate") == []


def test_a_command_that_migrates_but_is_never_started_is_not_reported(tmp_path: Path) -> None:
    files = {COMMAND: WRAPPER, "docker-entrypoint.sh": "#!/bin/sh\nexec gunicorn app.wsgi\n"}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_start_script_that_serves_with_a_reloading_server_is_for_development(
    tmp_path: Path,
) -> None:
    script = (
        "#!/bin/sh\npython manage.py migrate\n"
        "exec uvicorn config.asgi:application \\\n  --host 0.0.0.0 \\\n  --reload\n"
    )
    compose = "services:\n  django:\n    command: /bin/sh /app/compose/django/start\n"
    files = {"compose/django/start": script, "docker-compose.yml": compose}
    assert scan(tmp_path, files, "boot-migrate") == []
    production = script.replace(" \\\n  --reload\n", "\n")
    found = scan(tmp_path / "b", {**files, "compose/django/start": production}, "boot-migrate")
    assert where(found) == [("compose/django/start", 2)]


CI_SETTINGS = (
    "# settings\nINSTALLED_APPS = ['app']\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.mysql',\n"
    "                         'HOST': 'localhost'}}\n"
)


def test_hidden_ci_settings_are_not_reported(tmp_path: Path) -> None:
    assert scan(tmp_path, {".ci.settings.py": CI_SETTINGS}, "settings") == []
    found = scan(tmp_path / "b", {"proj/settings.py": CI_SETTINGS}, "settings")
    assert where(found) == [("proj/settings.py", 4)]


def test_a_folder_of_examples_is_not_scanned(tmp_path: Path) -> None:
    files = {"config/settings/local.d.examples/cache.py": CI_SETTINGS}
    assert scan(tmp_path, files, "settings") == []
    # A production template named as an example is what a deployer copies: scanned.
    template = {"proj/settings/production.example.py": CI_SETTINGS}
    assert where(scan(tmp_path / "b", template, "settings")) == [
        ("proj/settings/production.example.py", 4)
    ]


MODELS = (
    "from django.db import models\nclass Doc(models.Model):\n    document = models.FileField()\n"
)


def test_an_upload_path_named_only_in_a_log_message_is_not_a_read(tmp_path: Path) -> None:
    logged = (
        "import logging\nlogger = logging.getLogger(__name__)\n"
        "def lint(doc):\n"
        "    logger.warning('cannot lint %s', doc.document.path)\n"
        "    logger.warning(\n"
        "        'not found: %s', doc.document.path\n"
        "    )\n"
    )
    files = {"app/models.py": MODELS, "app/lint.py": logged}
    assert scan(tmp_path, files, "file-write") == []
    read = logged + "def render(doc):\n    return open(doc.document.path, 'rb').read()\n"
    found = scan(tmp_path / "b", {**files, "app/lint.py": read}, "file-write")
    assert where(found) == [("app/lint.py", 9)]


STORAGE_CLASS = (
    "from django.conf import settings\n"
    "from django.core.files.storage import FileSystemStorage\n"
    "class ProblemDataStorage(FileSystemStorage):\n"
    "    def __init__(self):\n"
    "        super().__init__(settings.PROBLEM_DATA_ROOT)\n"
)


def test_a_file_system_storage_subclass_that_code_builds_is_found(tmp_path: Path) -> None:
    built = (
        "from django.db import models\n"
        "from judge.storage import ProblemDataStorage\n"
        "problem_data_storage = ProblemDataStorage()\n"
        "class ProblemData(models.Model):\n"
        "    zipfile = models.FileField(storage=problem_data_storage)\n"
    )
    files = {"judge/storage.py": STORAGE_CLASS, "judge/models.py": built}
    assert where(scan(tmp_path, files, "file-write")) == [("judge/storage.py", 3)]
    # Defined and never built (or a storage of static files, the same in every image).
    unused = {"judge/storage.py": STORAGE_CLASS}
    assert scan(tmp_path / "b", unused, "file-write") == []
    static = {
        "judge/storage.py": STORAGE_CLASS.replace("ProblemData", "StaticFiles"),
        "judge/models.py": built.replace("ProblemData", "StaticFiles"),
    }
    assert scan(tmp_path / "c", static, "file-write") == []
