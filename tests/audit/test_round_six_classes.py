"""Classes found on the eighth and ninth fresh corpus groups (issue 14, the sixth round):
settings that production's environment decides, class-based settings, start scripts for
development, run from the host or by a platform once per deploy, tooling run by hand,
and one finding per data folder and per cache. Each has a true case that must be found
and a safe twin that must stay silent (or be one finding, not two)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from horizontal.audit import scan_paths
from tests.audit.test_outside_measurements import scan, where

APPS = "INSTALLED_APPS = ['app']\n"
USES_CACHE = (
    "from django.core.cache import cache\n"
    "def throttle(key):\n"
    "    if cache.get(key):\n"
    "        return True\n"
    "    cache.set(key, True, timeout=3600)\n"
)


def test_caches_set_only_when_a_variable_is_in_the_environment_is_found(
    tmp_path: Path,
) -> None:
    source = APPS + (
        "import os\n"
        "if 'CACHE_URL' in os.environ:\n"
        "    CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
        "                          'LOCATION': os.environ['CACHE_URL']}}\n"
    )
    files = {"proj/settings.py": source, "app/throttle.py": USES_CACHE}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("proj/settings.py", 4)]
    always = source.replace("if 'CACHE_URL' in os.environ:", "if True:")
    assert scan(tmp_path / "b", {**files, "proj/settings.py": always}, "settings") == []


def test_the_else_of_a_branch_off_by_default_is_what_production_gets(tmp_path: Path) -> None:
    source = APPS + (
        "import os, random, string\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "if 'DJANGO_SECRET_KEY' in os.environ:\n"
        "    SECRET_KEY = os.environ['DJANGO_SECRET_KEY']\n"
        "else:\n"
        "    SECRET_KEY = ''.join(random.SystemRandom().choice(string.printable)"
        " for _ in range(50))\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 7)
    ]
    required = source.replace(
        "else:\n    SECRET_KEY = ''.join(random.SystemRandom().choice(string.printable)"
        " for _ in range(50))\n",
        "else:\n    raise RuntimeError('DJANGO_SECRET_KEY is required')\n",
    )
    assert scan(tmp_path / "b", {"proj/settings.py": required}, "settings") == []


def test_a_table_of_database_engines_to_pick_from_is_not_a_choice_of_sqlite(
    tmp_path: Path,
) -> None:
    source = APPS + (
        "import os\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "ENGINES = {'mysql': 'django.db.backends.mysql',\n"
        "           'sqlite': 'django.db.backends.sqlite3'}\n"
        "DATABASES = {'default': {'ENGINE': ENGINES[os.environ.get('DB', 'mysql')],\n"
        "                         'HOST': os.environ['DB_HOST']}}\n"
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []
    chosen = source.replace(
        "ENGINES[os.environ.get('DB', 'mysql')]", "'django.db.backends.sqlite3'"
    )
    assert where(scan(tmp_path / "b", {"proj/settings.py": chosen}, "settings")) == [
        ("proj/settings.py", 6)
    ]


def test_a_localhost_default_of_an_option_declared_required_is_never_used(
    tmp_path: Path,
) -> None:
    source = (
        "import os\n"
        "def define_setting(name, *, default, required):\n"
        "    pass\n"
        "define_setting('REDIS_URL', default=os.getenv('REDIS_URL', 'redis://localhost:6379/0'),"
        " required=True)\n"
    )
    assert scan(tmp_path, {"app/config.py": source}, "settings") == []
    optional = source.replace("required=True", "required=False")
    assert where(scan(tmp_path / "b", {"app/config.py": optional}, "settings")) == [
        ("app/config.py", 4)
    ]
    outside_tests = source.replace("required=True", "required=not IS_RUNNING_PYTEST")
    assert scan(tmp_path / "c", {"app/config.py": outside_tests}, "settings") == []


def test_migrate_in_a_one_off_container_run_from_the_host_is_not_a_replicas_start(
    tmp_path: Path,
) -> None:
    script = (
        "#!/bin/sh\n"
        "set -ex\n"
        "docker compose run --rm --entrypoint 'poetry run ./manage.py migrate' django\n"
    )
    assert scan(tmp_path, {"docker/start-db.sh": script}, "boot-migrate") == []
    inside = script.replace(
        "docker compose run --rm --entrypoint 'poetry run ./manage.py migrate' django",
        "poetry run ./manage.py migrate",
    )
    assert where(scan(tmp_path / "b", {"docker/start-db.sh": inside}, "boot-migrate")) == [
        ("docker/start-db.sh", 3)
    ]


def test_a_start_script_that_installs_the_project_editable_is_a_development_start(
    tmp_path: Path,
) -> None:
    script = (
        "#!/bin/bash -xe\n"
        "cd /app\n"
        "python3 -m pip install -e .\n"
        "python3 manage.py migrate --noinput\n"
        "exec gunicorn -b 0.0.0.0 app.wsgi:application\n"
    )
    assert scan(tmp_path, {"docker-entrypoint-app.sh": script}, "boot-migrate") == []
    built = script.replace("python3 -m pip install -e .\n", "")
    found = scan(tmp_path / "b", {"docker-entrypoint-app.sh": built}, "boot-migrate")
    assert where(found) == [("docker-entrypoint-app.sh", 3)]


def test_an_invoke_tasks_file_is_run_by_hand(tmp_path: Path) -> None:
    source = (
        "import json, os\n"
        "from invoke import task\n"
        "@task\n"
        "def deploy(ctx, branch):\n"
        "    with open('.cfmeta', 'w') as fp:\n"
        "        json.dump({'user': os.getenv('USER'), 'branch': branch}, fp)\n"
    )
    assert scan(tmp_path, {"tasks.py": source}, "file-write") == []
    in_a_view = source.replace("from invoke import task\n@task\n", "")
    assert where(scan(tmp_path / "b", {"app/views.py": in_a_view}, "file-write")) == [
        ("app/views.py", 3)
    ]


DATA_SETTINGS = APPS + (
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    "STORAGES = {'default': {'BACKEND': 'storages.backends.s3.S3Storage'}}\n"
    "FILE_UPLOAD_DIR = '/var/app/uploads'\n"
)
DATA_WRITER = (
    "import os\n"
    "from django.conf import settings\n"
    "def upload(name, data):\n"
    "    os.makedirs(settings.FILE_UPLOAD_DIR, exist_ok=True)\n"
    "def download(name):\n"
    "    path = os.path.join(settings.FILE_UPLOAD_DIR, name)\n"
    "    return path\n"
)
DATA_READER = (
    "import os\n"
    "from django.conf import settings\n"
    "def stored_name(name):\n"
    "    return os.path.join(settings.FILE_UPLOAD_DIR, name)\n"
)


def test_a_data_folder_is_one_finding_with_its_reads_writer_and_setting(
    tmp_path: Path,
) -> None:
    files = {
        "proj/settings.py": DATA_SETTINGS,
        "app/files.py": DATA_WRITER,
        "app/models.py": DATA_READER,
    }
    found = [f for f in scan(tmp_path, files, "file-write") if "reads settings" in f.message]
    assert where(found) == [("app/models.py", 4)]
    related = {(r.path, r.line) for r in found[0].related}
    assert {("app/files.py", 4), ("app/files.py", 6), ("proj/settings.py", 4)} <= related
    # Read only by the module that fills it: no second module depends on this host's disk.
    alone = {k: v for k, v in files.items() if k != "app/models.py"}
    assert not [
        f for f in scan(tmp_path / "b", alone, "file-write") if "reads settings" in f.message
    ]


def test_a_per_process_cache_names_the_code_that_writes_shared_state_through_it(
    tmp_path: Path,
) -> None:
    files = {"proj/settings.py": APPS + "DATABASES = {}\n", "app/throttle.py": USES_CACHE}
    (found,) = scan(tmp_path, files, "settings")
    assert found.message.startswith("CACHES is not set")
    assert [(r.path, r.line) for r in found.related] == [("app/throttle.py", 5)]
    shared = APPS + "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    assert scan(tmp_path / "b", {**files, "proj/settings.py": shared}, "settings") == []


ROLE = """\
- name: renew certificates
  cron:
    job: "letsencrypt renew"
    special_time: daily
