"""Classes found on the sixteenth fresh corpus group (issue 14, the ninth round): a start
that wipes the shared cache or tables, systemd units that migrate or embed beat, and echo
lines that only print a command. Each has a true case that must be found and a safe twin
that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

ENTRYPOINT = "#!/bin/sh\nset -e\n{line}\nexec gunicorn app.wsgi --bind 0.0.0.0:8000\n"

# -- a replica's start that wipes shared state ---------------------------------------------


def test_a_start_script_that_clears_the_shared_cache_is_found(tmp_path: Path) -> None:
    for index, command in enumerate(
        (
            "python manage.py clear_cache --cache=default",
            "python manage.py flush --noinput",
            "django-admin reset_db --noinput",
            "nautobot-server invalidate_cachalot",
        )
    ):
        files = {"docker/entrypoint.sh": ENTRYPOINT.format(line=command)}
        found = scan(tmp_path / str(index), files, "boot-reset")
        assert where(found) == [("docker/entrypoint.sh", 3)], command
        assert found[0].check_id == "horizontal.W111"
        assert "release step" in found[0].fix


def test_a_reset_in_a_dockerfile_cmd_or_a_procfile_web_process_is_found(tmp_path: Path) -> None:
    files = {
        "Dockerfile": "FROM python:3.12\nCMD python manage.py clear_cache && gunicorn app.wsgi\n",
        "Procfile": "web: python manage.py clear_cache && gunicorn app.wsgi\n",
    }
    assert where(scan(tmp_path, files, "boot-reset")) == [("Dockerfile", 2), ("Procfile", 1)]


def test_a_reset_run_once_or_only_printed_is_not_reported(tmp_path: Path) -> None:
    files = {
        # A release phase runs once per deploy: the right place for it.
        "Procfile": "release: python manage.py clear_cache\nweb: gunicorn app.wsgi\n",
        # A message that names the command, and an operator's command from outside.
        "docker/entrypoint.sh": ENTRYPOINT.format(
            line='echo "Run: python manage.py flush --noinput to start again"\n'
            "docker compose exec web python manage.py clear_cache"
        ),
        # A script run by hand (it starts no server and is not named like a start).
        "scripts/reset-demo.sh": "#!/bin/sh\npython manage.py flush --noinput\n",
        # Other commands whose names contain the words.
        "docker/start.sh": ENTRYPOINT.format(line="python manage.py clear_cache_keys_report"),
    }
    assert scan(tmp_path, files, "boot-reset") == []


# -- echo lines are messages, not commands ----------------------------------------------------


def test_an_echo_that_names_migrate_is_not_a_migrate(tmp_path: Path) -> None:
    files = {
        "docker/entrypoint.sh": ENTRYPOINT.format(
            line='echo "Running: python manage.py migrate"\npython manage.py migrate'
        )
    }
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker/entrypoint.sh", 4)]
    # A line that prints and then runs it still migrates.
    piped = {"docker/entrypoint.sh": ENTRYPOINT.format(line="echo yes | python manage.py migrate")}
    assert where(scan(tmp_path / "b", piped, "boot-migrate")) == [("docker/entrypoint.sh", 3)]


# -- systemd units -------------------------------------------------------------------------------

UNIT = (
    "[Unit]\n"
    "Description=app\n"
    "[Service]\n"
    "{lines}\n"
    "ExecStop=/bin/kill -s QUIT $MAINPID\n"
    "[Install]\n"
    "WantedBy=multi-user.target\n"
)


def test_a_systemd_worker_that_embeds_beat_or_a_unit_that_migrates_is_found(
    tmp_path: Path,
) -> None:
    files = {
        "config/systemd/celery.service": UNIT.format(
            lines="ExecStart=/srv/venv/bin/celery -A app worker -B -l info"
        ),
        "deploy/app.service": UNIT.format(
            lines="ExecStartPre=/srv/venv/bin/python manage.py migrate --noinput\n"
            "ExecStart=/srv/venv/bin/gunicorn app.wsgi"
        ),
    }
    assert where(scan(tmp_path, files, "scheduler")) == [("config/systemd/celery.service", 4)]
    assert where(scan(tmp_path, files, "boot-migrate")) == [("deploy/app.service", 4)]


def test_a_systemd_unit_that_runs_beat_alone_or_only_serves_is_not_reported(
    tmp_path: Path,
) -> None:
    files = {
        # beat in a unit of its own: the one scheduler host's unit, as a Procfile's beat type.
        "deploy/celerybeat.service": UNIT.format(
            lines="ExecStart=/srv/venv/bin/celery -A app beat"
        ),
        "deploy/celery.service": UNIT.format(lines="ExecStart=/srv/venv/bin/celery -A app worker"),
        "deploy/web.service": UNIT.format(
            lines="ExecStartPre=/srv/venv/bin/python manage.py migrate --check\n"
            "ExecStart=/srv/venv/bin/gunicorn app.wsgi\n"
            "Environment=MESSAGE=manage.py migrate"
        ),
    }
    assert scan(tmp_path, files) == []


# -- a Python program that is the image's entrypoint -------------------------------------

PY_ENTRYPOINT = (
    "#!/usr/bin/env python\n"
    "import os, subprocess, sys\n"
    "def migrate():\n"
    "    subprocess.run(['python', 'server/manage.py', {command}], check=True)\n"
    "if __name__ == '__main__':\n"
    "    migrate()\n"
    "    os.execvp('gunicorn', ['gunicorn', 'server.wsgi'])\n"
)


def test_a_python_entrypoint_that_migrates_before_the_server_is_found(tmp_path: Path) -> None:
    files = {"docker-entrypoint.py": PY_ENTRYPOINT.format(command="'migrate', '--noinput'")}
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker-entrypoint.py", 4)]
    files = {"docker/start.py": PY_ENTRYPOINT.format(command="'clear_cache'")}
    assert where(scan(tmp_path / "b", files, "boot-reset")) == [("docker/start.py", 4)]


def test_a_python_program_that_only_migrates_or_checks_is_not_reported(tmp_path: Path) -> None:
    only_migrates = PY_ENTRYPOINT.format(command="'migrate'").replace(
        "    os.execvp('gunicorn', ['gunicorn', 'server.wsgi'])\n", ""
    )
    files = {
        "docker-entrypoint.py": only_migrates,  # a migration step: judged where it runs
        "entrypoint.py": PY_ENTRYPOINT.format(command="'migrate', '--check'"),
        "tools/release.py": PY_ENTRYPOINT.format(command="'migrate'"),  # not a start
    }
    assert scan(tmp_path, files, "boot-migrate") == []


# -- a set-up script run once ---------------------------------------------------------------


def test_an_init_script_that_starts_no_server_is_run_by_hand(tmp_path: Path) -> None:
    init = "#!/bin/sh\npython manage.py migrate --noinput\npython manage.py loaddata groups\n"
    assert scan(tmp_path, {"scripts/init.sh": init}, "boot-migrate") == []
    # Run by the image's start, it is part of every replica's start.
    files = {
        "scripts/init.sh": init,
        "Dockerfile": "FROM python:3.12\nCMD ./scripts/init.sh && gunicorn app.wsgi\n",
    }
    assert where(scan(tmp_path / "b", files, "boot-migrate")) == [("scripts/init.sh", 2)]


# -- locks around a per-process memo's fill --------------------------------------------------

STORES = (
    "import threading\n"
    "from .models import Store\n"
    "class Stores:\n"
    "    def __init__(self):\n"
    "        self._lock = threading.Lock()\n"
    "        self._stores = None\n"
    "    def _load(self):\n"
    "        if self._stores is None:\n"
    "            self._stores = [s.backend() for s in Store.objects.all()]\n"
    "    def __iter__(self):\n"
    "        with self._lock:\n"
    "            self._load()\n"
    "            yield from self._stores\n"
)


def test_a_lock_around_filling_a_per_process_memo_is_not_a_cross_host_lock(
    tmp_path: Path,
) -> None:
    clients = (
        "import threading\n"
        "from .models import Certificate\n"
        "class Clients:\n"
        "    def __init__(self):\n"
        "        self._lock = threading.Lock()\n"
        "        self._clients = {}\n"
        "    def get(self, topic):\n"
        "        with self._lock:\n"
        "            if topic not in self._clients:\n"
        "                self._clients[topic] = Certificate.objects.get(topic=topic)\n"
        "            return self._clients[topic]\n"
    )
    files = {"app/stores.py": STORES, "app/clients.py": clients}
    assert scan(tmp_path, files, "in-process-lock") == []
    # The same lock around a row change is a read-modify-write that other hosts race.
    saving = STORES.replace(
        "            self._stores = [s.backend() for s in Store.objects.all()]\n",
        "            Store.objects.create(name='default')\n",
    )
    found = scan(tmp_path / "b", {"app/stores.py": saving}, "in-process-lock")
    assert where(found) == [("app/stores.py", 11)]


# -- settings: values an option chooses, read as Python runs them ----------------------------

HEAD = "import os\nINSTALLED_APPS = ['app']\n"
USES_CACHE = "from django.core.cache import cache\ndef f():\n    cache.set('k', 1)\n"


def test_a_branch_an_environment_default_rules_out_is_not_production(tmp_path: Path) -> None:
    sqlite_flag = HEAD + (
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': os.environ['REDIS_URL']}}\n"
        "if os.environ.get('USE_SQLITE', 'false').strip().lower() == 'true':\n"
        "    DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': 'db'}}\n"
        "else:\n"
        "    DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
    )
    cache_type = HEAD + (
        "CACHE_TYPE = os.environ.get('CACHE_TYPE', 'redis').strip()\n"
        "if CACHE_TYPE == 'redis':\n"
        "    CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': os.environ['REDIS_URL']}}\n"
        "else:\n"
        "    CACHES = {'default': {'BACKEND': 'django.core.cache.backends.dummy.DummyCache'}}\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
    )
    for index, source in enumerate((sqlite_flag, cache_type)):
        files = {"app/settings.py": source, "app/views.py": USES_CACHE}
        assert scan(tmp_path / str(index), files, "settings") == [], index
    # Where the default takes the branch, it is what production gets.
    files = {
        "app/settings.py": sqlite_flag.replace("'USE_SQLITE', 'false'", "'USE_SQLITE', 'true'"),
        "app/views.py": USES_CACHE,
    }
    assert where(scan(tmp_path / "on", files, "settings")) == [("app/settings.py", 5)]
    files = {
        "app/settings.py": cache_type.replace("'CACHE_TYPE', 'redis'", "'CACHE_TYPE', 'dummy'"),
        "app/views.py": USES_CACHE,
    }
    assert where(scan(tmp_path / "dummy", files, "settings")) == [("app/settings.py", 7)]


def test_an_option_of_a_configuration_mapping_left_unset_chooses_nothing(tmp_path: Path) -> None:
    source = HEAD + (
        "from .conf import REDIS\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
        "CACHING = REDIS['caching']\n"
        "SOCKET_PATH = CACHING.get('UNIX_SOCKET_PATH', '')\n"
        "if SOCKET_PATH:\n"
        "    LOCATION = f'unix://{SOCKET_PATH}?db=0'\n"
        "else:\n"
        "    LOCATION = f\"redis://{os.environ['REDIS_HOST']}:6379/0\"\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': LOCATION}}\n"
        # A URL setting that holds a path of this site, not an address.
        "CONTENT_DATABASE_URL = '/content/databases/'\n"
        # Incident mode, chosen by an environment variable that is unset by default.
        "INCIDENT = {'db': {'readonly': True}}.get(os.getenv('INCIDENT_TYPE'))\n"
        "READ_ONLY = INCIDENT and INCIDENT['readonly']\n"
        "if READ_ONLY:\n"
        "    CACHES['default']['BACKEND'] = 'django.core.cache.backends.locmem.LocMemCache'\n"
    )
    files = {"app/settings.py": source, "app/views.py": USES_CACHE}
    assert scan(tmp_path, files, "settings") == []
    # Unconditional, the socket is this host's.
    unconditional = source.replace("if SOCKET_PATH:\n    LOCATION", "LOCATION").replace(
        "else:\n    LOCATION = f\"redis://{os.environ['REDIS_HOST']}:6379/0\"\n", ""
    )
    files = {"app/settings.py": unconditional, "app/views.py": USES_CACHE}
    found = scan(tmp_path / "b", files, "settings")
    assert where(found) == [("app/settings.py", 7)]
    assert "unix://" in found[0].message


def test_caches_set_only_when_a_configuration_mapping_has_it_is_found(tmp_path: Path) -> None:
    source = HEAD + (
        "from .conf import conf\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
        "if 'CACHES' in conf['django']:\n"
        "    CACHES = conf['django']['CACHES']\n"
    )
    files = {"app/settings.py": source, "app/views.py": USES_CACHE}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 6)]
    assert "set only when an option is given" in found[0].message


def test_a_star_imported_helper_module_brings_in_only_its_own_names(tmp_path: Path) -> None:
    helpers = "import os\ndef get_env(name):\n    return os.environ[name]\nROOT_DIR = '/srv'\n"
    source = (
        "from app.settings_utils import *\n"
        "INSTALLED_APPS = ['app']\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': get_env('DB_HOST')}}\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': get_env('REDIS_URL')}}\n"
        "MEDIA_ROOT = ROOT_DIR + '/media'\n"
    )
    files = {"app/settings_utils.py": helpers, "app/settings.py": source}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 5)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")
    # A helper that sets the storage itself: the names it brings in count as set.
    files["app/settings_utils.py"] = helpers + "STORAGES = {'default': {'BACKEND': 'x.S3'}}\n"
    assert scan(tmp_path / "b", files, "settings") == []


def test_media_root_assigned_again_in_a_branch_is_one_finding(tmp_path: Path) -> None:
    source = HEAD + (
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': os.environ['REDIS_URL']}}\n"
        "MEDIA_ROOT = '/srv/media'\n"
        "if os.path.isfile('/etc/app.ini'):\n"
        "    MEDIA_ROOT = read_ini('/etc/app.ini')['media_root']\n"
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert len(found) == 1
    places = {(found[0].path, found[0].line), *((r.path, r.line) for r in found[0].related)}
    assert places == {("app/settings.py", 5), ("app/settings.py", 7)}


def test_an_object_storage_endpoint_on_this_host_is_found(tmp_path: Path) -> None:
    source = HEAD + (
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
        "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
        "AWS_S3_ENDPOINT_URL = os.getenv('AWS_S3_ENDPOINT_URL') or 'http://localhost:9000'\n"
    )
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert where(found) == [("app/settings.py", 5)]
    assert "localhost:9000 is this host" in found[0].message
    remote = source.replace("'http://localhost:9000'", "'https://s3.eu-west-1.amazonaws.com'")
    assert scan(tmp_path / "b", {"app/settings.py": remote}, "settings") == []


def test_a_path_in_the_place_of_an_open_mode_is_a_read(tmp_path: Path) -> None:
    source = (
        "from pathlib import Path\n"
        "from PIL import Image\n"
        "def mask(image):\n"
        "    return Image.open('static/thumbnail-mask.png').convert('L')\n"
        "def report(rows):\n"
        "    with Path('/srv/reports/latest.csv').open('w') as out:\n"
        "        out.write(rows)\n"
    )
    found = scan(tmp_path, {"app/images.py": source}, "file-write")
    assert where(found) == [("app/images.py", 6)]


# -- a project's FileSystemStorage chosen by a settings value ---------------------------------

S3UTILS = (
    "from django.conf import settings\n"
    "from django.core.files.storage import FileSystemStorage\n"
    "from pipeline.storage import PipelineMixin\n"
    "from storages.backends.s3 import S3Storage\n"
    "class OverwritingFileSystemStorage(FileSystemStorage):\n"
    "    def get_available_name(self, name, max_length=None):\n"
    "        return name\n"
    "if settings.AWS_S3_ENABLED:\n"
    "    ImageStorage = lambda: S3Storage()\n"
    "else:\n"
    "    ImageStorage = lambda: OverwritingFileSystemStorage(location=settings.MEDIA_ROOT)\n"
    "class LocalPipelineStorage(PipelineMixin, FileSystemStorage):\n"
    "    pass\n"
)
STORAGE_SETTINGS = HEAD + (
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
    "'HOST': os.environ['DB_HOST']}}\n"
    "DEFAULT_FILE_STORAGE = 'app.s3utils.ImageStorage'\n"
    "STATICFILES_STORAGE = 'app.s3utils.LocalPipelineStorage'\n"
)


def test_a_settings_value_naming_a_factory_of_a_local_storage_is_one_finding(
    tmp_path: Path,
) -> None:
    files = {"app/s3utils.py": S3UTILS, "app/settings.py": STORAGE_SETTINGS}
    found = scan(tmp_path, files)
    assert where(found) == [("app/settings.py", 4)]
    assert found[0].message.startswith("STORAGES['default']: uploads go to this host's disk")
    related = [(r.path, r.line) for r in found[0].related]
    assert ("app/s3utils.py", 5) in related and ("app/s3utils.py", 11) in related
    # A remote factory only: nothing local is chosen.
    remote = S3UTILS.replace(
        "    ImageStorage = lambda: OverwritingFileSystemStorage(location=settings.MEDIA_ROOT)\n",
        "    ImageStorage = lambda: S3Storage(bucket_name='b')\n",
    )
    files = {"app/s3utils.py": remote, "app/settings.py": STORAGE_SETTINGS}
    assert [f for f in scan(tmp_path / "b", files) if f.category == "settings"] == []


def test_a_storage_class_defined_in_a_settings_branch_is_known(tmp_path: Path) -> None:
    storage = (
        "import os\n"
        "from django.core.files.storage import FileSystemStorage\n"
        "LOCAL_STORAGE = os.environ.get('LOCAL_STORAGE', 'True') == 'True'\n"
        "if LOCAL_STORAGE:\n"
        "    class FileSystemStorageWrapper(FileSystemStorage):\n"
        "        pass\n"
        "    DEFAULT_FILE_STORAGE = 'app.settings.FileSystemStorageWrapper'\n"
        "else:\n"
        "    DEFAULT_FILE_STORAGE = 'storages.backends.s3.S3Storage'\n"
    )
    init = HEAD + (
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.environ['DB_HOST']}}\n"
        "from .storage import *\n"
    )
    files = {"app/settings/__init__.py": init, "app/settings/storage.py": storage}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings/storage.py", 7)]
    # Off by default, the S3 branch is production's.
    files["app/settings/storage.py"] = storage.replace(
        "'LOCAL_STORAGE', 'True'", "'LOCAL_STORAGE', 'False'"
    )
    assert scan(tmp_path / "b", files, "settings") == []
