"""Classes of the sixty-seventh round (issue 14), each with a true case and a safe twin.

They came from the hundred-and-twenty-first group (evalai, zeva, spirit, labelled before
either tool ran on them) read beside the hundred-and-twentieth's tfrs, after their first
measurements:

- A database helper from OpenShift's django-ex template (``database.config()``, whose
  engine is ``engines.get(os.getenv("DATABASE_ENGINE"), engines["sqlite"])`` and SQLite
  when ``DATABASE_SERVICE_NAME`` is unset), called by the settings for
  ``DATABASES["default"]``, gives each instance its own SQLite file (zeva, tfrs). Helpers
  imported relatively (``from . import database``) are followed, as absolute ones were.
- The settings built from a host variable left at ``localhost`` are related to the
  variable's finding (tfrs).
- A helper's mail relay on ``localhost`` (``os.getenv("SMTP_SERVER_HOST", "localhost")``)
  is no shared service, as ``EMAIL_HOST`` is not (tfrs).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where
from tests.audit.test_round_sixty_six_classes import REDIS

DATABASE = """\
import os

engines = {
    "sqlite": "django.db.backends.sqlite3",
    "postgresql": "django.db.backends.postgresql",
}


def config():
    service_name = os.getenv("DATABASE_SERVICE_NAME", "").upper()
    if service_name:
        engine = engines.get(os.getenv("DATABASE_ENGINE"), engines["sqlite"])
    else:
        engine = engines["sqlite"]
    return {
        "ENGINE": engine,
        "NAME": os.getenv("DATABASE_NAME", "db.sqlite3"),
        "HOST": os.getenv(f"{service_name}_SERVICE_HOST"),
    }
"""
SETTINGS = """\
import os

from . import database

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["R"]}}
DATABASES = {
    "default": database.config(),
}
"""


def test_a_database_helper_falling_back_to_sqlite_is_found(tmp_path: Path) -> None:
    files = {"backend/app/database.py": DATABASE, "backend/app/settings.py": SETTINGS}
    [finding] = scan(tmp_path, files, "settings")
    assert (finding.path, finding.line) == ("backend/app/database.py", 12)
    assert [(r.path, r.line) for r in finding.related] == [("backend/app/settings.py", 8)]


def test_a_database_helper_with_no_sqlite_fallback_is_not(tmp_path: Path) -> None:
    helper = DATABASE.replace('engines["sqlite"]', 'engines["postgresql"]')
    files = {"backend/app/database.py": helper, "backend/app/settings.py": SETTINGS}
    assert scan(tmp_path, files, "settings") == []


def test_a_table_of_engines_no_setting_reads_is_not(tmp_path: Path) -> None:
    settings = SETTINGS.replace("database.config()", "{'ENGINE': os.environ['ENGINE']}")
    files = {"backend/app/database.py": DATABASE, "backend/app/settings.py": settings}
    assert scan(tmp_path, files, "settings") == []


def test_the_settings_built_from_a_host_variable_are_related(tmp_path: Path) -> None:
    [finding] = scan(tmp_path, {"app/settings.py": REDIS}, "settings")
    assert (finding.path, finding.line) == ("app/settings.py", 4)
    assert sorted(r.line for r in finding.related) == [9, 12]


EMAIL = """\
import os


def config():
    return {
        "SMTP_SERVER_HOST": os.getenv("SMTP_SERVER_HOST", "localhost"),
        "{key}": os.getenv("{key}", "localhost"),
    }
"""
USES = """\
from . import email

INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://r"}}
EMAIL_CONFIG = email.config()
"""


def test_a_helpers_mail_relay_on_this_host_is_not_a_shared_service(tmp_path: Path) -> None:
    helper = EMAIL.replace('        "{key}": os.getenv("{key}", "localhost"),\n', "")
    files = {"app/email.py": helper, "app/settings.py": USES}
    assert scan(tmp_path, files, "settings") == []


def test_a_helpers_broker_on_this_host_is(tmp_path: Path) -> None:
    helper = EMAIL.replace("{key}", "RABBITMQ_HOST")
    files = {"app/email.py": helper, "app/settings.py": USES}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/email.py", 7)]


def test_an_explicit_choice_of_sqlite_in_a_helper_is_no_fallback(tmp_path: Path) -> None:
    helper = """\
import os

ENGINES = {"sqlite": "django.db.backends.sqlite3", "postgresql": "django.db.backends.postgresql"}


def config():
    engine = os.environ["DATABASE_ENGINE"]
    if engine == "sqlite":
        return {"ENGINE": ENGINES["sqlite"], "NAME": "db.sqlite3"}
    return {"ENGINE": ENGINES[engine], "NAME": os.environ["DB_NAME"]}
"""
    files = {"backend/app/database.py": helper, "backend/app/settings.py": SETTINGS}
    assert scan(tmp_path, files, "settings") == []


def test_a_helper_function_imported_relatively_is_followed(tmp_path: Path) -> None:
    settings = SETTINGS.replace("from . import database", "from .database import config")
    settings = settings.replace("database.config()", "config()")
    files = {"backend/app/database.py": DATABASE, "backend/app/settings.py": settings}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("backend/app/database.py", 12)]
