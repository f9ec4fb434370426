"""Classes of the sixty-first round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-eleventh to hundred-and-thirteenth groups (ten projects,
labelled before either tool ran on them), read after their first measurement:

- A database server named by a setting whose name says so in another word
  (``QUIPUCORDS_DBMS_HOST = env.str(…, "localhost")``) is a service on this host, like
  ``DB_HOST``; so is a Kafka or NATS broker (quipucords).
- An alias whose ``ENGINE`` defaults to SQLite (``env.str("DB_ENGINE",
  default="…sqlite3")``) has no server: the file is the finding, its empty ``HOST`` none
  (labs-striker).
- A switch that is on when nothing is set (``USE_REDIS_CACHE = env.bool(…, default=True)``)
  makes ``if USE_REDIS_CACHE:`` production's branch; its ``else`` is an operator's choice
  (quipucords).
- A start script that runs a Makefile target whose recipe migrates (``make server-migrate
  -C /app``) migrates on every replica (quipucords).
- A ``LocMemCache`` alias the project names for the process's own memory
  (``"local-memory"``, ``"locmem"``, ``"process"``) is per instance on purpose, as one
  listed in ``HORIZONTAL_LOCAL_CACHES`` is (the-deep-server).
- A reverse proxy's media block that serves the folder a local-uploads setting fills is the
  setting's consequence: one finding, at the setting, the block related (prj.app).
- A script named for development (``bootstrap_development.sh``) stays a developer's when a
  start script runs it (found when the Makefile class above reached awx's).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

DBMS_SETTINGS = """\
import environ

env = environ.Env()
DBMS = env.str("DBMS", "postgres").lower()
allowed = ["sqlite", "postgres"]
if DBMS not in allowed:
    raise ValueError(DBMS)
if DBMS == "sqlite":
    DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}}}
elif DBMS == "postgres":
    APP_DBMS_HOST = env.str("APP_DBMS_HOST", "{host}")
    DATABASES = {{
        "default": {{
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "app",
            "HOST": APP_DBMS_HOST,
        }}
    }}
"""


def test_a_dbms_host_on_this_host_is_reported(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings.py": DBMS_SETTINGS.format(host="localhost")}, "settings")
    assert where(found) == [("app/settings.py", 11)]
    assert found[0].message.startswith("APP_DBMS_HOST: localhost is this host")


def test_a_dbms_host_named_for_its_server_is_not(tmp_path: Path) -> None:
    source = DBMS_SETTINGS.format(host="db.internal")
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


KAFKA = (
    "import os\nINSTALLED_APPS = []\n"
    'KAFKA_BOOTSTRAP_SERVERS = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "{}")\n'
)


def test_a_kafka_broker_on_this_host_is_reported_and_a_named_one_is_not(tmp_path: Path) -> None:
    found = scan(tmp_path / "a", {"app/settings.py": KAFKA.format("localhost:9092")}, "settings")
    assert where(found) == [("app/settings.py", 3)]
    named = KAFKA.format("kafka:9092")
    assert scan(tmp_path / "b", {"app/settings.py": named}, "settings") == []


SQLITE_BY_DEFAULT = """\
import environ

env = environ.Env()
DATABASES = {{
    "default": {{
        "ENGINE": env.str("DB_ENGINE", default="{engine}"),
        "NAME": env.str("DB_NAME", default="app"),
        "HOST": env.str("DB_HOST", default=""),
    }}
}}
"""


def test_the_empty_host_of_an_alias_that_defaults_to_sqlite_is_not_a_second_finding(
    tmp_path: Path,
) -> None:
    source = SQLITE_BY_DEFAULT.format(engine="django.db.backends.sqlite3")
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert [f.message.split(":")[1].strip() for f in found] == ["SQLite is a file on one host"]


def test_the_empty_host_of_an_alias_that_defaults_to_postgres_is_reported(tmp_path: Path) -> None:
    source = SQLITE_BY_DEFAULT.format(engine="django.db.backends.postgresql")
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert where(found) == [("app/settings.py", 8)]
    assert "HOST defaults to empty" in found[0].message


SWITCHED_CACHE = """\
import environ

env = environ.Env()
USE_REDIS_CACHE = env.bool("USE_REDIS_CACHE", default={default})
if USE_REDIS_CACHE:
    CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": env.str("REDIS_URL", "redis://cache:6379/0")}}}}