- name: send the daily digest
  ansible.builtin.cron:
    job: "/srv/venv/bin/python /srv/app/manage.py send_digest"
    hour: "12"
- name: migrate
  command: /srv/venv/bin/python /srv/app/manage.py migrate
"""


def test_a_django_command_an_ansible_role_installs_into_cron_runs_on_every_host(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"ansible/app/tasks/main.yml": ROLE})
    assert where(found) == [("ansible/app/tasks/main.yml", 6)]
    assert [(r.path, r.line) for r in found[0].related] == [("ansible/app/tasks/main.yml", 7)]
    removed = ROLE.replace('    hour: "12"\n', "    state: absent\n")
    assert scan(tmp_path / "b", {"ansible/app/tasks/main.yml": removed}) == []


GENERATOR = (
    "from pathlib import Path\n"
    "def generate_config(version: int) -> None:\n"
    "    (Path('/srv/theme') / 'tailwind.css').write_text('...')\n"
)
COMMAND = (
    "from django.core.management.base import BaseCommand\n"
    "from app.theme.cssconfig import generate_config\n"
    "class Command(BaseCommand):\n"
    "    def handle(self, *args, **options):\n"
    "        generate_config(options['output'])\n"
)
SCRIPT = "#!/usr/bin/env python\nfrom .cssconfig import generate_config\n"


def test_a_module_only_commands_import_runs_where_its_operator_runs_them(
    tmp_path: Path,
) -> None:
    files = {
        "src/app/theme/cssconfig.py": GENERATOR,
        "src/app/management/commands/tailwind_config.py": COMMAND,
        "src/app/theme/generate.py": SCRIPT,
    }
    assert scan(tmp_path, files, "file-write") == []
    view = "from app.theme import cssconfig\ndef page(request):\n    cssconfig.generate_config(1)\n"
    found = scan(tmp_path / "b", {**files, "src/app/pages.py": view}, "file-write")
    assert where(found) == [("src/app/theme/cssconfig.py", 3)]
    # A module Django finds by its name runs in request code without any import.
    by_name = {**files, "src/app/theme/views.py": GENERATOR}
    by_name["src/app/management/commands/tailwind_config.py"] = COMMAND.replace(
        "app.theme.cssconfig", "app.theme.views"
    )
    found = scan(tmp_path / "c", by_name, "file-write")
    assert ("src/app/theme/views.py", 3) in where(found)


CONFIGURATIONS = """\
import os
from configurations import Configuration, values

