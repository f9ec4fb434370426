"""Settings written as literals in the module production runs: a database on this host is
found whether it is an environment default or written out; CI settings named for the CI
service are not what a deployment runs."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import SETTINGS_HEAD, scan, where

PRODUCTION = SETTINGS_HEAD + (
    "DATABASES = {\n"
    "    'default': {\n"
    "        'ENGINE': 'django.db.backends.mysql',\n"
    "        'NAME': 'site',\n"
    "        'HOST': 'localhost',\n"
    "    },\n"
    "}\n"
)


def test_a_literal_database_host_on_this_host_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings/prod.py": PRODUCTION}, "settings")
    assert where(found) == [("site/settings/prod.py", 7)]
    assert "localhost is this host" in found[0].message


def test_a_literal_database_host_that_names_a_server_is_silent(tmp_path: Path) -> None:
    server = PRODUCTION.replace("'HOST': 'localhost'", "'HOST': 'db.internal'")
    assert scan(tmp_path, {"site/settings/prod.py": server}, "settings") == []


def test_ci_settings_named_for_the_ci_service_are_silent(tmp_path: Path) -> None:
    from_env = "import os\n" + PRODUCTION.replace(
        "'localhost'", "os.getenv('DB_HOST', 'localhost')"
    )
    for name in ("github.py", "gitlab_ci.py", "travis.py"):
        assert scan(tmp_path / name, {f"site/settings/{name}": from_env}, "settings") == []
    found = scan(tmp_path / "prod", {"site/settings/prod.py": from_env}, "settings")
    assert where(found) == [("site/settings/prod.py", 8)]


SEARCH = SETTINGS_HEAD + (
    "SEARCH_CONNECTION = {\n"
    "    'nodes': [{'host': 'localhost', 'port': '8108', 'protocol': 'http'}],\n"
    "}\n"
    "HAYSTACK_CONNECTIONS = {'default': {'URL': 'http://127.0.0.1:9200/'}}\n"
)


def test_a_search_engine_on_this_host_is_found_and_a_named_one_is_not(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": SEARCH}, "settings")
    assert where(found) == [("site/settings.py", 4), ("site/settings.py", 6)]
    named = SEARCH.replace("'localhost'", "'typesense'").replace("127.0.0.1", "search")
    assert scan(tmp_path / "b", {"site/settings.py": named}, "settings") == []


FORMATTED = (
    "import environ, sys\n"
    "env = environ.Env()\n"
    "INSTALLED_APPS = []\nMIDDLEWARE = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    'LOCAL_DB = "psql://app:secret@{}:5432/app".format(\n'
    '    "localhost" if sys.platform == "win32" else "127.0.0.1"\n'
    ")\n"
    'DATABASES = {"default": env.db_url("DATABASE_URL", default=LOCAL_DB)}\n'
)


def test_a_database_default_built_with_str_format_on_this_host_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": FORMATTED}, "settings")
    assert len(found) == 1 and "is this host" in found[0].message
    assert found[0].line in (6, 7)
    served = FORMATTED.replace('"localhost" if sys.platform == "win32" else "127.0.0.1"', '"db"')
    assert scan(tmp_path / "b", {"site/settings.py": served}, "settings") == []
    one_branch = FORMATTED.replace('else "127.0.0.1"', 'else "db"')
    assert scan(tmp_path / "c", {"site/settings.py": one_branch}, "settings") == []


LOGS = SETTINGS_HEAD + (
    "LOGGING = {\n"
    "    'version': 1,\n"
    "    'handlers': {\n"
    "        'api': {'class': 'logging.FileHandler', 'filename': '/var/log/app/api.log'},\n"
    "        'jobs': {'class': 'logging.FileHandler', 'filename': '/var/log/app/jobs.log'},\n"
    "        'web': {'class': 'logging.FileHandler', 'filename': '/var/log/app/web.log'},\n"
    "    },\n"
    "}\n"
)


def test_the_file_handlers_of_one_logging_setting_are_one_finding(tmp_path: Path) -> None:
    found = scan(tmp_path, {"site/settings.py": LOGS}, "log-file")
    assert where(found) == [("site/settings.py", 6)]
    assert [(r.path, r.line) for r in found[0].related] == [
        ("site/settings.py", 7),
        ("site/settings.py", 8),
    ]
    streams = LOGS.replace("logging.FileHandler", "logging.StreamHandler")
    assert scan(tmp_path / "b", {"site/settings.py": streams}, "log-file") == []
