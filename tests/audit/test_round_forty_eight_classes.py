"""Classes of the forty-eighth round (issue 14), each with a true case and a safe twin.

They came from the eighty-eighth and eighty-ninth labelled groups (Geotrek-admin,
bluebottle; openimis-be_py, Sefaria-Project), measured once after the forty-seventh round
and before any of these was written.

- The trees of end-to-end test runners (``cypress/``, ``playwright/``) are tests', their
  web servers' configs too.
- A settings module whose base, its first star import, is a test or development module
  (``from app.settings.testing import *``) is one too; an override star-imported at the
  end (``from .local_settings import *``) does not make production's a developer's.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

NGINX = "server {\n    location /media/ {\n        alias /app/var/media/;\n    }\n}\n"


def test_a_site_in_a_cypress_tree_is_not_read(tmp_path: Path) -> None:
    assert scan(tmp_path, {"cypress/nginx.conf": NGINX}, "file-write") == []


def test_the_same_site_in_a_deploy_tree_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"deploy/nginx.conf": NGINX}, "file-write")
    assert where(found) == [("deploy/nginx.conf", 2)]


BASE = 'SECRET_KEY = "x"\nINSTALLED_APPS = ["app"]\n'
RUNNER = """\
import os

from app.settings.{base} import *  # noqa

DATABASES = {{"default": {{"ENGINE": "django.db.backends.postgresql", "HOST": "localhost"}}}}
{override}
"""


def _runner_findings(tmp_path: Path, base: str, override: str = "") -> list:
    files = {
        "app/settings/__init__.py": "",
        f"app/settings/{base}.py": BASE,
        "app/settings/runner.py": RUNNER.format(base=base, override=override),
    }
    return scan(tmp_path, files, "settings")


def test_settings_based_on_the_test_settings_are_silent(tmp_path: Path) -> None:
    assert _runner_findings(tmp_path, "testing") == []


def test_settings_based_on_the_production_base_are_found(tmp_path: Path) -> None:
    found = _runner_findings(tmp_path, "base")
    assert where(found) == [("app/settings/runner.py", 5)]


def test_a_local_override_imported_at_the_end_keeps_them_production(tmp_path: Path) -> None:
    found = _runner_findings(tmp_path, "base", override="from .local_settings import *")
    assert where(found) == [("app/settings/runner.py", 5)]