class Base(Configuration):
    INSTALLED_APPS = ["app"]
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "HOST": values.Value("localhost", environ_name="DB_HOST", environ_prefix=None),
        }
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

class Development(Base):
    STORAGES = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}

class Production(Base):
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache",
                          "LOCATION": values.Value("redis://redis:6379/1")}}
"""


def test_class_based_settings_are_read_as_the_production_class_runs_them(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"proj/settings.py": CONFIGURATIONS}, "settings")
    # The base's HOST default is production's; the base's LocMem cache is replaced by
    # Production's, and Development's local storage is not production's.
    assert where(found) == [("proj/settings.py", 9)]
    remote = CONFIGURATIONS.replace('values.Value("localhost"', 'values.Value("db"')
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


def test_a_cache_no_configuration_class_sets_is_reported_at_the_production_class(
    tmp_path: Path,
) -> None:
    source = CONFIGURATIONS.replace('values.Value("localhost"', 'values.Value("db"')
    source = source.replace(
        '    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache",\n'
        '                          "LOCATION": values.Value("redis://redis:6379/1")}}\n',
        "    DEBUG = False\n",
    ).replace(
        '    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}\n',
        "",
    )
    files = {"proj/settings.py": source, "app/throttle.py": USES_CACHE}
    (found,) = scan(tmp_path, files, "settings")
    production = source.splitlines().index("class Production(Base):") + 1
    assert found.message.startswith("CACHES is not set") and found.line == production


def test_python_3_14_except_without_parentheses_is_audited(tmp_path: Path) -> None:
    source = APPS + (
        "import os\n"
        "try:\n"
        "    SECRET = os.environ['SECRET']\n"
        "except KeyError, ValueError:\n"
        "    SECRET = ''\n"
        "CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}\n"
    )
    found = scan_paths([_written(tmp_path, "proj/settings.py", source)], base=tmp_path)
    assert found.unparsed == []
    assert [(f.path, f.line) for f in found.findings] == [("proj/settings.py", 7)]


def _written(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return root


def test_a_platforms_postdeploy_hook_migrates_once_per_deploy(tmp_path: Path) -> None:
    procfile = "web: bin/start.sh\npostdeploy: python manage.py migrate\n"
    assert scan(tmp_path, {"Procfile": procfile}, "boot-migrate") == []
    web = "web: python manage.py migrate && gunicorn app.wsgi\n"
    assert where(scan(tmp_path / "b", {"Procfile": web}, "boot-migrate")) == [("Procfile", 1)]


def test_a_developers_bootstrap_script_is_not_a_start(tmp_path: Path) -> None:
    script = "#!/bin/bash\ndropdb --if-exists app\ncreatedb app\npython manage.py migrate\n"
    assert scan(tmp_path, {"scripts/bootstrap.sh": script}, "boot-migrate") == []
    boot = script + "exec gunicorn app.wsgi\n"
    found = scan(tmp_path / "b", {"scripts/bootstrap.sh": boot}, "boot-migrate")
    assert where(found) == [("scripts/bootstrap.sh", 4)]


def test_a_database_url_with_no_host_is_the_local_socket(tmp_path: Path) -> None:
    source = APPS + (
        "import environ\n"
        "env = environ.Env()\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {'default': env.db('DATABASE_URL', default='postgres:///app')}\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 5)
    ]
    remote = source.replace("postgres:///app", "postgres://db/app")
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


def test_a_database_config_built_through_a_get_string_wrapper_defaults_to_sqlite(
    tmp_path: Path,
) -> None:
    source = APPS + (
        "import dj_database_url\n"
        "from app.envs import get_string\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DEFAULT_DATABASE_CONFIG = dj_database_url.parse(\n"
        "    get_string('DATABASE_URL', 'sqlite:///db.sqlite3')\n"
        ")\n"
        "DATABASES = {'default': DEFAULT_DATABASE_CONFIG}\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 6)
    ]
    remote = source.replace("sqlite:///db.sqlite3", "postgres://db/app")
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


def test_env_db_with_no_name_reads_database_url_from_the_schema(tmp_path: Path) -> None:
    source = APPS + (
        "import environ\n"
        "env = environ.Env(DATABASE_URL=(str, 'postgis:///events'))\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {'default': env.db()}\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 5)
    ]
    remote = source.replace("postgis:///events", "postgis://db/events")
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


def test_a_cache_set_only_under_an_option_names_the_branch_that_asks_for_it(
    tmp_path: Path,
) -> None:
    source = APPS + (
        "import environ\n"
        "env = environ.Env(REDIS_URL=(str, None))\n"
        "if env('REDIS_URL'):\n"
        "    OPTIONS = {}\n"
        "    CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    )
    files = {"proj/settings.py": source, "app/throttle.py": USES_CACHE}
    (found,) = scan(tmp_path, files, "settings")
    assert (found.line, [r.line for r in found.related if r.path == "proj/settings.py"]) == (
        6,
        [4],
    )


def test_deployment_config_in_a_hidden_prod_folder_is_read(tmp_path: Path) -> None:
    ini = "[uwsgi]\nstatic-map = /media=$(MEDIA_ROOT)\n"
    assert where(scan(tmp_path, {".prod/uwsgi.ini": ini}, "file-write")) == [(".prod/uwsgi.ini", 2)]
    assert scan(tmp_path / "b", {".idea/uwsgi.ini": ini}, "file-write") == []


def test_uwsgis_environment_form_of_a_media_static_map_is_read(tmp_path: Path) -> None:
    env = "UWSGI_MODULE=app.wsgi\nUWSGI_STATIC_MAP=/media=/srv/app/www/media\n"
    assert where(scan(tmp_path, {"deploy/uwsgi.env": env}, "file-write")) == [
        ("deploy/uwsgi.env", 2)
    ]
    static = env.replace("/media=/srv/app/www/media", "/static=/srv/app/www/static")
    assert scan(tmp_path / "b", {"deploy/uwsgi.env": static}, "file-write") == []


def test_an_elasticsearch_address_named_es_urls_on_this_host_is_found(tmp_path: Path) -> None:
    source = APPS + (
        "import os\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "ES_URLS = [os.environ.get('ES_URLS', '127.0.0.1:9200')]\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 4)
    ]
    remote = source.replace("127.0.0.1:9200", "search:9200")
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


GUARD = "if not DEBUG and not SECRET_KEY:\n    raise Exception('SECRET_KEY is required')\n"


def test_a_key_generated_after_a_guard_that_stops_production_without_one_is_silent(
    tmp_path: Path,
) -> None:
    source = APPS + (
        "import os, random\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DEBUG = os.environ.get('DEBUG') == '1'\n"
        "SECRET_KEY = os.environ.get('SECRET_KEY', '')\n"
        "if not DEBUG and not SECRET_KEY:\n"
        "    raise Exception('SECRET_KEY is required')\n"
        "if not SECRET_KEY:\n"
        "    SECRET_KEY = ''.join(random.SystemRandom().choice('abc') for _ in range(50))\n"
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []
    unguarded = source.replace(GUARD, "")
    assert where(scan(tmp_path / "b", {"proj/settings.py": unguarded}, "settings")) == [
        ("proj/settings.py", 7)
    ]


def test_w050_leaves_out_a_key_production_never_generates_as_the_audit_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from horizontal.audit.settings_imported import random_secret_key_sites

    guarded = (
        "import os, random\n"
        "DEBUG = False\n"
        "SECRET_KEY = os.environ.get('SECRET_KEY', '')\n" + GUARD + "if not SECRET_KEY:\n"
        "    SECRET_KEY = ''.join(random.SystemRandom().choice('abc') for _ in range(50))\n"
    )
    cases = [
        ("guarded_settings", guarded, []),
        ("fallback_settings", guarded.replace(GUARD, ""), ["5"]),
    ]
    for name, text, expected in cases:
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        module = types.ModuleType(name)
        module.__file__ = str(path)
        monkeypatch.setitem(sys.modules, name, module)
        assert [site.rsplit(":", 1)[1] for site in random_secret_key_sites(name)] == expected


ENTRYPOINT = """\
#!/bin/sh
set -e
case "$1" in
'web-dev')
    ./manage.py migrate
    exec ./manage.py runserver 0.0.0.0:8000
    ;;
