"""``docs/api.md`` and the code say the same thing about what is public.

Every stable module's ``__all__`` is exactly the names the page lists for it, and each
resolves; every compatibility path resolves to the object it names; and every module of
``horizontal`` is on the page, as stable, kept for compatibility, or internal. A new
module therefore needs a decision, not an accident.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from django.utils.module_loading import import_string

import horizontal

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ROW = re.compile(r"^\| `(?P<first>[\w.]+)` \| (?P<rest>.*) \|$")
NAME = re.compile(r"`([\w.]+)`")


def section(title: str) -> list[tuple[str, list[str]]]:
    """The table rows under ``## title``: first cell, and the code spans of the rest."""
    text = PAGE.read_text()
    body = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        match = ROW.match(line)
        if match:
            rows.append((match["first"], NAME.findall(match["rest"])))
    assert rows, f"no rows under {title!r} in {PAGE}"
    return rows


STABLE = section("Stable imports")
COMPATIBLE = section("Kept for compatibility")
INTERNAL = [module for module, _ in section("Internal")]


def all_modules() -> list[str]:
    found = ["horizontal"]
    for info in pkgutil.walk_packages(horizontal.__path__, "horizontal."):
        if ".migrations" in info.name or ".management" in info.name:
            continue  # Django's own contracts: migration files and manage.py commands
        found.append(info.name)
    return found


@pytest.mark.parametrize(("module", "names"), STABLE, ids=[m for m, _ in STABLE])
def test_a_stable_module_exports_exactly_what_the_page_lists(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)
    assert sorted(imported.__all__) == sorted(names)
    for name in names:
        assert getattr(imported, name) is not None


@pytest.mark.parametrize(("old", "new"), COMPATIBLE, ids=[o for o, _ in COMPATIBLE])
def test_a_kept_path_is_the_object_it_names(old: str, new: list[str]) -> None:
    assert import_string(old) is import_string(new[0])


def test_every_module_is_on_the_page() -> None:
    listed = {m for m, _ in STABLE} | {o.rpartition(".")[0] for o, _ in COMPATIBLE}
    listed |= set(INTERNAL)

    def covered(module: str) -> bool:
        return module in listed or any(module.startswith(f"{room}.") for room in INTERNAL)

    assert [module for module in all_modules() if not covered(module)] == []
