"""Classes found on the fifteenth fresh corpus group (issue 14, the eighth round): looping
threads that another module's ready() starts, lock files that guard one host, settings
that star-import another package's settings, a SQLite alias's unused HOST, one finding for
one upload storage, and compose files that migrate before a production server. Each has a
true case that must be found and a safe twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a looping thread class started by another module's ready() -------------------------

SENDER = (
    "import threading, time\n"
    "class ReminderSender(threading.Thread):\n"
    "    def run(self):\n"
    "        while True:\n"
    "            send_due_reminders()\n"
    "            time.sleep(60)\n"
)
QUEUE_SENDER = (
    "import threading\n"
    "from queue import Queue\n"
    "class MailSender(threading.Thread):\n"
    "    def __init__(self):\n"
    "        super().__init__(daemon=True)\n"
    "        self.queue = Queue()\n"
    "    def run(self):\n"
    "        while True:\n"
    "            self.queue.get().send()\n"
)
APPS = (
    "from django.apps import AppConfig\n"
    "class RemindersConfig(AppConfig):\n"
    "    name = 'reminders'\n"
    "    def ready(self):\n"
    "        from reminders.sender import ReminderSender\n"
    "        self.sender = ReminderSender()\n"
    "        self.sender.start()\n"
)


def test_a_looping_thread_started_by_another_modules_ready_is_found(tmp_path: Path) -> None:
    files = {"reminders/sender.py": SENDER, "reminders/apps.py": APPS}
    found = scan(tmp_path, files, "timer-thread")
    assert where(found) == [("reminders/apps.py", 7)]
    assert "ReminderSender is started in ready()" in found[0].message
    assert [(r.path, r.line) for r in found[0].related] == [
        ("reminders/apps.py", 6),
        ("reminders/sender.py", 2),
    ]
    # Imported relatively, and started where it is built: the same thread.
    relative = APPS.replace("from reminders.sender", "from .sender").replace(
        "        self.sender = ReminderSender()\n        self.sender.start()\n",
        "        ReminderSender().start()\n",
    )
    files = {"reminders/sender.py": SENDER, "reminders/apps.py": relative}
    assert where(scan(tmp_path / "b", files, "timer-thread")) == [("reminders/apps.py", 6)]


def test_a_thread_that_waits_on_a_queue_is_not_reported(tmp_path: Path) -> None:
    # It serves its own process's work: no periodic job runs N times.
    apps = APPS.replace("sender import ReminderSender", "mail import MailSender")
    apps = apps.replace("ReminderSender()", "MailSender()")
    files = {"reminders/mail.py": QUEUE_SENDER, "reminders/apps.py": apps}
    assert scan(tmp_path, files, "timer-thread") == []
    # Nor a looping thread that only a command starts.
    command = APPS.replace("    def ready(self):\n", "    def handle(self):\n")
    files = {"reminders/sender.py": SENDER, "reminders/management/commands/send.py": command}
    assert scan(tmp_path / "b", files, "timer-thread") == []


# -- a lock file that keeps one copy per host ----------------------------------------------

GUARDED = (
    "from tendo.singleton import SingleInstance\n"
    "class Sender(SingleInstance):\n"
    "    def __init__(self):\n"
    "        if TESTING:\n"
    "            SingleInstance.__init__(self, flavor_id='sender_test')\n"
    "        else:\n"
    "            SingleInstance.__init__(self, flavor_id='sender')\n"
)


def test_a_host_lock_file_library_is_found_once_per_guard(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/sender.py": GUARDED}, "in-process-lock")
    assert where(found) == [("app/sender.py", 5)]
    assert found[0].message.startswith("SingleInstance is a lock file on this host's disk")
    assert [(r.path, r.line) for r in found[0].related] == [("app/sender.py", 7)]
    fasteners = "import fasteners\nlock = fasteners.InterProcessLock('/tmp/job.lock')\n"
    assert where(scan(tmp_path / "b", {"app/job.py": fasteners}, "in-process-lock")) == [
        ("app/job.py", 2)
    ]


def test_an_in_process_lock_of_the_same_library_is_not_a_host_lock(tmp_path: Path) -> None:
    # fasteners' ReaderWriterLock is a thread lock: no file, nothing shared to claim.
    source = "import fasteners\nlock = fasteners.ReaderWriterLock()\n"
    assert scan(tmp_path, {"app/job.py": source}, "in-process-lock") == []


# -- settings that star-import another package's settings ----------------------------------

PROJECT_SETTINGS = (
    "from crm.settings import *\n"
    "from .date_settings import *\n"
    "INSTALLED_APPS = ['crm']\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db'}}\n"
    "MEDIA_ROOT = BASE_DIR / 'media'\n"
)
APP_SETTINGS = "CRM_PAGE_SIZE = 20\n"
DATES = "DATE_FORMAT = 'Y-m-d'\n"


def test_star_imports_of_the_projects_own_settings_are_read(tmp_path: Path) -> None:
    files = {
        "web/settings.py": PROJECT_SETTINGS,
        "crm/settings.py": APP_SETTINGS,
        "web/date_settings.py": DATES,
    }
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("web/settings.py", 5)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")


def test_a_star_import_that_sets_the_storage_or_cannot_be_read_is_no_finding(
    tmp_path: Path,
) -> None:
    storage = "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    files = {
        "web/settings.py": PROJECT_SETTINGS,
        "crm/settings.py": APP_SETTINGS + storage,
        "web/date_settings.py": DATES,
    }
    assert scan(tmp_path, files, "settings") == []
    # A library's settings module may set anything: not judged.
    library = {"web/settings.py": PROJECT_SETTINGS.replace("crm.settings", "somelib.defaults")}
    assert scan(tmp_path / "b", library | {"web/date_settings.py": DATES}, "settings") == []


# -- a SQLite alias's HOST, and one finding for one upload storage ------------------------


def test_a_sqlite_alias_is_one_finding_whatever_host_it_names(tmp_path: Path) -> None:
    source = (
        "INSTALLED_APPS = []\n"
        "DATABASES = {'default': {\n"
        "    'ENGINE': 'django.db.backends.sqlite3',\n"
        "    'NAME': 'app.db',\n"
        "    'HOST': 'localhost',\n"
        "}}\n"
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert [f.message.split(":", 2)[:2] for f in found] == [
        ["DATABASES", " SQLite is a file on one host"]
    ]
    # A server alias with the same HOST is this host's server.
    server = source.replace("sqlite3", "postgresql")
    found = scan(tmp_path / "b", {"app/settings.py": server}, "settings")
    assert where(found) == [("app/settings.py", 5)]


def test_a_named_local_storage_and_media_root_are_one_finding(tmp_path: Path) -> None:
    source = (
        "INSTALLED_APPS = []\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "MEDIA_ROOT = '/srv/media'\n"
        "MEDIA_STORAGE_BACKEND = {\n"
        "    'DEFAULT_FILE_STORAGE': 'django.core.files.storage.FileSystemStorage',\n"
        "}\n"
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert len(found) == 1
    assert found[0].message.startswith("STORAGES['default']:")
    assert ("app/settings.py", 3) in [(r.path, r.line) for r in found[0].related]


# -- a compose file that migrates before a production server ------------------------------

COMPOSE = (
    "services:\n"
    "  web:\n"
    "    build: .\n"
    '    command: sh -c "\n'
    "        ./manage.py migrate &&\n"
    '        gunicorn app.wsgi --bind :8000"\n'
    "  worker:\n"
    "    command: celery -A app worker\n"
)


def test_a_production_compose_stack_that_migrates_at_every_start_is_found(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"docker-compose.yml": COMPOSE}, "boot-migrate")
    assert where(found) == [("docker-compose.yml", 5)]
    folded = COMPOSE.replace('sh -c "\n', ">\n").replace('--bind :8000"', "--bind :8000")
    assert where(scan(tmp_path / "b", {"compose.yaml": folded}, "boot-migrate")) == [
        ("compose.yaml", 5)
    ]


def test_a_development_compose_stack_that_migrates_is_not_reported(tmp_path: Path) -> None:
    assert scan(tmp_path, {"docker-compose.dev.yml": COMPOSE}, "boot-migrate") == []
    debug = "    build: .\n    environment:\n      DEBUG: 'True'\n"
    flagged = COMPOSE.replace("    build: .\n", debug)
    assert scan(tmp_path / "b", {"docker-compose.yml": flagged}, "boot-migrate") == []
    dev_server = COMPOSE.replace("gunicorn app.wsgi --bind :8000", "./manage.py runserver")
    assert scan(tmp_path / "c", {"docker-compose.yml": dev_server}, "boot-migrate") == []


# -- a cron whose every job keeps this host's own files ------------------------------------

CLEANUP = "0 3 * * * root find /tmp -type f -mtime +1 -delete"
REMINDERS = "*/5 * * * * root cd /app && python manage.py send_reminders"


def _image(job: str) -> dict[str, str]:
    return {
        "Dockerfile": (
            "FROM python:3.12\n"
            "RUN apt-get update && apt-get install -y cron\n"
            f"RUN echo '{job}' > /etc/cron.d/jobs\n"
            'CMD ["/entrypoint.sh"]\n'
        ),
        "entrypoint.sh": "#!/bin/sh\ncron\nexec gunicorn app.wsgi\n",
    }


def test_a_cron_that_runs_project_work_in_every_replica_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, _image(REMINDERS), "image-cron")
    assert found and found[0].message.startswith("cron inside the image")
    crontab = {"deploy/crontab": f"{REMINDERS}\n"}
    assert where(scan(tmp_path / "b", crontab, "image-cron")) == [("deploy/crontab", 1)]


def test_a_cron_that_only_keeps_this_hosts_files_is_not_reported(tmp_path: Path) -> None:
    assert scan(tmp_path, _image(CLEANUP), "image-cron") == []
    rotate = {"nginx/crontab": "0 0 * * * root logrotate -f /etc/logrotate-nginx\n"}
    assert scan(tmp_path / "b", rotate, "image-cron") == []
    # A script the tree holds is read; one it does not hold may do anything.
    script = {
        "nginx/crontab": "0 0 * * * root /update_rules.sh\n",
        "nginx/update_rules.sh": "#!/bin/sh\nsuricata-update --no-reload\n",
    }
    assert scan(tmp_path / "c", script, "image-cron") == []
    unknown = {"nginx/crontab": "0 0 * * * root /opt/tools/refresh.sh\n"}
    assert where(scan(tmp_path / "d", unknown, "image-cron")) == [("nginx/crontab", 1)]


# -- a shared service's address whose default a project helper decides ---------------------

CONF = (
    "#!/usr/bin/env python3\n"
    "class Config(dict):\n"
    "    defaults = {\n"
    "        'DB_NAME': 'app',\n"
    "        'DB_HOST': '127.0.0.1',\n"
    "        'REDIS_HOST': 'redis',\n"
    "    }\n"
    "    def __getattr__(self, name):\n"
    "        return self.get(name, self.defaults[name])\n"
    "CONFIG = Config()\n"
)
USES_CONF = (
    "from app.conf import CONFIG\n"
    "INSTALLED_APPS = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', 'LOCATION': 'redis://r'}}\n"
    "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.mysql', 'NAME': 'app',\n"
    "                         'HOST': CONFIG.DB_HOST}}\n"
)
HELPER = (
    "import os\n"
    "def redis_url(database):\n"
    "    host = os.getenv('APP_REDIS_HOST', 'localhost')\n"
    "    return f'redis://{host}:6379/{database}'\n"
)
USES_HELPER = (
    "from app.settings_funcs import redis_url\n"
    "INSTALLED_APPS = []\n"
    "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
    "                      'LOCATION': redis_url(1)}}\n"
)


def test_a_service_address_a_project_helper_defaults_to_this_host_is_found(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"app/conf.py": CONF, "app/settings.py": USES_CONF}, "settings")
    assert where(found) == [("app/conf.py", 5)]
    assert found[0].message.startswith("DB_HOST: 127.0.0.1 is this host")
    assert [(r.path, r.line) for r in found[0].related] == [("app/settings.py", 6)]
    files = {"app/settings_funcs.py": HELPER, "app/settings.py": USES_HELPER}
    found = scan(tmp_path / "b", files, "settings")
    assert where(found) == [("app/settings_funcs.py", 3)]


def test_a_helper_default_the_settings_never_read_is_not_reported(tmp_path: Path) -> None:
    # REDIS_HOST's default is a shared name; DB_HOST's is this host but nothing reads it.
    unread = USES_CONF.replace("CONFIG.DB_HOST", "'db.internal'")
    assert scan(tmp_path, {"app/conf.py": CONF, "app/settings.py": unread}, "settings") == []
    uncalled = USES_HELPER.replace("redis_url(1)", "'redis://cache:6379/1'")
    files = {"app/settings_funcs.py": HELPER, "app/settings.py": uncalled}
    assert scan(tmp_path / "b", files, "settings") == []


# -- storage.path() of one module is one finding -------------------------------------------

PACKAGES = (
    "from django.core.files.storage import default_storage\n"
    "def unpack(upload):\n"
    "    name = default_storage.save('packages/' + upload.name, upload)\n"
    "    archive = default_storage.path(name)\n"
    "    target = default_storage.path('packages/unpacked')\n"
    "    extract(archive, target)\n"
)


def test_the_storage_paths_of_one_module_are_one_finding(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/packages.py": PACKAGES}, "file-write")
    assert where(found) == [("app/packages.py", 4)]
    assert found[0].message.endswith("(2 places)")
    assert [(r.path, r.line) for r in found[0].related] == [("app/packages.py", 5)]
    # Two modules are two places to change.
    files = {"app/packages.py": PACKAGES, "app/replays.py": PACKAGES}
    assert len(scan(tmp_path / "b", files, "file-write")) == 2


# -- a Python program that migrates, run by a start script -----------------------------------

PROGRAM = (
    "#!/usr/bin/env python3\n"
    "import django\n"
    "from django.core import management\n"
    "def prepare():\n"
    "    management.call_command('migrate')\n"
    "if __name__ == '__main__':\n"
    "    django.setup()\n"
    "    prepare()\n"
)


def test_a_python_program_that_migrates_run_at_every_start_is_found(tmp_path: Path) -> None:
    files = {"jms": PROGRAM, "entrypoint.sh": "#!/bin/sh\nset -e\npython jms start all\n"}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("entrypoint.sh", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("jms", 5)]
    module = {
        "app/install.py": PROGRAM,
        "docker-entrypoint.sh": (
            '#!/bin/bash\nrun "$python_bin" -m app.install\nexec gunicorn app.wsgi\n'
        ),
    }
    assert where(scan(tmp_path / "b", module, "boot-migrate")) == [("docker-entrypoint.sh", 2)]


def test_a_program_that_migrates_under_a_lock_or_named_in_prose_is_not_reported(
    tmp_path: Path,
) -> None:
    locked = PROGRAM.replace("def prepare():\n", "def prepare():\n    # under advisory_lock\n")
    files = {"jms": locked, "entrypoint.sh": "#!/bin/sh\npython jms start all\n"}
    assert scan(tmp_path, files, "boot-migrate") == []
    usage = (
        "#!/bin/bash\n"
        'echo "  --setup, -s   Run \\"python -m app.install\\" to set up Django."\n'
        "pip install app\n"
        "exec gunicorn app.wsgi\n"
    )
    files = {"app/install.py": PROGRAM, "install": PROGRAM, "docker-entrypoint.sh": usage}
    assert scan(tmp_path / "b", files, "boot-migrate") == []


# -- threads that serve their own process, and waits with a deadline -----------------------

EVENT_LOOP = (
    "import asyncio, threading\n"
    "class EventLoopThread(threading.Thread):\n"
    "    def run(self):\n"
    "        self.loop = asyncio.new_event_loop()\n"
    "        self.loop.run_forever()\n"
    "_loop_thread = EventLoopThread(daemon=True)\n"
    "_loop_thread.start()\n"
)
BOUNDED = (
    "import threading, time\n"
    "def wait_then_logout(request, timeout=6):\n"
    "    start = time.time()\n"
    "    while time.time() - start < timeout:\n"
    "        time.sleep(0.5)\n"
    "def disconnect(request):\n"
    "    threading.Thread(target=wait_then_logout, args=(request,)).start()\n"
)


def test_a_thread_that_serves_its_own_process_or_waits_with_a_deadline_is_silent(
    tmp_path: Path,
) -> None:
    files = {"app/loop.py": EVENT_LOOP, "app/session.py": BOUNDED}
    assert scan(tmp_path, files, "timer-thread") == []
    # The same thread looping for ever, started by a request: it runs where that request
    # ran, not in every instance (memo_clears' sibling rule, concurrency._started_at_boot).
    forever = BOUNDED.replace("while time.time() - start < timeout:", "while True:")
    assert scan(tmp_path / "b", {"app/session.py": forever}, "timer-thread") == []
    # Started at import: periodic work in every instance.
    at_boot = forever + "disconnect(None)\n"
    found = scan(tmp_path / "c", {"app/session.py": at_boot}, "timer-thread")
    assert where(found) == [("app/session.py", 7)]


# -- libraries that serve files from this host's disk --------------------------------------

SENDFILE_VIEW = (
    "from django_sendfile import sendfile\n"
    "def download(request, pk):\n"
    "    f = Attachment.objects.get(pk=pk).file\n"
    "    return sendfile(request, f.path)\n"
)
PRIVATE_URLS = (
    "import private_storage.urls\n"
    "from django.urls import include, path\n"
    "urlpatterns = [path('media/', include(private_storage.urls))]\n"
)


def test_files_served_from_this_hosts_disk_by_a_library_are_found(tmp_path: Path) -> None:
    files = {"app/views.py": SENDFILE_VIEW, "app/urls.py": PRIVATE_URLS}
    assert where(scan(tmp_path, files, "file-write")) == [("app/urls.py", 3), ("app/views.py", 4)]


def test_private_storage_on_a_remote_class_and_another_sendfile_are_silent(
    tmp_path: Path,
) -> None:
    settings = (
        "INSTALLED_APPS = ['private_storage']\n"
        "PRIVATE_STORAGE_CLASS = 'private_storage.storage.s3boto3.PrivateS3BotoStorage'\n"
    )
    files = {"app/urls.py": PRIVATE_URLS, "app/settings.py": settings}
    assert scan(tmp_path, files, "file-write") == []
    # os.sendfile copies between descriptors: no file served from a folder.
    copy = "import os\ndef copy(src, dst, n):\n    os.sendfile(dst, src, 0, n)\n"
    assert scan(tmp_path / "b", {"app/copy.py": copy}, "file-write") == []
