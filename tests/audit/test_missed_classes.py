"""The classes docs/audit.md listed as still missed, and the false positives the tuning
projects showed: each with a true case that must be found and a safe twin that must stay
silent. Written from the classes, not from any project's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import SETTINGS_HEAD, scan, where

# -- task queues kept on one host -------------------------------------------------------------


@pytest.mark.parametrize(
    "assignment",
    [
        "HUEY = {'huey_class': 'huey.SqliteHuey', 'filename': '/data/huey.db'}",
        "HUEY = {'huey_class': 'huey.FileHuey', 'path': '/data/huey'}",
        "from huey import SqliteHuey\nHUEY = SqliteHuey('app', filename='/data/huey.db')",
        "CELERY_BROKER_URL = 'filesystem://'",
        "CELERY_RESULT_BACKEND = 'db+sqlite:///results.sqlite'",
    ],
)
def test_a_task_queue_in_a_local_file_is_found(tmp_path: Path, assignment: str) -> None:
    source = SETTINGS_HEAD + assignment + "\n"
    found = scan(tmp_path, {"app/settings.py": source})
    assert [f.line for f in found] == [source.count("\n")]
    assert "Huey" in found[0].message or "file on this host" in found[0].message


def test_a_task_queue_on_the_shared_redis_is_silent(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + (
        "import os\n"
        "HUEY = {'huey_class': 'huey.RedisHuey', 'url': os.environ['REDIS_URL']}\n"
        "CELERY_BROKER_URL = 'redis://redis:6379/0'\n"
        "CELERY_RESULT_BACKEND = 'django-db'\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}) == []


def test_a_sqlite_huey_built_in_code_is_found_and_a_redis_huey_is_not(tmp_path: Path) -> None:
    code = "from huey import RedisHuey, SqliteHuey\nhuey = SqliteHuey(filename='tasks.db')\n"
    assert where(scan(tmp_path, {"app/tasks.py": code})) == [("app/tasks.py", 2)]
    shared = code.replace("SqliteHuey(filename='tasks.db')", "RedisHuey(url=URL)")
    assert scan(tmp_path, {"app/tasks.py": shared}) == []


def test_huey_periodic_tasks_run_by_every_consumer_are_found(tmp_path: Path) -> None:
    code = (
        "from huey import crontab\n"
        "from huey.contrib.djhuey import db_periodic_task, db_task\n"
        "@db_periodic_task(crontab(minute='0'))\n"
        "def purge():\n    pass\n"
        "@db_task()\n"
        "def send(pk):\n    pass\n"
    )
    [finding] = scan(tmp_path, {"app/tasks.py": code})
    assert (finding.line, finding.category) == (3, "scheduler")
    assert "--no-periodic" in finding.fix


# -- a localhost default built into a service address at run time ------------------------------


@pytest.mark.parametrize(
    ("assignment", "line"),
    [
        (
            "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
            "'LOCATION': f\"redis://{os.getenv('REDIS_HOST', 'localhost')}:6379/1\"}}",
            5,
        ),
        (
            "REDIS_HOST = os.environ.get('REDIS_HOST', '127.0.0.1')\n"
            "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
            "'LOCATION': 'redis://' + REDIS_HOST + ':6379'}}",
            5,
        ),
        ("REDIS_URL = os.getenv('REDIS_URL', 'redis://localhost:6379/0')", 5),
        (
            "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
            "'HOST': os.getenv('DB_HOST', 'localhost')}}",
            5,
        ),
        ("HUEY = {'huey_class': 'huey.RedisHuey', 'connection': {'host': 'localhost'}}", 5),
    ],
)
def test_a_localhost_default_built_into_a_service_address_is_found(
    tmp_path: Path, assignment: str, line: int
) -> None:
    source = "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n\n" + assignment + "\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.line == line and "this host" in finding.message


def test_a_service_address_built_with_its_own_host_is_silent(tmp_path: Path) -> None:
    source = (
        "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n"
        "REDIS_HOST = os.environ.get('REDIS_HOST', 'redis')\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': f'redis://{REDIS_HOST}:6379/1'}}\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': os.getenv('DB_HOST', 'db')}}\n"
        "EMAIL_HOST = os.getenv('EMAIL_HOST', 'localhost')\n"
        "SITE_URL = os.getenv('SITE_URL', 'http://localhost:8000')\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}) == []


def test_a_client_that_falls_back_to_localhost_in_code_is_found(tmp_path: Path) -> None:
    code = (
        "import os\nimport redis\n"
        "def client():\n"
        "    return redis.Redis(host=os.getenv('REDIS_HOST', 'localhost'))\n"
    )
    assert where(scan(tmp_path, {"app/queue.py": code})) == [("app/queue.py", 4)]
    required = code.replace("os.getenv('REDIS_HOST', 'localhost')", "os.environ['REDIS_HOST']")
    assert scan(tmp_path, {"app/queue.py": required}) == []


# -- a secret key generated into a local file -----------------------------------------------------

KEY_COMMAND = """\
from django.core.management.base import BaseCommand
from django.core.management.utils import get_random_secret_key
from django.conf import settings

