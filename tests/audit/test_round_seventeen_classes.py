"""Classes of the seventeenth round (issue 14), each with a true case and a safe twin.

- A settings module with a star import the scan cannot read (an installed package's
  settings) may have any setting set for it, and Django's defaults are not judged there;
  but a setting the module itself assigns only in a branch that is off when nothing is
  set (``if USE_S3: STORAGES = …`` with ``USE_S3`` false by default) is decided by the
  module: production gets Django's default (uploads on this host's disk, ``LocMemCache``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

# -- a default decided in an off-by-default branch, below an unreadable star import ------

VENDOR_SETTINGS = """\
import os

from vendor_toolkit.settings.celery import *  # noqa: F403

INSTALLED_APPS = ["django.contrib.contenttypes", "app"]
MEDIA_ROOT = os.environ.get("MEDIA_ROOT", "/var/media/")
USE_S3 = os.environ.get("USE_S3", "{default}") == "true"
if USE_S3:
    STORAGES = {{"default": {{"BACKEND": "storages.backends.s3.S3Storage"}}}}
"""


def test_storage_chosen_only_behind_an_option_under_an_unread_star_import(
    tmp_path: Path,
) -> None:
    files = {"app/settings.py": VENDOR_SETTINGS.format(default="false")}
    found = scan(tmp_path, files, "settings")
    assert where(found) == [("app/settings.py", 6)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")


@pytest.mark.parametrize(
    "source",
    [
        VENDOR_SETTINGS.format(default="true"),  # the branch is production's
        # No STORAGES anywhere in the module: the unread import may set it.
        VENDOR_SETTINGS.format(default="false").split("USE_S3 =")[0],
    ],
    ids=["on-by-default", "not-decided-here"],
)
def test_storage_left_to_an_unread_star_import_is_not_judged(tmp_path: Path, source: str) -> None:
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []
