"""Classes of the thirty-sixth round (issue 14), each with a true case and a safe twin.

They came from the sixty-third and sixty-fourth labelled groups (webpay, solitude, spark,
gameon; crt-portal, omb-eregs, retirement, regulations-core), measured once after the
thirty-fifth round and before any of these was written.

- ``env.get_service(label="s3")`` (cfenv) is None where no deployment bound the service:
  the branch it guards is not production's default.
- A project command that migrates only on the first instance (``env.index == 0``) is not
  ``migrate`` on every replica.
- A download kept ``if not path.exists() or path.stat().st_size == 0:`` is rebuilt
  wherever it is missing.
- The ``secrets`` module a random value is drawn from does not make a file a secret's.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

CF_SETTINGS = """\
from cfenv import AppEnv

env = AppEnv()
INSTALLED_APPS = ["app"]
s3service = {bound}
if s3service:
    AWS_STORAGE_BUCKET_NAME = s3service.credentials.get("bucket")
    DEFAULT_FILE_STORAGE = "storages.backends.s3boto3.S3Boto3Storage"
else:
    MEDIA_ROOT = "media"
"""


def _media(found: list) -> list:
    return [f for f in found if f.message.startswith("MEDIA_ROOT")]


def test_media_when_no_platform_service_is_bound_is_found(tmp_path: Path) -> None:
    settings = CF_SETTINGS.format(bound='env.get_service(label="s3")')
    found = _media(scan(tmp_path, {"app/settings.py": settings}, "settings"))
    assert where(found) == [("app/settings.py", 10)]


def test_media_in_the_branch_a_literal_service_skips_is_silent(tmp_path: Path) -> None:
    settings = CF_SETTINGS.format(bound='{"credentials": {"bucket": "b"}}')
    assert _media(scan(tmp_path, {"app/settings.py": settings}, "settings")) == []


CF_MIGRATE = """\
from cfenv import AppEnv
from django.core import management
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        env = AppEnv()
        {guard}
            management.call_command("migrate", "--noinput")
"""
RUN_API = "#!/bin/bash\n./manage.py cf_migrate\ngunicorn app.wsgi -b 0.0.0.0:$PORT\n"


def test_a_command_that_migrates_on_the_first_instance_only_is_silent(tmp_path: Path) -> None:
    command = CF_MIGRATE.format(guard="if env.index is None or env.index == 0:")
    files = {"app/management/commands/cf_migrate.py": command, "run_api.sh": RUN_API}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_a_command_that_migrates_on_every_instance_is_migrate(tmp_path: Path) -> None:
    command = CF_MIGRATE.format(guard="if env.name is not None:")
    files = {"app/management/commands/cf_migrate.py": command, "run_api.sh": RUN_API}
    assert where(scan(tmp_path, files, "boot-migrate")) == [("run_api.sh", 2)]


DOWNLOAD = """\
from pathlib import Path

ROOT_DIR = Path(__file__).parent / "data"


def download(relpath, response):
    path = ROOT_DIR / relpath
    {guard}
        output_file = path.open("wb")
        copy_into(response, output_file)
    return path
"""


def test_a_download_rebuilt_when_missing_or_empty_is_silent(tmp_path: Path) -> None:
    module = DOWNLOAD.format(guard="if not path.exists() or path.stat().st_size == 0:")
    assert scan(tmp_path, {"app/download.py": module}, "file-write") == []


def test_a_file_written_only_where_it_is_missing_under_a_compound_guard_is_silent(
    tmp_path: Path,
) -> None:
    # weblate's CACHEDIR.TAG: ``if exists(folder) and not exists(tag):`` writes the tag once
    # per host, where it is missing (found on an outside trial).
    guard = "if ROOT_DIR.exists() and not path.exists():"
    assert scan(tmp_path, {"app/download.py": DOWNLOAD.format(guard=guard)}, "file-write") == []
    # Its twin: the folder's existence alone guards nothing about the file.
    guard = "if ROOT_DIR.exists() and relpath:"
    found = scan(tmp_path / "b", {"app/download.py": DOWNLOAD.format(guard=guard)}, "file-write")
    assert where(found) == [("app/download.py", 9)]


def test_a_download_written_whenever_it_is_empty_is_found(tmp_path: Path) -> None:
    module = DOWNLOAD.format(guard="if path.stat().st_size == 0 or relpath.endswith('.pdf'):")
    assert where(scan(tmp_path, {"app/download.py": module}, "file-write")) == [
        ("app/download.py", 9)
    ]


TEST_USER = """\
import secrets

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        password = secrets.token_hex(32)
        with open("{name}", "w") as f:
            f.write(password)
"""


def test_a_random_password_for_ci_written_to_a_file_is_not_a_key(tmp_path: Path) -> None:
    command = TEST_USER.format(name="test-user-password.txt")
    files = {"app/management/commands/create_test_user.py": command}
    assert scan(tmp_path, files, "file-write") == []


def test_a_random_value_written_to_a_key_file_is_found(tmp_path: Path) -> None:
    command = TEST_USER.format(name="secret_key.txt")
    files = {"app/management/commands/create_test_user.py": command}
    assert where(scan(tmp_path, files, "file-write")) == [
        ("app/management/commands/create_test_user.py", 9)
    ]
