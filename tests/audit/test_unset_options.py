"""Settings read as production gets them when no option is set, and the files a test run
or a migration starts: classes found on the third fresh corpus group (issue 14). Each has
a true case that must be found and a safe twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

APPS = "INSTALLED_APPS = ['app']\nDATABASES = {}\n"


def test_a_file_session_chosen_only_when_its_option_is_set_is_silent(tmp_path: Path) -> None:
    source = APPS + (
        "import configuration\n"
        "SESSION_FILE_PATH = getattr(configuration, 'SESSION_FILE_PATH', None)\n"
        "if SESSION_FILE_PATH is not None:\n"
        "    SESSION_ENGINE = 'django.contrib.sessions.backends.file'\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []
    always = source.replace("getattr(configuration, 'SESSION_FILE_PATH', None)", "'/sessions'")
    found = scan(tmp_path / "b", {"app/settings.py": always}, "settings")
    assert where(found) == [("app/settings.py", 6)]


@pytest.mark.parametrize(
    "test",
    ["not SECRET_KEY and DEBUG", "DEBUG", "os.environ.get('DEV_KEY')"],
)
def test_a_secret_key_generated_only_in_a_branch_off_in_production_is_silent(
    tmp_path: Path, test: str
) -> None:
    source = APPS + (
        "import os\n"
        "from django.core.management.utils import get_random_secret_key\n"
        "DEBUG = os.environ.get('DEBUG', '') == 'True'\n"
        "SECRET_KEY = os.environ.get('SECRET_KEY')\n"
        f"if {test}:\n"
        "    SECRET_KEY = get_random_secret_key()\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []
    taken = source.replace(f"if {test}:", "if not SECRET_KEY:")
    assert where(scan(tmp_path / "b", {"app/settings.py": taken}, "settings")) == [
        ("app/settings.py", 8)
    ]


CACHE_ONLY_WITH_URL = APPS + (
    "import environ\n"
    "env = environ.FileAwareEnv(CACHE_URL=(str, ''))\n"
    "if env('CACHE_URL'):\n"
    "    CACHES = {'default': {'BACKEND': 'django.core.cache.backends.redis.RedisCache',\n"
    "                          'LOCATION': env('CACHE_URL')}}\n"
)
USES_CACHE = "from django.core.cache import cache\ndef hit():\n    return cache.incr('hits')\n"


def test_caches_set_only_when_an_option_is_given_is_found_at_that_assignment(
    tmp_path: Path,
) -> None:
    files = {"app/settings.py": CACHE_ONLY_WITH_URL, "app/views.py": USES_CACHE}
    [finding] = scan(tmp_path, files, "settings")
    assert (finding.path, finding.line) == ("app/settings.py", 6)
    assert "only when an option is given" in finding.message


def test_caches_whose_option_defaults_to_a_server_is_silent(tmp_path: Path) -> None:
    with_default = CACHE_ONLY_WITH_URL.replace("(str, '')", "(str, 'redis://cache:6379')")
    files = {"app/settings.py": with_default, "app/views.py": USES_CACHE}
    assert scan(tmp_path, files, "settings") == []


def test_a_start_script_for_a_test_run_is_not_a_replicas_start(tmp_path: Path) -> None:
    script = "#!/bin/sh\npython manage.py migrate --noinput\nexec gunicorn app.wsgi\n"
    files = {"docker/entrypoint-unit-tests.sh": script, "Dockerfile.test": "CMD ./migrate.sh\n"}
    assert scan(tmp_path, files) == []
    found = scan(tmp_path / "b", {"docker/entrypoint-uwsgi.sh": script})
    assert [(f.path, f.category) for f in found] == [("docker/entrypoint-uwsgi.sh", "boot-migrate")]


MODELS = (
    "from django.db import models\nclass Upload(models.Model):\n    file = models.FileField()\n"
)
MIGRATION = (
    "import os\n"
    "from django.db import migrations\n"
    "def clean(apps, schema_editor):\n"
    "    for upload in apps.get_model('app', 'Upload').objects.all():\n"
    "        os.remove(upload.file.path)\n"
    "class Migration(migrations.Migration):\n"
    "    operations = [migrations.RunPython(clean)]\n"
)


def test_a_migration_outside_a_migrations_folder_is_not_scanned(tmp_path: Path) -> None:
    files = {"app/models.py": MODELS, "app/db_migrations/0002_clean.py": MIGRATION}
    assert scan(tmp_path, files, "file-write") == []
    helper = MIGRATION.split("class Migration")[0]
    files = {"app/models.py": MODELS, "app/cleanup.py": helper}
    assert where(scan(tmp_path / "b", files, "file-write")) == [("app/cleanup.py", 5)]


def test_a_test_helper_named_test_py_and_smoke_test_settings_are_not_scanned(
    tmp_path: Path,
) -> None:
    registry = "_patches = []\ndef patch(item):\n    _patches.append(item)\n"
    smoke = "REDIS_URL = 'redis://127.0.0.1:6379'\nINSTALLED_APPS = []\nDATABASES = {}\n"
    files = {"app/acl/test.py": registry, "scripts/smoketest_configuration.py": smoke}
    assert scan(tmp_path, files, "module-state") == []
    assert scan(tmp_path, files) == []
    files = {"app/acl/patches.py": registry, "scripts/production_configuration.py": smoke}
    assert where(scan(tmp_path / "b", files, "module-state")) == [("app/acl/patches.py", 1)]
    found = scan(tmp_path / "c", files, "settings")
    assert [f.path for f in found] == ["scripts/production_configuration.py"]


def test_a_cache_url_config_with_nothing_set_is_locmem_and_with_a_default_is_not(
    tmp_path: Path,
) -> None:
    source = APPS + "import django_cache_url\nCACHES = {'default': django_cache_url.config()}\n"
    files = {"app/settings.py": source, "app/views.py": USES_CACHE}
    [finding] = scan(tmp_path, files, "settings")
    assert (finding.line, "LocMemCache" in finding.message) == (4, True)
    shared = source.replace("config()", "config(default='redis://cache:6379/1')")
    files = {"app/settings.py": shared, "app/views.py": USES_CACHE}
    assert scan(tmp_path / "b", files, "settings") == []
    literal = APPS + "CACHE_URL = 'locmem://'\n"
    assert where(scan(tmp_path / "c", {"app/settings.py": literal}, "settings")) == [
        ("app/settings.py", 3)
    ]


def test_a_database_alias_keyed_by_a_name_is_judged_like_a_literal_key(tmp_path: Path) -> None:
    source = APPS + (
        "import dj_database_url\n"
        "DEFAULT_ALIAS = 'default'\n"
        "DATABASES = {DEFAULT_ALIAS: dj_database_url.config(default='postgres://localhost/db')}\n"
    )
    assert where(scan(tmp_path, {"app/settings.py": source}, "settings")) == [
        ("app/settings.py", 5)
    ]
    remote = source.replace("postgres://localhost/db", "postgres://db.internal/db")
    assert scan(tmp_path / "b", {"app/settings.py": remote}, "settings") == []


BASE_LAYER = APPS + (
    "CHANNEL_LAYERS = {'default': {'BACKEND': 'channels_redis.core.RedisChannelLayer',\n"
    "                              'CONFIG': {'hosts': ['redis://127.0.0.1:6379']}}}\n"
)


@pytest.mark.parametrize(
    ("module", "assignment", "found"),
    [
        ("production", "CHANNEL_LAYERS['default']['CONFIG'] = {'hosts': [URL]}", []),
        ("production", "CHANNEL_LAYERS['default']['CAPACITY'] = 100", [4]),
        ("development", "CHANNEL_LAYERS['default']['CONFIG'] = {'hosts': [URL]}", [4]),
    ],
)
def test_a_setting_changed_in_place_by_a_production_module_that_imports_it_is_replaced(
    tmp_path: Path, module: str, assignment: str, found: list[int]
) -> None:
    importer = (
        "import os\n"
        "from project.settings import CHANNEL_LAYERS\n"
        "URL = os.environ['CHANNELS_REDIS_URL']\n"
        f"{assignment}\n"
    )
    files = {
        "project/settings/__init__.py": "from .base import *\nfrom .production import *\n",
        "project/settings/base.py": BASE_LAYER,
        f"project/settings/{module}.py": importer,
    }
    layers = [f for f in scan(tmp_path, files, "settings") if "CHANNEL_LAYERS" in f.message]
    assert [f.line for f in layers] == found


def test_an_image_served_by_runserver_is_a_development_image(tmp_path: Path) -> None:
    entrypoint = '#!/bin/sh\npython manage.py migrate\nexec "$@"\n'
    dockerfile = (
        'ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]\nCMD ["python3", "manage.py", "runserver"]\n'
    )
    files = {"tools/docker/entrypoint.sh": entrypoint, "tools/docker/Dockerfile": dockerfile}
    assert scan(tmp_path, files) == []
    served = dockerfile.replace('"python3", "manage.py", "runserver"', '"gunicorn", "app.wsgi"')
    files = {"tools/docker/entrypoint.sh": entrypoint, "tools/docker/Dockerfile": served}
    assert where(scan(tmp_path / "b", files)) == [("tools/docker/entrypoint.sh", 2)]
    script = "#!/bin/sh\npython manage.py migrate\npython manage.py runserver 0.0.0.0:8000\n"
    assert scan(tmp_path / "c", {"docker/start.sh": script}) == []


KIWI_LIKE = """\
INSTALLED_APPS = []
from app.secrets import get_secret
DATABASES = {
    "default": {
        "ENGINE": get_secret("APP_DB_ENGINE", "django.db.backends.mysql"),
        "HOST": get_secret("APP_DB_HOST", ""),
    },
}
"""


def test_an_empty_database_host_default_through_a_projects_own_wrapper_is_this_host(
    tmp_path: Path,
) -> None:
    [finding] = scan(tmp_path, {"app/settings.py": KIWI_LIKE}, "settings")
    assert (finding.line, "HOST defaults to empty" in finding.message) == (6, True)
    remote = KIWI_LIKE.replace('get_secret("APP_DB_HOST", "")', 'get_secret("APP_DB_HOST", "db")')
    assert scan(tmp_path / "b", {"app/settings.py": remote}, "settings") == []
    chosen = KIWI_LIKE.replace(
        "DATABASES = {", "import os\nif os.getenv('DB') == 'mysql':\n  DATABASES = {"
    )
    assert scan(tmp_path / "c", {"app/settings.py": chosen}, "settings") == []


CONFIG_CLASS = """\
import secrets
from pydantic import Field
from pydantic_settings import BaseSettings
class ServerConfig(BaseSettings):
    SECRET_KEY: str = Field(default_factory=lambda: secrets.token_urlsafe(50))
    BIND_ADDR: str = Field(default="0.0.0.0:8000")
