"""Classes of the fiftieth round (issue 14), each with a true case and a safe twin.

They came from the ninety-second and ninety-third labelled groups (ds-search,
bga-payroll, just-spaces, openness-project-nmid; committee-oversight,
interactive.opensafely.org, chi-councilmatic, nyc-councilmatic), measured once after the
forty-ninth round and before any of these was written.

- The URL readers of django-environ and environs take their default second
  (``env.dj_db_url("DATABASE_URL", "postgres://…@localhost/…")``).
- A deploy hook that installs a crontab of the tree under its own name
  (``/etc/cron.d/site-crontasks``) is judged by that crontab's jobs, which it names.
- A path in ``/tmp`` named for the call (``"/tmp/{}".format(name)``) is a temp file.
- What a helper writes, when only commands and scripts name it, happens where its
  operator runs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

ENVIRON_SETTINGS = """\
from environs import Env

env = Env()
INSTALLED_APPS = ["app"]
DATABASES = {{"default": env.{reader}("DATABASE_URL"{default})}}
"""


@pytest.mark.parametrize("reader", ["dj_db_url", "db_url", "db"])
def test_a_url_readers_local_default_is_found(tmp_path: Path, reader: str) -> None:
    settings = ENVIRON_SETTINGS.format(reader=reader, default=', "postgres://u:p@localhost/app"')
    found = scan(tmp_path, {"site/settings.py": settings}, "settings")
    assert where(found) == [("site/settings.py", 5)]
    assert "localhost" in found[0].message


def test_a_url_reader_without_a_default_is_silent(tmp_path: Path) -> None:
    settings = ENVIRON_SETTINGS.format(reader="dj_db_url", default="")
    assert scan(tmp_path, {"site/settings.py": settings}, "settings") == []


APPSPEC = """\
version: 0.0
os: linux
hooks:
  AfterInstall:
    - location: scripts/after_install.sh
      runas: root
"""
AFTER_INSTALL = """\
#!/bin/bash
python scripts/render_configs.py
chown root.root /etc/cron.d/site-crontasks
chmod 644 /etc/cron.d/site-crontasks
"""


def _cron_findings(tmp_path: Path, job: str) -> list:
    files = {
        "appspec.yml": APPSPEC,
        "scripts/after_install.sh": AFTER_INSTALL,
        "scripts/site-crontasks": f"# /etc/cron.d/site-crontasks\n\n{job}\n",
    }
    return scan(tmp_path, files, "image-cron")


def test_a_crontab_installed_by_its_name_is_related_to_its_install(tmp_path: Path) -> None:
    found = _cron_findings(tmp_path, "0 * * * * app cd /srv/site && python manage.py ratings")
    assert where(found) == [("scripts/after_install.sh", 3)]
    assert ("scripts/site-crontasks", 3) in [(r.path, r.line) for r in found[0].related]


def test_a_crontab_installed_by_its_name_that_keeps_host_files_is_silent(tmp_path: Path) -> None:
    assert _cron_findings(tmp_path, "0 3 * * * root find /tmp -mtime +1 -delete") == []


TEMP_WRITER = """\
import csv


def trim(upload):
    name = {path}
    with open(name, "w") as out:
        csv.writer(out).writerow(["a"])
    return name
"""


def test_a_tmp_path_named_for_the_call_and_handed_back_is_silent(tmp_path: Path) -> None:
    writer = TEMP_WRITER.format(path='"/tmp/{}".format(upload.name)')
    assert scan(tmp_path, {"imports/utils.py": writer}, "file-write") == []


def test_a_fixed_tmp_path_is_found(tmp_path: Path) -> None:
    writer = TEMP_WRITER.format(path='"/tmp/export.csv"')
    found = scan(tmp_path, {"imports/utils.py": writer}, "file-write")
    assert where(found) == [("imports/utils.py", 6)]


HELPER = """\
from django.conf import settings


class Directory:
    def write_ldap_config(self, text):
        with open(settings.LDAP_CONF_FILE, "w") as out:
            out.write(text)

    def entries(self):
        return []
"""
COMMAND = """\
from django.core.management.base import BaseCommand

from directory.lib import Directory


class Command(BaseCommand):
    def handle(self, **options):
        Directory().write_ldap_config("base")
"""
VIEW = """\
from django.http import JsonResponse

from directory.lib import Directory


def entries(request):
    return JsonResponse({"entries": Directory().entries()})
"""


def test_a_helper_only_commands_call_writes_where_its_operator_runs_it(tmp_path: Path) -> None:
    files = {
        "directory/lib.py": HELPER,
        "directory/management/commands/sync.py": COMMAND,
        "directory/views.py": VIEW,
    }
    assert scan(tmp_path, files, "file-write") == []


def test_the_same_helper_called_from_a_view_is_found(tmp_path: Path) -> None:
    view = VIEW.replace("Directory().entries()", 'Directory().write_ldap_config("x")')
    files = {
        "directory/lib.py": HELPER,
        "directory/management/commands/sync.py": COMMAND,
        "directory/views.py": view,
    }
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("directory/lib.py", 6)]
