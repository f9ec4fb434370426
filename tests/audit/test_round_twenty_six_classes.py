"""Classes of the twenty-sixth round (issue 14), each with a true case and a safe twin.

They came from the thirty-ninth and fortieth labelled groups (directory-sso,
market-access-api, electionleaflets, odl-video-service, bootcamp-ecommerce;
berth-reservations, open-city-profile, money-to-prisoners-noms-ops, caps,
parking-permits), measured once before any of them was written (the first of its class
before the fortieth was measured).

- A base's database alias with no host is replaced when the served module assigns
  ``DATABASES`` whole.
- A memo with no arguments that returns one row looked up by constants is reference data.
- ``migrate`` behind a switch named for it that is off by default
  (``if [[ "$APPLY_MIGRATIONS" = "1" ]]``) runs where a deployment turns it on, unless the
  image turns it on for every replica.
- A platform's deploy hook (``on_deploy.sh``, ``on_initialize.sh``) runs once per deploy.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- a base's DATABASES replaced by the served module ---------------------------------

BASE = """\
import os

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "leaflets",
        "USER": os.environ.get("DATABASE_USER", None),
    }
}
"""
SERVED = """\
import os

from .base import *  # noqa: F403

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["DATABASE_NAME"],
        "HOST": os.environ["DATABASE_HOST"],
    }
}
"""
WSGI = """\
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings.{module}")
application = get_wsgi_application()
"""


def test_a_base_alias_the_served_module_replaces_is_silent(tmp_path: Path) -> None:
    files = {
        "site/settings/__init__.py": "",
        "site/settings/base.py": BASE,
        "site/settings/lambda_.py": SERVED,
        "site/wsgi.py": WSGI.format(module="lambda_"),
    }
    found = scan(tmp_path, files, "settings")
    assert [f for f in found if "DATABASES" in f.message] == []


def test_a_base_alias_nothing_replaces_is_found(tmp_path: Path) -> None:
    files = {
        "site/settings/__init__.py": "",
        "site/settings/base.py": BASE,
        "site/wsgi.py": WSGI.format(module="base"),
    }
    found = scan(tmp_path, files, "settings")
    assert where([f for f in found if "DATABASES" in f.message]) == [("site/settings/base.py", 6)]


# -- a memo of one reference row --------------------------------------------------------

REFERENCE_ROW = """\
from functools import lru_cache

from django.conf import settings
from django.contrib.auth.models import Group


@lru_cache(maxsize=3)
def get_customers_group({parameter}):
    return Group.objects.get(name={key})
"""


def test_a_memo_of_one_row_looked_up_by_a_setting_is_silent(tmp_path: Path) -> None:
    source = REFERENCE_ROW.format(parameter="", key="settings.CUSTOMER_GROUP_NAME")
    assert scan(tmp_path, {"users/utils.py": source}, "cache") == []


def test_a_memo_keyed_by_its_argument_is_found(tmp_path: Path) -> None:
    source = REFERENCE_ROW.format(parameter="name", key="name")
    assert where(scan(tmp_path, {"users/utils.py": source}, "cache")) == [("users/utils.py", 7)]


# -- migrate behind a switch that is off by default --------------------------------------

ENTRYPOINT = """\
#!/bin/bash
set -e

if [[ "$APPLY_MIGRATIONS" = "1" ]]; then
    echo "Applying database migrations..."
    ./manage.py migrate --noinput
fi

exec uwsgi --ini .prod/uwsgi.ini
"""
IMAGE = """\
FROM python:3.12
COPY docker-entrypoint.sh /entrypoint/docker-entrypoint.sh
{env}
ENTRYPOINT ["/entrypoint/docker-entrypoint.sh"]
"""


def test_a_migrate_switch_off_by_default_is_silent(tmp_path: Path) -> None:
    files = {"docker-entrypoint.sh": ENTRYPOINT, "Dockerfile": IMAGE.format(env="")}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_migrate_switch_the_image_turns_on_is_found(tmp_path: Path) -> None:
    files = {
        "docker-entrypoint.sh": ENTRYPOINT,
        "Dockerfile": IMAGE.format(env="ENV APPLY_MIGRATIONS=1"),
    }
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker-entrypoint.sh", 6)]


def test_a_migrate_switch_on_by_default_is_found(tmp_path: Path) -> None:
    on = ENTRYPOINT.replace('"$APPLY_MIGRATIONS"', '"${APPLY_MIGRATIONS:-1}"')
    files = {"docker-entrypoint.sh": on, "Dockerfile": IMAGE.format(env="")}
    assert where(scan(tmp_path, files, "boot-migrate")) == [("docker-entrypoint.sh", 6)]


# -- a platform's deploy hook -----------------------------------------------------------

HOOK = """\
#!/bin/sh
python /app/manage.py migrate --noinput
python /app/manage.py loaddata harbors.json
"""


def test_a_deploy_hook_runs_once_per_deploy(tmp_path: Path) -> None:
    files = {".prod/on_deploy.sh": HOOK, ".prod/on_initialize.sh": HOOK}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_the_same_steps_in_an_entrypoint_are_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {".prod/entrypoint.sh": HOOK}, "boot-migrate")
    assert where(found) == [(".prod/entrypoint.sh", 2)]