"""


def test_a_config_class_whose_secret_key_defaults_to_a_random_value_is_found(
    tmp_path: Path,
) -> None:
    [finding] = scan(tmp_path, {"app/config/common.py": CONFIG_CLASS}, "settings")
    assert (finding.line, "ServerConfig" in finding.message) == (5, True)
    required = CONFIG_CLASS.replace(
        "Field(default_factory=lambda: secrets.token_urlsafe(50))", "Field()"
    )
    assert scan(tmp_path / "b", {"app/config/common.py": required}, "settings") == []


TEST_RUN = (
    "import os, sys\nINSTALLED_APPS = []\nMIDDLEWARE = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    "TESTING = sys.argv[1:2] == ['test']\n"
    "MEDIA_ROOT = os.path.join(BASE_DIR, 'media')\n"
    "if TESTING:\n"
    "    MEDIA_ROOT = os.path.join(BASE_DIR, 'media_test')\n"
)


def test_a_value_set_only_under_a_test_run_is_not_productions(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": TEST_RUN}, "settings")
    assert where(found) == [("site/settings.py", 6)]
    argv = TEST_RUN.replace("if TESTING:", "if 'test' in sys.argv:")
    assert where(scan(tmp_path / "b", {"site/settings.py": argv}, "settings")) == [
        ("site/settings.py", 6)
    ]
    other = TEST_RUN.replace("if TESTING:", "if os.environ.get('MEDIA_LOCAL', 'yes'):")
    assert where(scan(tmp_path / "c", {"site/settings.py": other}, "settings")) == [
        ("site/settings.py", 8)
    ]


PLATFORM_OR_ENV_REDIS = APPS + (
    "import environ\n"
    "env = environ.Env()\n"
    "VCAP_SERVICES = env.json('VCAP_SERVICES', default={})\n"
    "if 'redis' in VCAP_SERVICES:\n"
    "    REDIS_BASE_URL = VCAP_SERVICES['redis'][0]['credentials']['uri']\n"
    "else:\n"
    "    REDIS_BASE_URL = env('REDIS_BASE_URL', default=None)\n"
    "if REDIS_BASE_URL:\n"
    "    CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache',\n"
    "                          'LOCATION': REDIS_BASE_URL}}\n"
)


def test_caches_set_only_when_a_platform_or_the_environment_names_redis_is_found(
    tmp_path: Path,
) -> None:
    # With nothing set, the platform's services are {} and the else branch leaves the URL
    # None: CACHES is never assigned, and Django falls back to LocMemCache.
    files = {"app/settings.py": PLATFORM_OR_ENV_REDIS, "app/views.py": USES_CACHE}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 11)]
    assert "set only when an option is given" in found[0].message
    # Its twin: the else branch falls back to a shared server's address.
    shared = PLATFORM_OR_ENV_REDIS.replace("default=None", "default='redis://cache.internal'")
    files = {"app/settings.py": shared, "app/views.py": USES_CACHE}
    assert scan(tmp_path / "b", files, "settings") == []
