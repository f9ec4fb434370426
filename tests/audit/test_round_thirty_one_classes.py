"""Classes of the thirty-first round (issue 14), each with a true case and a safe twin.

They came from the fifty-third and fifty-fourth labelled groups (great-domestic-ui,
navigator, dit-helpdesk, tamato, trade-access-program; telemetry-analysis-service, elmo,
lumbergh, affiliates, directory-ui-supplier), measured once after the thirtieth round and
before any of these was written.

- Third-party code kept in the tree (``vendor-local/``, ``vendor/``, ``third_party/``)
  is its authors', as site-packages is.
- A settings module named for CI or development with a hyphen (``travis-local.py``) is
  not production's.
- A generator nested in a factory writes into the directory the factory's caller gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_outside_measurements import scan, where

WRITER = """\
def save(rows):
    with open("/var/lib/app/rows.csv", "w") as handle:
        handle.write(rows)
"""


@pytest.mark.parametrize("folder", ["vendor-local/lib/python", "vendor", "third_party/cef"])
def test_third_party_code_kept_in_the_tree_is_not_read(tmp_path: Path, folder: str) -> None:
    assert scan(tmp_path, {f"{folder}/writer.py": WRITER}, "file-write") == []


def test_the_same_code_in_the_project_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/writer.py": WRITER}, "file-write")
    assert where(found) == [("app/writer.py", 2)]


CI_SETTINGS = """\
INSTALLED_APPS = []
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
"""


def test_a_ci_settings_module_named_with_a_hyphen_is_not_read(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/settings/travis-local.py": CI_SETTINGS}, "settings") == []


def test_the_same_values_in_a_production_module_are_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/settings/production.py": CI_SETTINGS}, "settings")
    assert where(found) == [("app/settings/production.py", 2)]


FACTORY = """\
from pathlib import Path


def dit_file_generator({parameters}):
    def generate_files():
        counter = 0
        while True:
            counter += 1
            with open({folder} / f"DIT{{counter:06}}.xml", "wb+") as handle:
                yield handle

    files = generate_files()
    return lambda: next(files)
"""


def test_a_generator_writing_where_its_factorys_caller_says_is_not_reported(
    tmp_path: Path,
) -> None:
    source = FACTORY.format(parameters="directory", folder="Path(directory)")
    assert scan(tmp_path, {"exporter/util.py": source}, "file-write") == []


def test_a_generator_writing_into_a_fixed_folder_is_found(tmp_path: Path) -> None:
    source = FACTORY.format(parameters="", folder='Path("/var/lib/exports")')
    assert where(scan(tmp_path, {"exporter/util.py": source}, "file-write")) == [
        ("exporter/util.py", 9)
    ]
