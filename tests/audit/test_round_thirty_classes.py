"""Classes of the thirtieth round (issue 14), each with a true case and a safe twin.

They came from the forty-eighth to fifty-second labelled groups (apartment-application-
service, dora, sodar-server, laa-fee-calculator, kaavapino; varfish-server, drive, fala,
staff-sso, enterprise-access; Website, cla_frontend, lite-hmrc, sayit; helerm,
notification-service-api, haravajarjestelma, help, laa-legal-adviser-api;
enterprise-subsidy, moztrap, fjord, redbox), measured once after the twenty-ninth round
and before any of these was written.

- A django-environ schema default for ``CACHE_URL`` in a module that sets ``CACHES``
  without reading it is read by nothing.
- A rate limit (``@ratelimit``) and a ``cache.clear()`` are where a per-process cache
  shows: related locations of the ``CACHES`` finding.
- A ``DummyCache`` alias a library is told to use (``AXES_CACHE``) is that library's
  choice; an in-memory SQLite (``":memory:"``) keeps nothing even on one box.
- ``migrate_db.sh`` that no start runs is a migration job's script.
- A file email backend chosen by ``if EMAIL_BACKEND_TYPE == "FILE":`` is the operator's.
- A literal ``/tmp`` path written once and read by nothing in the module is a dump.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

ENV_SETTINGS = """\
import environ

env = environ.Env(
    CACHE_URL=(str, "locmemcache://"),
)
INSTALLED_APPS = ["django.contrib.sessions"]
CACHES = {caches}
"""
REDIS = '{"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://redis"}}'


def _caches(found: list) -> list:
    return [f for f in found if f.message.startswith("CACHES")]


def test_a_cache_url_default_nothing_reads_is_not_reported(tmp_path: Path) -> None:
    files = {"app/settings.py": ENV_SETTINGS.format(caches=REDIS)}
    assert _caches(scan(tmp_path, files, "settings")) == []


def test_a_cache_url_default_the_settings_read_is_found(tmp_path: Path) -> None:
    files = {"app/settings.py": ENV_SETTINGS.format(caches='{"default": env.cache()}')}
    assert where(_caches(scan(tmp_path, files, "settings"))) == [("app/settings.py", 7)]


NO_CACHES = 'INSTALLED_APPS = ["django.contrib.sessions"]\nSECRET_KEY = "x"\n'
RATE_LIMITED = """\
from django_ratelimit.decorators import ratelimit


@ratelimit(key="ip", rate="30/m", block=True)
def contact(request):
    return None
"""
CLEARED = """\
from django.core.cache import cache


def after_import():
    cache.clear()
"""


def test_a_rate_limit_and_a_clear_are_related_to_the_caches_finding(tmp_path: Path) -> None:
    files = {
        "app/settings.py": NO_CACHES,
        "contact/views.py": RATE_LIMITED,
        "advisers/tasks.py": CLEARED,
    }
    (finding,) = _caches(scan(tmp_path, files, "settings"))
    related = {(r.path, r.line) for r in finding.related}
    assert {("contact/views.py", 4), ("advisers/tasks.py", 5)} <= related


DUMMY = """\
INSTALLED_APPS = ["axes"]
CACHES = {{
    "default": {{"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://redis"}},
    "{alias}": {{"BACKEND": "django.core.cache.backends.dummy.DummyCache"}},
}}
{library}
"""


def test_a_dummy_cache_a_library_is_told_to_use_is_not_reported(tmp_path: Path) -> None:
    source = DUMMY.format(alias="axes_cache", library='AXES_CACHE = "axes_cache"')
    assert _caches(scan(tmp_path, {"app/settings.py": source}, "settings")) == []


def test_a_dummy_cache_nothing_names_is_found(tmp_path: Path) -> None:
    source = DUMMY.format(alias="locks", library="")
    assert where(_caches(scan(tmp_path, {"app/settings.py": source}, "settings"))) == [
        ("app/settings.py", 4)
    ]


SQLITE = """\
INSTALLED_APPS = []
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": {name}}}}}
"""


def test_an_in_memory_sqlite_is_not_reported(tmp_path: Path) -> None:
    files = {"app/settings.py": SQLITE.format(name='":memory:"')}
    assert scan(tmp_path, files, "settings") == []


def test_a_sqlite_file_is_found(tmp_path: Path) -> None:
    files = {"app/settings.py": SQLITE.format(name='"/data/db.sqlite3"')}
    assert where(scan(tmp_path, files, "settings")) == [("app/settings.py", 2)]


MIGRATE_SCRIPT = '#!/bin/bash -e\ncd /home/app\n./manage.py migrate --noinput\nexec "$@"\n'


def test_a_migration_jobs_script_no_start_runs_is_not_reported(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/migrate_db.sh": MIGRATE_SCRIPT}, "boot-migrate") == []


def test_the_same_script_as_an_entrypoint_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/docker-entrypoint.sh": MIGRATE_SCRIPT}, "boot-migrate")
    assert where(found) == [("app/docker-entrypoint.sh", 3)]


EMAIL = """\
import environ

env = environ.Env()
INSTALLED_APPS = []
{head}
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
"""


def test_a_file_email_backend_the_operator_asks_for_is_not_reported(tmp_path: Path) -> None:
    head = 'EMAIL_BACKEND_TYPE = env.str("EMAIL_BACKEND_TYPE")\nif EMAIL_BACKEND_TYPE == "FILE":'
    found = scan(tmp_path, {"app/settings.py": EMAIL.format(head=head)}, "settings")
    assert [f for f in found if f.message.startswith("EMAIL_BACKEND")] == []


def test_a_file_email_backend_by_default_is_found(tmp_path: Path) -> None:
    head = 'if env.bool("SEND_MAIL", default=False) is False:'
    found = scan(tmp_path, {"app/settings.py": EMAIL.format(head=head)}, "settings")
    assert where([f for f in found if f.message.startswith("EMAIL_BACKEND")]) == [
        ("app/settings.py", 6)
    ]


DUMP = """\
def build_clusters(clusters):
    with open("{path}", "wt") as output:
        for cluster in clusters:
            print(cluster, file=output)
"""


def test_a_dump_into_tmp_that_nothing_reads_is_not_reported(tmp_path: Path) -> None:
    files = {"svs/clusters.py": DUMP.format(path="/tmp/clusters.txt")}
    assert scan(tmp_path, files, "file-write") == []


def test_the_same_write_into_a_data_folder_is_found(tmp_path: Path) -> None:
    files = {"svs/clusters.py": DUMP.format(path="/var/lib/svs/clusters.txt")}
    assert where(scan(tmp_path, files, "file-write")) == [("svs/clusters.py", 2)]
