"""The seventy-fourth round (2026-12-07): classes a third new user's trial on eight PyPI
releases found, each with a true case that must be found and a safe twin that must stay
silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- an empty file made (a touch) writes no data -------------------------------------------

TOUCH = """\
import os

from django.conf import settings


def ready_log():
    open(os.path.join(settings.DATA_DIR, "debug.log"), "a").close()
"""
EXPORT = """\


def export(rows):
    with open(os.path.join(settings.DATA_DIR, "export.csv"), "w") as out:
        out.write(rows)
"""


def test_a_file_opened_and_closed_at_once_is_a_touch(tmp_path: Path) -> None:
    # As ``Path.touch()``: the file is readied for its writer, judged where that writes.
    assert scan(tmp_path, {"app/views.py": TOUCH}, "file-write") == []


def test_a_file_written_beside_a_touch_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/views.py": TOUCH + EXPORT}, "file-write")
    assert where(found) == [("app/views.py", 11)]


# -- a SECRET_KEY from a structured secrets file the settings write -------------------------
# (W050 reads the same rule: tests/checks/test_secret_key.py.)

TOML_WRITTEN = """\
import os
import secrets
import toml

SECRETS_FILE = os.path.join(os.path.dirname(__file__), "secrets.toml")
if not os.path.exists(SECRETS_FILE):
    with open(SECRETS_FILE, "w") as fh:
        toml.dump({"SECRET_KEY": secrets.token_urlsafe(50)}, fh)
