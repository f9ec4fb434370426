"""Classes of the forty-ninth round (issue 14), each with a true case and a safe twin.

They came from the ninetieth and ninety-first labelled groups (demozoo, securethenews;
dissemin, la-metro-councilmatic), measured once after the forty-eighth round and before
any of these was written.

- A settings template an operator copies (``secret_template.py``) and the documentation
  build's settings (``sphinx.py``) are not production's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

SETTINGS = """\
INSTALLED_APPS = ["app"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "localhost"}}
"""


@pytest.mark.parametrize("name", ["secret_template.py", "sphinx.py"])
def test_a_template_or_documentation_settings_module_is_silent(tmp_path: Path, name: str) -> None:
    assert scan(tmp_path, {f"site/settings/{name}": SETTINGS}, "settings") == []


@pytest.mark.parametrize("name", ["secret.py", "prod.py"])
def test_the_same_settings_in_a_deployed_module_are_found(tmp_path: Path, name: str) -> None:
    found = scan(tmp_path, {f"site/settings/{name}": SETTINGS}, "settings")
    assert where(found) == [(f"site/settings/{name}", 2)]
