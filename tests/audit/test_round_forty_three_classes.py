"""Classes of the forty-third round (issue 14), each with a true case and a safe twin.

They came from the seventy-eighth and seventy-ninth labelled groups (dnb-service,
legal-basis-api, infraohjelmointi-api, rp-sidekick; seed-message-sender, Momkhulu,
trade-sanctions-licensing, help-desk-service), measured once after the forty-second
round and before any of these was written, and from the seventy-seventh (hitas).

- A scheduler behind a switch named for it (``if [ -n "$CELERY_BEAT" ]``) starts where a
  deployment turns it on, as a migrate behind ``APPLY_MIGRATIONS`` does; a switch's
  quoted default (``${APPLY_MIGRATIONS:-"0"}``) is read as its default.
- django-split-settings' ``include()`` runs the files it names in one namespace: a
  setting in an included component is set for the environment module.
- A ``DummyCache`` breaks only gates and counters (``add``, ``incr``, a rate limit); where
  the code keeps none in the cache it only recomputes memos.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

ENTRYPOINT = """\
#!/bin/sh
set -e
{test}
  celery -A app beat --pidfile beat.pid &
fi
exec gunicorn app.wsgi
"""


def test_a_scheduler_behind_a_switch_named_for_it_is_silent(tmp_path: Path) -> None:
    script = ENTRYPOINT.format(test='if [ -n "$CELERY_BEAT" ]; then')
    assert scan(tmp_path, {"entrypoint.sh": script}, "scheduler") == []


def test_a_scheduler_behind_a_switch_named_otherwise_is_found(tmp_path: Path) -> None:
    script = ENTRYPOINT.format(test='if [ -n "$WORKERS" ]; then')
    found = scan(tmp_path, {"entrypoint.sh": script}, "scheduler")
    assert where(found) == [("entrypoint.sh", 4)]


MIGRATE = """\
#!/bin/bash
if [[ "${{APPLY_MIGRATIONS:-"{default}"}}" = "1" ]]; then
    python manage.py migrate --noinput
fi
exec gunicorn app.wsgi
"""


def test_a_migrate_switch_with_a_quoted_default_off_is_silent(tmp_path: Path) -> None:
    files = {"docker-entrypoint.sh": MIGRATE.format(default="0")}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_migrate_switch_with_a_quoted_default_on_is_found(tmp_path: Path) -> None:
    files = {"docker-entrypoint.sh": MIGRATE.format(default="1")}
    found = scan(tmp_path, files, "boot-migrate")
    assert where(found) == [("docker-entrypoint.sh", 3)]


SPLIT_INIT = """\
from os import environ

from split_settings.tools import include, optional

ENV = environ.setdefault("DJANGO_ENV", "production")
base_settings = [
    "components/common.py",
    {caches}
    "environments/{{0}}.py".format(ENV),
    optional("environments/local.py"),
]
include(*base_settings)
"""
COMMON = """\
SECRET_KEY = "from-the-environment"
INSTALLED_APPS = ["app"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "db"}}
"""
CACHES = """\
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
"""
PRODUCTION = """\
from server.settings.components.common import INSTALLED_APPS

DEBUG = False
INSTALLED_APPS += ("elasticapm.contrib.django",)
ALLOWED_HOSTS = ["example.org"]
"""
VIEW = """\
from django.core.cache import cache


def claim(key):
    return cache.add(key, 1, 60)
"""


def _split_settings(caches: str) -> dict[str, str]:
    files = {
        "server/settings/__init__.py": SPLIT_INIT.format(caches=caches),
        "server/settings/components/__init__.py": "",
        "server/settings/components/common.py": COMMON,
        "server/settings/environments/__init__.py": "",
        "server/settings/environments/production.py": PRODUCTION,
        "app/views.py": VIEW,
    }
    if caches:
        files["server/settings/components/caches.py"] = CACHES
    return files


def _missing_caches(found: list) -> list:
    return [f for f in found if f.message.startswith("CACHES is not set")]


def test_caches_in_an_included_component_are_set(tmp_path: Path) -> None:
    files = _split_settings('"components/caches.py",')
    assert _missing_caches(scan(tmp_path, files, "settings")) == []


def test_caches_set_in_no_component_are_missing(tmp_path: Path) -> None:
    files = _split_settings("")
    found = _missing_caches(scan(tmp_path, files, "settings"))
    assert where(found) == [("server/settings/components/common.py", 2)]


DUMMY = """\
SECRET_KEY = "from-the-environment"
INSTALLED_APPS = ["app"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
"""
MEMO = """\
from django.core.cache import cache


def report(key, build):
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, 600)
    return found


def forget(key):
    cache.delete(key)
"""


MODELS = "from django.db import models\n\n\nclass Report(models.Model):\n    pass\n"


def test_a_dummy_cache_under_memos_is_silent(tmp_path: Path) -> None:
    files = {"app/settings.py": DUMMY, "app/services.py": MEMO, "app/models.py": MODELS}
    assert scan(tmp_path, files, "settings") == []


def test_a_dummy_cache_under_a_gate_is_found(tmp_path: Path) -> None:
    files = {"app/settings.py": DUMMY, "app/services.py": MEMO, "app/views.py": VIEW}
    files["app/models.py"] = MODELS
    assert where(scan(tmp_path, files, "settings")) == [("app/settings.py", 3)]


def test_a_dummy_cache_is_found_when_no_code_was_read(tmp_path: Path) -> None:
    # Settings alone (``check --deploy``'s view): what the code keeps there is unknown.
    assert where(scan(tmp_path, {"app/settings.py": DUMMY}, "settings")) == [("app/settings.py", 3)]
