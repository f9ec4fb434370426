"""Classes of the thirty-seventh round (issue 14), each with a true case and a safe twin.

They came from the sixty-fifth labelled group (apilos, citizenconnect,
local-intelligence-hub, trade-remedies-caseworker), measured once after the thirty-sixth
round and before any of these was written.

- A ``from .x import *`` below an assignment replaces it with what ``x`` assigns.
- mySociety's ``conf/post_deploy_actions.bash`` runs on every server a deploy reaches.
- A local copy of a file read from a storage in the same function is a working copy.
- A path from a helper named for a temp folder (``get_tmp_local_path()``) is scratch.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = """\
import os

INSTALLED_APPS = ["app"]
{top}
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": "site.db"}}}}
{bottom}
"""
SITE = """\
import yaml

config = yaml.safe_load(open("conf/general.yml"))
DATABASES = {
    "default": {
        "ENGINE": "django.contrib.gis.db.backends.postgis",
        "NAME": config.get("DB_NAME"),
        "HOST": config.get("DB_HOST"),
    }
}
"""


def _sqlite(found: list) -> list:
    return [f for f in found if "SQLite" in f.message]


def test_a_star_import_below_replaces_the_assignment(tmp_path: Path) -> None:
    files = {
        "site/settings/base.py": BASE.format(top="", bottom="from .mysociety import *"),
        "site/settings/mysociety.py": SITE,
    }
    assert _sqlite(scan(tmp_path, files, "settings")) == []


def test_a_star_import_above_is_replaced_by_the_assignment(tmp_path: Path) -> None:
    files = {
        "site/settings/base.py": BASE.format(top="from .mysociety import *", bottom=""),
        "site/settings/mysociety.py": SITE,
    }
    assert where(_sqlite(scan(tmp_path, files, "settings"))) == [("site/settings/base.py", 5)]


HOOK = """\
#!/bin/bash
set -e
source ../virtualenv/bin/activate
pip install -e .
python manage.py migrate
python manage.py collectstatic --noinput
"""


def test_a_mysociety_deploy_hook_that_migrates_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"conf/post_deploy_actions.bash": HOOK}, "boot-migrate")
    assert where(found) == [("conf/post_deploy_actions.bash", 5)]
    assert found[0].message.startswith("migrate runs in a deploy hook that runs on every")


def test_a_platforms_post_deploy_hook_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"bin/post_deploy.sh": HOOK}, "boot-migrate") == []


COPY = """\
from django.conf import settings
from django.core.files.storage import default_storage


def attached_files(names, request):
    local_paths = []
    for name in names:
        {source}
        local_path = settings.MEDIA_ROOT / "attached" / name
        with open(local_path, "wb") as local_file:
            local_file.write(file.read())
        local_paths.append(local_path)
    return local_paths
"""


def test_a_local_copy_of_a_stored_file_is_silent(tmp_path: Path) -> None:
    module = COPY.format(source='file = default_storage.open(name, mode="rb")')
    assert scan(tmp_path, {"app/services.py": module}, "file-write") == []


def test_the_same_write_of_an_upload_is_found(tmp_path: Path) -> None:
    module = COPY.format(source="file = request.FILES[name]")
    found = scan(tmp_path, {"app/services.py": module}, "file-write")
    assert where(found) == [("app/services.py", 9)]  # the MEDIA_ROOT path it writes under


SCRATCH = """\
from pathlib import Path

from django.conf import settings


def {helper}() -> Path:
    return Path(settings.BASE_DIR, "work")


def build_zip(convention, pdf_bytes):
    local_path = {helper}()
    local_pdf_path = local_path / f"convention_{{convention.uuid}}.pdf"
    with open(local_pdf_path, "wb") as local_pdf_file:
        local_pdf_file.write(pdf_bytes)
    return zip_and_upload(local_pdf_path)
"""


def test_a_path_from_a_temp_folder_helper_is_scratch(tmp_path: Path) -> None:
    module = SCRATCH.format(helper="get_tmp_local_path")
    assert scan(tmp_path, {"app/tasks.py": module}, "file-write") == []


def test_a_path_from_another_helper_is_found(tmp_path: Path) -> None:
    module = SCRATCH.format(helper="get_template_path")
    assert where(scan(tmp_path, {"app/tasks.py": module}, "file-write")) == [("app/tasks.py", 13)]