SECRET_KEY = toml.load(SECRETS_FILE)["SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""

YAML_WRITTEN = """\
import os
import secrets
from ruamel.yaml import YAML

SECRETS_FILE = os.path.join(os.path.dirname(__file__), "secrets.yaml")
if not os.path.exists(SECRETS_FILE):
    with open(SECRETS_FILE, "w") as fh:
        YAML().dump({"SECRET_KEY": secrets.token_urlsafe(50)}, fh)
with open(SECRETS_FILE) as fh:
    SECRET_KEY = YAML(typ="safe").load(fh)["SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""

ANNOTATED_NAME = """\
import json
import os
import secrets

SECRETS_FILE = os.path.join(os.path.dirname(__file__), "secrets.json")
if not os.path.exists(SECRETS_FILE):
    json.dump({"SECRET_KEY": secrets.token_urlsafe(50)}, open(SECRETS_FILE, "w"))
with open(SECRETS_FILE) as fh:
    _secrets: dict = json.load(fh)
SECRET_KEY = _secrets["SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""

MOUNTED_THEN_ID_ADDED = """\
import json
import os
import uuid

SECRETS_FILE = "/run/secrets/app.json"  # mounted by the platform, the same everywhere
_secrets = json.load(open(SECRETS_FILE))
SECRET_KEY = _secrets["SECRET_KEY"]
if "instance_id" not in _secrets:
    _secrets["instance_id"] = str(uuid.uuid4())
    json.dump(_secrets, open(SECRETS_FILE, "w"))
INSTANCE_ID = _secrets["instance_id"]
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""

MOUNTED_THEN_NAME_REUSED = """\
import json
import os

SECRETS_FILE = "/run/secrets/app.json"  # mounted
with open(SECRETS_FILE) as fh:
    data = json.load(fh)
SECRET_KEY = data["SECRET_KEY"]

VERSION_FILE = "/tmp/version.json"
if not os.path.exists(VERSION_FILE):
    with open(VERSION_FILE, "w") as fh:
        json.dump({"version": "dev"}, fh)
with open(VERSION_FILE) as fh:
    data = json.load(fh)
VERSION = data["version"]
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""

WRITTEN_ONLY_UNDER_DEBUG = """\
import json
import os
import secrets

DEBUG = os.environ.get("DJANGO_DEBUG") == "1"
if DEBUG:
    DEV_SECRETS = os.path.join(os.path.dirname(__file__), "dev-secrets.json")
    if not os.path.exists(DEV_SECRETS):
        json.dump({"SECRET_KEY": secrets.token_urlsafe(50)}, open(DEV_SECRETS, "w"))
    _secrets = json.load(open(DEV_SECRETS))
else:
    _secrets = json.load(open("/run/secrets/django.json"))
SECRET_KEY = _secrets["SECRET_KEY"]
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = []
"""


@pytest.mark.parametrize(
    "settings", [TOML_WRITTEN, YAML_WRITTEN, ANNOTATED_NAME], ids=["toml", "yaml", "annotated"]
)
def test_a_key_from_a_structured_file_written_when_missing_is_found(
    tmp_path: Path, settings: str
) -> None:
    found = scan(tmp_path, {"proj/settings.py": settings}, "settings")
    assert [f.line for f in found if "SECRET_KEY" in f.message] == [7]


@pytest.mark.parametrize(
    "settings",
    [MOUNTED_THEN_ID_ADDED, MOUNTED_THEN_NAME_REUSED, WRITTEN_ONLY_UNDER_DEBUG],
    ids=["another-value-generated", "name-bound-again-later", "debug-only"],
)
def test_a_key_from_a_mounted_structured_file_is_silent(tmp_path: Path, settings: str) -> None:
    # The file rewritten with an instance id added, a name the key read bound again
    # afterwards for another file, or the generated file only under DEBUG.
    found = scan(tmp_path, {"proj/settings.py": settings}, "settings")
    assert [f for f in found if "SECRET_KEY" in f.message] == []


# -- a touch that empties a file, or makes a flag, is still a write ----------------------

FLAG = """\
import os

from django.conf import settings

FLAG = os.path.join(settings.DATA_DIR, "maintenance.flag")


def start_maintenance(request):
    open(FLAG, "a").close()


def in_maintenance(request):
    return os.path.exists(FLAG)
"""
EMPTIED = """\
from django.conf import settings


def reset_report(request):
    open(settings.DATA_DIR / "report.csv", "w").close()
"""
LOCK_READIED = """\
from django.conf import settings


def ready_lock():
    open(file=settings.DATA_DIR / "app.lock", mode="a").close()
"""


def test_a_flag_file_made_by_a_touch_and_tested_is_found(tmp_path: Path) -> None:
    # Its existence is the state: another instance never sees the flag.
    found = scan(tmp_path, {"app/views.py": FLAG}, "file-write")
    assert where(found) == [("app/views.py", 9)]


def test_a_file_emptied_by_open_w_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/views.py": EMPTIED}, "file-write")
    assert where(found) == [("app/views.py", 5)]


def test_a_touch_given_its_path_by_keyword_is_no_write(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/views.py": LOCK_READIED}, "file-write") == []


def test_a_configuration_class_with_a_literal_key_is_read_without_a_crash(
    tmp_path: Path,
) -> None:
    # The class field's value is a constant: no name to follow (a review found a crash).
    config = 'class Settings:\n    SECRET_KEY: str = "from-the-environment"\n'
    assert scan(tmp_path, {"app/config.py": config}, "settings") == []


def test_a_touch_under_its_own_existence_guard_is_no_write(tmp_path: Path) -> None:
    # ``if not os.path.isfile(log): open(log, "a").close()``: the guard is the touch's
    # own, not a reader of a flag.
    settings_like = (
        "import os\n\nfrom django.conf import settings\n\n"
        "STATE = os.path.join(settings.DATA_DIR, 'state.txt')\n"
        "if not os.path.isfile(STATE):\n    open(STATE, 'a').close()\n"
    )
    assert scan(tmp_path, {"app/logs.py": settings_like}, "file-write") == []
    # Emptied instead (``"w"``), the same file is a write.
    emptied = settings_like.replace("'a'", "'w'")
    assert where(scan(tmp_path, {"app/logs.py": emptied}, "file-write")) == [("app/logs.py", 7)]


# -- a receiver of a signal that only commands send runs where they run --------------------

SIGNALS = "from django.dispatch import Signal\n\ndatabase_prepared = Signal()\n"
HASH_WRITER = """\
import json

from django.conf import settings

HASH_FILE = settings.DATA_DIR / "dbhash.json"


def mark_virgin(**kwargs):
    with HASH_FILE.open("w") as handle:
        json.dump({}, handle)
"""
KERNEL = """\
from app import dbhash
from app.signals import database_prepared

database_prepared.connect(dbhash.mark_virgin)
"""
PREP_COMMAND = """\
from django.core.management.base import BaseCommand

from app.signals import database_prepared


class Command(BaseCommand):
    def handle(self, *args, **options):
        database_prepared.send(self)
"""
RESET_VIEW = """\
from app.signals import database_prepared


def reset(request):
    database_prepared.send(None)
"""


def signal_project(**extra: str) -> dict[str, str]:
    return {
        "app/signals.py": SIGNALS,
        "app/dbhash.py": HASH_WRITER,
        "app/kernel.py": KERNEL,
        "app/management/commands/prep.py": PREP_COMMAND,
        **extra,
    }


def test_a_write_in_a_receiver_of_a_signal_only_a_command_sends_is_spared(
    tmp_path: Path,
) -> None:
    # lino's ``database_prepared``, sent by its ``prep`` command alone.
    assert scan(tmp_path, signal_project(), "file-write") == []


def test_a_write_in_a_receiver_of_a_signal_a_view_sends_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, signal_project(**{"app/views.py": RESET_VIEW}), "file-write")
    assert where(found) == [("app/dbhash.py", 9)]


def test_a_receiver_connected_by_its_decorator_is_spared_too(tmp_path: Path) -> None:
    decorated = HASH_WRITER.replace(
        "def mark_virgin", "@receiver(database_prepared)\ndef mark_virgin"
    ).replace(
        "import json\n",
        "import json\n\nfrom django.dispatch import receiver\n\n"
        "from app.signals import database_prepared\n",
    )
    files = signal_project(**{"app/dbhash.py": decorated, "app/kernel.py": ""})
    assert scan(tmp_path, files, "file-write") == []