class Command(BaseCommand):
    def handle(self, *args, **options):
        with open(settings.SECRET_KEY_FILE, "w") as fh:
            fh.write(get_random_secret_key())
"""


def test_a_command_that_generates_a_key_into_a_file_is_found(tmp_path: Path) -> None:
    path = "app/management/commands/generate_secret_key.py"
    [finding] = scan(tmp_path, {path: KEY_COMMAND})
    assert (finding.path, finding.line) == (path, 7)
    assert "secret key" in finding.message


def test_a_command_that_prints_a_key_or_writes_an_export_is_silent(tmp_path: Path) -> None:
    printing = KEY_COMMAND.replace(
        '        with open(settings.SECRET_KEY_FILE, "w") as fh:\n'
        "            fh.write(get_random_secret_key())\n",
        "        self.stdout.write(get_random_secret_key())\n",
    )
    exporting = KEY_COMMAND.replace("settings.SECRET_KEY_FILE", "options['output']").replace(
        "get_random_secret_key()", "'report'"
    )
    files = {
        "app/management/commands/print_key.py": printing,
        "app/management/commands/export.py": exporting,
    }
    assert scan(tmp_path, files) == []


def test_an_entrypoint_that_generates_a_key_into_a_file_is_found(tmp_path: Path) -> None:
    script = (
        "#!/bin/sh\n"
        '[ -f /data/secret_key ] || openssl rand -hex 32 > "/data/secret_key"\n'
        "exec gunicorn app.wsgi\n"
    )
    found = scan(tmp_path, {"docker-entrypoint.sh": script})
    assert where(found) == [("docker-entrypoint.sh", 2)]
    # The fix is the secret's (generate it once, share it), not the uploads' storage.
    assert found[0].fix.startswith("Generate the secret once")
    checked = script.replace('> "/data/secret_key"', ">/dev/null 2>&1")
    assert scan(tmp_path, {"docker-entrypoint.sh": checked}) == []


# -- files generated into a data folder and read by requests --------------------------------------

BUILD_COMMAND = """\
import subprocess
from django.conf import settings
from django.core.management.base import BaseCommand

class Command(BaseCommand):
    def handle(self, *args, **options):
        target = settings.DOCS_BUILD_ROOT / options["version"]
        target.mkdir(parents=True, exist_ok=True)
        subprocess.check_call(["sphinx-build", "docs", str(target)])
"""
DOCS_VIEW = """\
from django.conf import settings
from django.http import FileResponse

def page(request, version, name):
    root = settings.DOCS_BUILD_ROOT / version
    return FileResponse((root / name).open("rb"))
