"""horizontal/audit/served_folders.py: folders of data served from this host's disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

URLS = """\
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = [
    re_path(r"^editor/(?P<path>.*)$", serve, {"document_root": settings.EDITOR_ROOT}),
]
"""


@pytest.mark.parametrize(
    ("value", "served"),
    [
        # Files the application writes while it runs: another instance has other ones.
        ("'/var/lib/app/editor'", True),
        ("os.path.join(BASE_DIR, 'builds')", True),
        # A build's output, made when the image is built: the same in every image.
        ("os.path.join(BASE_DIR, '../../web/dist/libs/editor')", False),
        ("BASE_DIR / 'frontend/build'", False),
        ("os.path.join(BASE_DIR, 'frontend', 'build')", False),
        # Inside a folder named build, or outside the code's tree: data it may write.
        ("os.path.join(BASE_DIR, 'build', 'reports')", True),
        ("os.environ.get('EDITOR_ROOT', '/srv/app/dist/editor')", True),
    ],
)
def test_a_folder_a_build_fills_is_shipped(tmp_path: Path, value: str, served: bool) -> None:
    settings = f"import os\nBASE_DIR = os.path.dirname(__file__)\nEDITOR_ROOT = {value}\n"
    files = {"app/settings.py": settings, "app/urls.py": URLS}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == ([("app/urls.py", 6)] if served else [])


def test_a_folder_another_settings_module_names_otherwise_is_not_shipped(tmp_path: Path) -> None:
    # Development builds into ``dist``; production's folder is data: served.
    files = {
        "app/settings.py": "EDITOR_ROOT = '/var/lib/app/editor'\n",
        "app/settings_dev.py": "EDITOR_ROOT = 'web/dist/editor'\n",
        "app/urls.py": URLS,
    }
    assert where(scan(tmp_path, files, "file-write")) == [("app/urls.py", 6)]
