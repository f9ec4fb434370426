"""local_storage.py: uploads reached by a path under MEDIA_ROOT live on one host's disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

VIEW = """\
from django.conf import settings
from django.template.loader import render_to_string


def render_report(report):
    template = {use}
    return render_to_string(str(template), {{}})
"""


@pytest.mark.parametrize(
    "use",
    [
        "settings.MEDIA_ROOT.joinpath(report.template.name)",
        "settings.MEDIA_ROOT / report.template.name",
        "next(settings.MEDIA_ROOT.glob(report.template.name))",
    ],
)
def test_a_path_setting_used_as_a_path_is_found(tmp_path: Path, use: str) -> None:
    found = scan(tmp_path, {"reports/views.py": VIEW.format(use=use)})
    assert ("reports/views.py", 6) in where(found)


def test_a_media_root_only_reported_is_not_a_path(tmp_path: Path) -> None:
    # Its twin: the setting's value shown, not a place on disk opened.
    found = scan(tmp_path, {"reports/views.py": VIEW.format(use="settings.MEDIA_ROOT.name")})
    assert ("reports/views.py", 6) not in where(found)


IMPORTED = """\
import os
from django.http import HttpResponse
from {module} import MEDIA_ROOT


def download(request, name):
    path = os.path.join(MEDIA_ROOT, "exports", name)
    with open(path, "rb") as f:
        return HttpResponse(f.read())
"""


def test_media_root_imported_from_the_settings_module_is_the_setting(tmp_path: Path) -> None:
    source = IMPORTED.format(module="mysite.settings")
    assert ("reports/views.py", 7) in where(scan(tmp_path, {"reports/views.py": source}))


@pytest.mark.parametrize("module", ["reports.constants", "reports.app_settings"])
def test_a_media_root_of_another_module_is_not_the_setting(tmp_path: Path, module: str) -> None:
    # Its twin: a constant of the app's own (a path inside the package, shipped with it).
    source = IMPORTED.format(module=module)
    assert ("reports/views.py", 7) not in where(scan(tmp_path, {"reports/views.py": source}))