else:
    CACHES = {{"default": {{"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}}}
"""


def test_the_else_of_a_switch_that_is_on_by_default_is_not_production(tmp_path: Path) -> None:
    source = SWITCHED_CACHE.format(default="True")
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []
    quoted = SWITCHED_CACHE.format(default='"yes"')
    assert scan(tmp_path / "q", {"app/settings.py": quoted}, "settings") == []


def test_the_else_of_a_switch_that_is_off_by_default_is(tmp_path: Path) -> None:
    source = SWITCHED_CACHE.format(default="False")
    found = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert where(found) == [("app/settings.py", 9)]


MAKEFILE = """\
PYTHON ?= python
server-migrate:
\t$(PYTHON) app/manage.py migrate -v 3

server-set-superuser:
\t$(PYTHON) app/manage.py create_or_update_user

server-init: server-migrate server-set-superuser
"""
ENTRYPOINT = """\
#!/usr/bin/env bash
set -e
if make {target} server-set-superuser -C /app; then
    gunicorn app.wsgi
fi
"""
CONTAINERFILE = 'FROM python:3.12\nCMD ["/bin/bash", "/deploy/entrypoint_web.sh"]\n'


def _make_project(target: str) -> dict[str, str]:
    return {
        "Makefile": MAKEFILE,
        "Containerfile": CONTAINERFILE,
        "deploy/entrypoint_web.sh": ENTRYPOINT.format(target=target),
        "app/manage.py": "",
    }


def test_a_start_that_runs_a_make_target_that_migrates_migrates(tmp_path: Path) -> None:
    for n, target in enumerate(("server-migrate", "server-init")):
        found = scan(tmp_path / str(n), _make_project(target), "boot-migrate")
        assert where(found) == [("deploy/entrypoint_web.sh", 3)], target
        assert ("Makefile", 3) in [(r.path, r.line) for r in found[0].related]
        assert found[0].source.startswith("if make"), "the start line, as written"


def test_a_start_that_runs_a_make_target_that_does_not_migrate_does_not(tmp_path: Path) -> None:
    found = scan(tmp_path, _make_project("collectstatic"), "boot-migrate")
    assert found == []


NAMED_CACHES = """\
CACHES = {{
    "default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://cache:6379"}},
    "{alias}": {{"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
}}
"""


def test_a_locmem_alias_named_for_the_process_is_per_instance_on_purpose(tmp_path: Path) -> None:
    for n, alias in enumerate(("local-memory", "locmem", "process", "local_storage")):
        source = NAMED_CACHES.format(alias=alias)
        assert scan(tmp_path / str(n), {"app/settings.py": source}, "settings") == [], alias


def test_a_locmem_alias_named_for_what_it_holds_is_reported(tmp_path: Path) -> None:
    for n, alias in enumerate(("api_cache", "localized_pages")):
        source = NAMED_CACHES.format(alias=alias)
        found = scan(tmp_path / str(n), {"app/settings.py": source}, "settings")
        assert where(found) == [("app/settings.py", 3)], alias


LOCAL_UPLOADS = """\
MEDIA_ROOT = "/home/web/media"
STORAGES = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
"""
NGINX = """\
server {
    listen 80;
    location /media {
        alias /home/web/media;
    }
}
"""


def test_a_proxy_media_block_is_related_to_the_setting_that_keeps_uploads_local(
    tmp_path: Path,
) -> None:
    files = {"app/settings.py": LOCAL_UPLOADS, "deployment/sites-enabled/default.conf": NGINX}
    found = scan(tmp_path, files)
    assert [(f.path, f.line) for f in found] == [("app/settings.py", 2)]
    assert ("deployment/sites-enabled/default.conf", 3) in [
        (r.path, r.line) for r in found[0].related
    ]
    assert "the web server that serves them from this folder" in found[0].message


def test_a_proxy_media_block_stands_alone_where_the_storage_is_shared(tmp_path: Path) -> None:
    shared = 'STORAGES = {"default": {"BACKEND": "storages.backends.s3.S3Storage"}}\n'
    files = {
        "app/settings.py": shared,
        "deployment/sites-enabled/default.conf": NGINX,
        "app/models.py": "from django.db import models\n\n\nclass A(models.Model):\n"
        "    f = models.FileField()\n",
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("deployment/sites-enabled/default.conf", 3)]


DEVELOPMENT_BOOTSTRAP = """\
#!/bin/bash
if [[ -n "$RUN_MIGRATIONS" ]]; then
    python manage.py migrate
fi
"""
LAUNCH = "#!/bin/bash\n{script}\nexec gunicorn app.wsgi\n"
COMPOSE = "services:\n  web:\n    command: launch_app.sh\n"


def _launched(script: str) -> dict[str, str]:
    """A compose service whose start script runs ``script``, which may migrate."""
    return {
        "tools/launch_app.sh": LAUNCH.format(script=script),
        f"tools/{script}": DEVELOPMENT_BOOTSTRAP,
        "tools/docker-compose.yml": COMPOSE,
        "manage.py": "",
    }


def test_a_development_script_a_start_runs_stays_a_developers(tmp_path: Path) -> None:
    assert scan(tmp_path, _launched("bootstrap_development.sh"), "boot-migrate") == []


def test_a_set_up_script_a_start_runs_migrates_on_every_replica(tmp_path: Path) -> None:
    found = scan(tmp_path, _launched("bootstrap.sh"), "boot-migrate")
    assert where(found) == [("tools/bootstrap.sh", 3)]