'web-prod')
    exec gunicorn app.asgi:application
    ;;
esac
"""


def test_the_development_arm_of_a_dispatching_entrypoint_is_not_a_replicas_start(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"docker/entrypoint.sh": ENTRYPOINT}, "boot-migrate") == []
    production = ENTRYPOINT.replace(
        "    exec gunicorn app.asgi:application\n",
        "    ./manage.py migrate\n    exec gunicorn app.asgi:application\n",
    )
    found = scan(tmp_path / "b", {"docker/entrypoint.sh": production}, "boot-migrate")
    assert where(found) == [("docker/entrypoint.sh", 9)]


def test_the_path_of_a_file_field_with_a_remote_storage_of_its_own_is_not_a_local_read(
    tmp_path: Path,
) -> None:
    models = (
        "from django.db import models\n"
        "from app.storage import AWSMediaStorage\n"
        "class Document(models.Model):\n"
        "    filepath = models.FileField(\n"
        "        upload_to='docs/',\n"
        "        storage=AWSMediaStorage(),\n"
        "    )\n"
    )
    reader = "def contents(doc):\n    with open(doc.filepath.path) as f:\n        return f.read()\n"
    files = {"app/models.py": models, "app/reading.py": reader}
    assert scan(tmp_path, files, "file-write") == []
    local = models.replace("        storage=AWSMediaStorage(),\n", "")
    found = scan(tmp_path / "b", {**files, "app/models.py": local}, "file-write")
    assert where(found) == [("app/reading.py", 2)]


SWITCH = """\
#!/bin/bash
if [ "$LOCAL_DEV_ENV" == "true" ]; then
    python manage.py migrate --noinput
    python manage.py runserver 0.0.0.0:8000