"""


def test_a_data_folder_a_command_fills_and_a_view_reads_is_found(tmp_path: Path) -> None:
    files = {"docs/management/commands/build_docs.py": BUILD_COMMAND, "docs/views.py": DOCS_VIEW}
    [finding] = scan(tmp_path, files)
    assert (finding.path, finding.line) == ("docs/views.py", 5)
    assert "DOCS_BUILD_ROOT" in finding.message and "build_docs.py:7" in finding.message


def test_a_data_folder_nothing_fills_or_that_lives_under_media_root_is_silent(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"docs/views.py": DOCS_VIEW}) == []
    settings = SETTINGS_HEAD + (
        "from pathlib import Path\nMEDIA_ROOT = Path('/srv/media')\n"
        "DOCS_BUILD_ROOT = MEDIA_ROOT / 'docs'\n"
        "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    )
    files = {
        "docs/management/commands/build_docs.py": BUILD_COMMAND,
        "docs/views.py": DOCS_VIEW,
        "app/settings.py": settings,
    }
    assert scan(tmp_path, files) == []


def test_serving_a_data_folder_from_disk_is_found_and_static_files_are_not(
    tmp_path: Path,
) -> None:
    urls = (
        "from django.conf import settings\nfrom django.urls import re_path\n"
        "from django.views.static import serve\n"
        "urlpatterns = [\n"
        "    re_path(r'^exports/(?P<path>.*)$', serve, {'document_root': settings.EXPORT_DIR}),\n"
        "    re_path(r'^s/(?P<path>.*)$', serve, {'document_root': settings.STATIC_ROOT}),\n"
        "]\n"
    )
    [finding] = scan(tmp_path, {"app/urls.py": urls})
    assert finding.line == 5 and "EXPORT_DIR" in finding.message


# -- thumbnail caches on local disk ---------------------------------------------------------------


def test_a_thumbnail_storage_left_local_is_found_and_a_shared_one_is_not(tmp_path: Path) -> None:
    local = SETTINGS_HEAD + (
        "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
        "THUMBNAIL_DEFAULT_STORAGE = 'easy_thumbnails.storage.ThumbnailFileSystemStorage'\n"
    )
    [finding] = scan(tmp_path, {"app/settings.py": local})
    assert finding.line == 4 and "thumbnails" in finding.message
    shared = local.replace(
        "'easy_thumbnails.storage.ThumbnailFileSystemStorage'", "'storages.backends.s3.S3Storage'"
    )
    assert scan(tmp_path, {"app/settings.py": shared}) == []


# -- SQLite chosen at run time, and chosen on purpose ----------------------------------------------


def test_an_engine_chosen_at_run_time_with_a_sqlite_default_name_is_found(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + (
        "import configparser\nfrom pathlib import Path\nconfig = configparser.ConfigParser()\n"
        "backend = config.get('database', 'backend')\n"
        "name = config.get('database', 'name', fallback=str(Path('/data') / 'db.sqlite3'))\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.' + backend, 'NAME': name}}\n"
    )
    [finding] = scan(tmp_path, {"app/settings.py": source})
    assert finding.line == 7 and "SQLite" in finding.message
    literal = source.replace(
        "'django.db.backends.' + backend, 'NAME': name",
        "'django.db.backends.postgresql', 'NAME': name, 'HOST': 'db'",
    )
    assert scan(tmp_path, {"app/settings.py": literal}) == []


def test_sqlite_asked_for_by_name_is_silent_and_sqlite_by_default_is_found(
    tmp_path: Path,
) -> None:
    source = SETTINGS_HEAD + (
        "import os\nurl = os.getenv('DATABASE_URL', '')\n"
        "if url.startswith('postgres'):\n    engine = 'django.db.backends.postgresql'\n"
        "elif url.startswith('sqlite'):\n    engine = 'django.db.backends.sqlite3'\n"
        "else:\n    engine = os.getenv('DB_ENGINE') or 'django.db.backends.sqlite3'\n"
        "DATABASES = {'default': {'ENGINE': engine}}\n"
    )
    assert where(scan(tmp_path, {"app/settings.py": source})) == [("app/settings.py", 10)]


# -- build steps, probes, test-only receivers, storage classes -------------------------------------


def test_a_script_a_dockerfile_runs_at_build_time_is_silent(tmp_path: Path) -> None:
    # An absolute path: a top-level write to a relative one is a script run by hand
    # wherever it lives (test_round_eighteen_classes).
    script = "with open('/app/app/version_info.py', 'w') as fh:\n    fh.write('VERSION = 1')\n"
    dockerfile = "FROM python:3.12\nCOPY . /app\nRUN /venv/bin/python version.py\n"
    assert scan(tmp_path, {"version.py": script, "Dockerfile": dockerfile}) == []
    assert scan(tmp_path, {"app/_build.py": script}) == []
    assert where(scan(tmp_path, {"app/stamp.py": script})) == [("app/stamp.py", 1)]


def test_a_probe_file_removed_in_finally_is_silent_and_one_kept_is_found(tmp_path: Path) -> None:
    code = (
        "def writable(directory):\n"
        "    probe = directory / 'probe'\n"
        "    try:\n"
        "        with probe.open('w'):\n"
        "            pass\n"
        "    finally:\n"
        "        probe.unlink()\n"
    )
    assert scan(tmp_path, {"app/checks.py": code}) == []
    # Removing an older copy before writing is not cleaning up after the write.
    kept = (
        "from pathlib import Path\n"
        "def stage(data):\n"
        "    staging = Path('/srv/staging') / 'staging.pdf'\n"
        "    if staging.exists():\n"
        "        staging.unlink()\n"
        "    staging.write_bytes(data)\n"
    )
    assert where(scan(tmp_path, {"app/stage.py": kept})) == [("app/stage.py", 6)]


def test_a_global_rebound_only_by_a_setting_changed_receiver_is_silent(tmp_path: Path) -> None:
    code = (
        "from django.core.signals import setting_changed\n"
        "api_settings = load()\n"
        "def reload_api_settings(**kwargs):\n"
        "    global api_settings\n"
        "    api_settings = load()\n"
        "setting_changed.connect(reload_api_settings)\n"
    )
    assert scan(tmp_path, {"app/conf.py": code}, "module-state") == []
    other = code.replace("setting_changed.connect(reload_api_settings)\n", "")
    assert where(scan(tmp_path, {"app/conf.py": other}, "module-state")) == [("app/conf.py", 4)]


def test_media_root_inside_a_storage_class_is_silent(tmp_path: Path) -> None:
    code = (
        "import os\nfrom django.conf import settings\n"
        "from django.core.files.storage import FileSystemStorage\n"
        "class MediaStorage(FileSystemStorage):\n"
        "    def open(self, name, mode='rb'):\n"
        "        os.makedirs(os.path.join(settings.MEDIA_ROOT, os.path.dirname(name)))\n"
        "        return super().open(name, mode)\n"
    )
    assert scan(tmp_path, {"app/storage.py": code}) == []
    helper = code.replace("class MediaStorage(FileSystemStorage):", "class Uploads:")
    assert where(scan(tmp_path, {"app/storage.py": helper})) == [("app/storage.py", 6)]


def test_a_global_set_to_a_random_value_on_first_use_is_found(tmp_path: Path) -> None:
    code = (
        "import uuid\n"
        "INSTANCE_ID = None\n"
        "def instance_id():\n"
        "    global INSTANCE_ID\n"
        "    if INSTANCE_ID is None:\n"
        "        INSTANCE_ID = uuid.uuid4()\n"
        "    return INSTANCE_ID\n"
    )
    [finding] = scan(tmp_path, {"app/identity.py": code})
    assert (finding.line, finding.category) == (4, "cache")
    # Built once from configuration: the same value on every instance.
    configured = code.replace("uuid.uuid4()", "uuid.UUID(CONFIGURED)")
    assert scan(tmp_path, {"app/identity.py": configured}) == []


def test_a_media_path_built_only_to_measure_its_length_is_silent(tmp_path: Path) -> None:
    code = (
        "from pathlib import Path\nfrom django.conf import settings\n"
        "def fits(name, limit):\n"
        "    full = str(Path(settings.MEDIA_ROOT) / name)\n"
        "    return len(full) <= limit\n"
    )
    assert scan(tmp_path, {"app/names.py": code}) == []
    opened = code.replace("return len(full) <= limit", "return open(full).read()")
    assert where(scan(tmp_path, {"app/names.py": opened})) == [("app/names.py", 4)]


@pytest.mark.parametrize(
    ("assignment", "line"),
    [
        ("DATABASES = {'default': dj_database_url.config(default='sqlite:///db.sqlite3')}", 5),
        (
            "DATABASE_URL = os.getenv('DATABASE_URL', 'sqlite:////data/db.sqlite3')\n"
            "DATABASES = {'default': dj_database_url.parse(DATABASE_URL)}",
            5,
        ),
        (
            "CACHES = {'default': env.cache('CACHE_URL', default='redis://127.0.0.1:6379/1')}",
            5,
        ),
        (
            "DATABASES = {'default': env.db('DATABASE_URL', "
            "default='postgres://app@localhost/app')}",
            5,
        ),
    ],
)
def test_a_default_url_that_means_one_box_is_found(
    tmp_path: Path, assignment: str, line: int
) -> None:
    source = (
        "import os\nimport dj_database_url\nimport environ\nenv = environ.Env()\n"
        + assignment
        + "\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n"
    )
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.line == line


def test_a_default_url_of_a_shared_server_is_silent(tmp_path: Path) -> None:
    source = (
        "import os\nimport dj_database_url\nimport environ\nenv = environ.Env()\n"
        "INSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n"
        "DATABASES = {'default': dj_database_url.config(default='postgres://app@db/app')}\n"
        "CACHES = {'default': env.cache('CACHE_URL', default='redis://redis:6379/1')}\n"
        "url = os.getenv('DATABASE_URL', '')\n"
        "if url.startswith('sqlite'):\n"
        "    DATABASES = {'default': dj_database_url.parse('sqlite:///db.sqlite3')}\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}) == []


def test_settings_that_write_a_random_key_file_at_import_are_found(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + (
        "from pathlib import Path\nimport secrets\n"
        "KEY_FILE = Path('/data/secret_key')\n"
        "if not KEY_FILE.exists():\n"
        "    KEY_FILE.write_text(secrets.token_urlsafe(50))\n"
        "SECRET_KEY = KEY_FILE.read_text()\n"
    )
    [finding] = scan(tmp_path, {"app/settings.py": source})
    # The setting's finding, at the write: ``KEY_FILE.read_text()`` reads the file the
    # module writes (the write alone was reported before the path's read was followed).
    assert finding.line == 7 and finding.message.startswith("SECRET_KEY is generated")
    # A key file mounted by the platform (a Docker or Kubernetes secret) is only read.
    mounted = (
        SETTINGS_HEAD
        + "from pathlib import Path\n"
        + ("SECRET_KEY = Path('/run/secrets/django_secret_key').read_text().strip()\n")
    )
    assert scan(tmp_path, {"app/settings.py": mounted}) == []


def test_a_command_writing_a_generated_secret_under_any_path_name_is_found(
    tmp_path: Path,
) -> None:
    command = (
        "import secrets\nfrom django.core.management.base import BaseCommand\n"
        "class Command(BaseCommand):\n"
        "    def handle(self, *args, path, **options):\n"
        "        secret = secrets.token_hex(32)\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write(secret)\n"
    )
    found = scan(tmp_path, {"app/management/commands/init_instance.py": command})
    assert [f.line for f in found] == [6]


def test_a_data_folder_a_task_fills_through_a_library_is_found_at_the_read(tmp_path: Path) -> None:
    task = (
        "from django.conf import settings\nimport subprocess\n"
        "def render_cover(book, html):\n"
        "    subprocess.run(['convert', html, settings.COVER_DIR / f'{book.pk}.png'])\n"
    )
    view = (
        "from django.conf import settings\nfrom django.http import FileResponse\n"
        "def cover(request, pk):\n"
        "    return FileResponse((settings.COVER_DIR / f'{pk}.png').open('rb'))\n"
    )
    found = scan(tmp_path, {"books/tasks.py": task, "books/views.py": view})
    assert where(found) == [("books/views.py", 4)]
    # A write the audit reports itself is the finding; the read adds nothing.
    written = task.replace(
        "subprocess.run(['convert', html, settings.COVER_DIR / f'{book.pk}.png'])",
        "(settings.COVER_DIR / f'{book.pk}.png').write_bytes(html)",
    )
    found = scan(tmp_path, {"books/tasks.py": written, "books/views.py": view})
    assert where(found) == [("books/tasks.py", 4)]


def test_a_client_pointed_at_localhost_in_code_is_found(tmp_path: Path) -> None:
    code = (
        "import redis\nfrom celery import Celery\n"
        "app = Celery('shop', broker='amqp://guest@127.0.0.1//')\n"
        "def client():\n"
        "    return redis.Redis(host='localhost', port=6379)\n"
    )
    assert where(scan(tmp_path, {"shop/clients.py": code})) == [
        ("shop/clients.py", 3),
        ("shop/clients.py", 5),
    ]
    shared = code.replace("127.0.0.1", "rabbitmq").replace("'localhost'", "'redis'")
    assert scan(tmp_path, {"shop/clients.py": shared}) == []


def test_a_thumbnail_storage_on_local_disk_built_in_code_is_found(tmp_path: Path) -> None:
    code = (
        "from easy_thumbnails.storage import ThumbnailFileSystemStorage\n"
        "thumbnail_storage = ThumbnailFileSystemStorage(location='/srv/thumbs')\n"
    )
    assert where(scan(tmp_path, {"shop/thumbs.py": code})) == [("shop/thumbs.py", 2)]
    shared = code.replace("ThumbnailFileSystemStorage", "S3Storage").replace(
        "easy_thumbnails.storage", "storages.backends.s3"
    )
    assert scan(tmp_path, {"shop/thumbs.py": shared}) == []


@pytest.mark.parametrize(
    "assignment",
    [
        "THUMBNAIL_REDIS_HOST = os.getenv('THUMBNAIL_REDIS_HOST', 'localhost')",
        "SESSION_REDIS = {'host': 'localhost', 'port': 6379, 'prefix': 'session'}",
        "CONSTANCE_REDIS_CONNECTION = 'redis://127.0.0.1:6379/3'",
    ],
)
def test_a_libraries_redis_on_this_host_is_found(tmp_path: Path, assignment: str) -> None:
    source = "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n" + assignment + "\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.line == 4
    silent = source.replace("localhost", "redis").replace("127.0.0.1", "redis")
    assert scan(tmp_path, {"app/settings.py": silent}, "settings") == []


def test_an_email_relay_on_this_host_is_not_a_shared_service(tmp_path: Path) -> None:
    source = (
        "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n"
        "EMAIL_HOST = 'localhost'\nEMAIL_SERVER_URL = 'smtp://localhost:25'\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}) == []


PYTHON_HEREDOC_KEY = """\
#!/bin/sh -e
KEY_FILE=${KEY_FILE:-/var/lib/app/secret_key}
if [ ! -e "${KEY_FILE}" ]; then
    python <<PYEOF
import random, string
key = ''.join(random.SystemRandom().choice(string.ascii_letters) for _ in range(64))
with open('${KEY_FILE}', 'w') as stream:
    stream.write(key)
PYEOF
fi
exec gunicorn app.wsgi:application
"""


def test_a_key_a_python_heredoc_generates_into_a_file_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path / "a", {"docker-entrypoint.sh": PYTHON_HEREDOC_KEY})
    assert where(found) == [("docker-entrypoint.sh", 4)]
    assert found[0].fix.startswith("Generate the secret once")
    # A heredoc that only prints, or a Python one that reads the mounted key: nothing.
    printed = PYTHON_HEREDOC_KEY.replace("python <<PYEOF", "cat <<PYEOF")
    assert scan(tmp_path / "b", {"docker-entrypoint.sh": printed}) == []
    read = PYTHON_HEREDOC_KEY.replace("'w'", "'r'").replace("stream.write(key)", "print(1)")
    assert scan(tmp_path / "c", {"docker-entrypoint.sh": read}) == []