else
    exec gunicorn --bind 0.0.0.0:8000 app.wsgi
fi
"""


def test_the_runserver_side_of_a_development_switch_is_not_a_replicas_start(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"bin/run_web.sh": SWITCH}, "boot-migrate") == []
    both = SWITCH.replace("else\n", "else\n    python manage.py migrate --noinput\n")
    assert where(scan(tmp_path / "b", {"bin/run_web.sh": both}, "boot-migrate")) == [
        ("bin/run_web.sh", 6)
    ]


def test_system_test_helpers_outside_tests_are_not_scanned(tmp_path: Path) -> None:
    writer = (
        "def fake(name):\n    with open('/srv/fake/' + name, 'w') as f:\n        f.write('x')\n"
    )
    assert scan(tmp_path, {"systemtests/lib/fake_data.py": writer}, "file-write") == []
    assert where(scan(tmp_path / "b", {"app/fake_data.py": writer}, "file-write")) == [
        ("app/fake_data.py", 2)
    ]


def test_a_database_alias_with_an_unfinished_engine_is_a_template(tmp_path: Path) -> None:
    source = APPS + (
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.', 'HOST': 'localhost'}}\n"
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []
    finished = source.replace("'django.db.backends.'", "'django.db.backends.postgresql'")
    assert where(scan(tmp_path / "b", {"proj/settings.py": finished}, "settings")) == [
        ("proj/settings.py", 3)
    ]


def test_an_empty_celery_broker_is_celerys_default_broker_on_this_host(tmp_path: Path) -> None:
    source = APPS + (
        "import os\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "CELERY_BROKER_URL = os.environ.get('CELERY_BROKER_URL', '')\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 4)
    ]
    eager = source + "CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL\n"
    assert scan(tmp_path / "b", {"proj/settings.py": eager}, "settings") == []


def test_one_module_reading_several_uploads_by_path_is_one_finding(tmp_path: Path) -> None:
    models = (
        "from django.db import models\n"
        "class Badge(models.Model):\n"
        "    photo = models.ImageField(upload_to='photos/')\n"
        "    background = models.ImageField(upload_to='backgrounds/')\n"
    )
    creator = (
        "def build(badge):\n"
        "    photo = badge.photo.path\n"
        "    back = badge.background.path\n"
        "    return photo, back\n"
    )
    (found,) = scan(tmp_path, {"app/models.py": models, "app/creator.py": creator}, "file-write")
    assert (found.line, [r.line for r in found.related]) == (2, [3])
    assert "photo.path, background.path" in found.message


def test_parse_crontab_computing_a_next_time_is_not_a_scheduler(tmp_path: Path) -> None:
    source = (
        "from crontab import CronTab\n"
        "def next_run(entry, now):\n"
        "    return CronTab(entry).next(now=now)\n"
    )
    assert scan(tmp_path, {"app/models.py": source}, "scheduler") == []
    installs = source.replace("CronTab(entry).next(now=now)", "CronTab(user=True)")
    assert where(scan(tmp_path / "b", {"app/models.py": installs}, "scheduler")) == [
        ("app/models.py", 3)
    ]


def test_migrate_only_the_first_instance_runs_is_not_every_replicas(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        'if [ $CF_INSTANCE_INDEX = "0" ]; then\n'
        "    python manage.py migrate --noinput\n"
        "fi\n"
        "exec gunicorn app.wsgi\n"
    )
    assert scan(tmp_path, {"cf.sh": script}, "boot-migrate") == []
    everyone = script.replace('if [ $CF_INSTANCE_INDEX = "0" ]; then\n', "if true; then\n")
    assert where(scan(tmp_path / "b", {"cf.sh": everyone}, "boot-migrate")) == [("cf.sh", 3)]


def test_elasticsearch_dsl_hosts_on_this_host_are_found(tmp_path: Path) -> None:
    source = APPS + (
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "ELASTICSEARCH_DSL = {'default': {'hosts': '127.0.0.1:9200'}}\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 3)
    ]
    remote = source.replace("127.0.0.1:9200", "search.internal:9200")
    assert scan(tmp_path / "b", {"proj/settings.py": remote}, "settings") == []


def test_drf_throttle_rates_use_the_default_cache(tmp_path: Path) -> None:
    source = APPS + (
        "DATABASES = {}\n"
        "REST_FRAMEWORK = {\n"
        "    'DEFAULT_THROTTLE_RATES': {'login': '10/sec'},\n"
        "}\n"
    )
    # No project code touches the cache: the throttle alone needs it shared.
    (found,) = scan(tmp_path, {"proj/settings.py": source}, "settings")
    assert found.message.startswith("CACHES is not set")
    assert ("proj/settings.py", 4) in [(r.path, r.line) for r in found.related]
    shared = source + "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    assert scan(tmp_path / "b", {"proj/settings.py": shared}, "settings") == []


def test_a_server_database_alias_with_no_host_uses_this_hosts_socket(tmp_path: Path) -> None:
    source = APPS + (
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {\n"
        "    'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': 'app'},\n"
        "}\n"
    )
    assert where(scan(tmp_path, {"proj/settings.py": source}, "settings")) == [
        ("proj/settings.py", 4)
    ]
    hosted = source.replace("'NAME': 'app'}", "'NAME': 'app', 'HOST': 'db'}")
    assert scan(tmp_path / "b", {"proj/settings.py": hosted}, "settings") == []


def test_an_alias_whose_name_and_host_default_to_empty_is_a_template(tmp_path: Path) -> None:
    source = APPS + (
        "import os\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {'default': {\n"
        "    'ENGINE': 'django.db.backends.postgresql',\n"
        "    'NAME': os.environ.get('POSTGRES_DBNAME', ''),\n"
        "    'HOST': os.environ.get('POSTGRES_HOST', ''),\n"
        "}}\n"
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []
    named = source.replace("os.environ.get('POSTGRES_DBNAME', '')", "'app'")
    assert where(scan(tmp_path / "b", {"proj/settings.py": named}, "settings")) == [
        ("proj/settings.py", 7)
    ]


def test_typed_environment_readers_take_their_default_second(tmp_path: Path) -> None:
    source = APPS + (
        "import environ\n"
        "env = environ.Env()\n"
        "if env.bool('API_CACHE_DISABLED', False):\n"
        "    CACHES = {'default': {'BACKEND': 'django.core.cache.backends.dummy.DummyCache'}}\n"
        "else:\n"
        "    CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    )
    assert scan(tmp_path, {"proj/settings.py": source}, "settings") == []
    config = APPS + (
        "config = {}\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': 'app',\n"
        "                         'HOST': config.get('APP_DB_HOST', '')}}\n"
    )
    assert where(scan(tmp_path / "b", {"proj/settings.py": config}, "settings")) == [
        ("proj/settings.py", 5)
    ]


def test_an_ini_with_a_uwsgi_section_is_a_uwsgi_config_whatever_its_name(
    tmp_path: Path,
) -> None:
    ini = "[uwsgi]\nmodule = app.wsgi\ncron = 11 8 -1 -1 1 python manage.py send_digest\n"
    assert where(scan(tmp_path, {"cashbook.ini": ini}, "image-cron")) == [("cashbook.ini", 3)]
    other = ini.replace("[uwsgi]", "[app]")
    assert scan(tmp_path / "b", {"cashbook.ini": other}, "image-cron") == []
