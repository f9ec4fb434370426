"""docs/checks.md is the catalogue: its index lists every documented id, and every id
this package's settings and config checks can emit has a row there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "checks.md").read_text()
ROW_ID = re.compile(r"^\| `(horizontal\.[EWIC]\d{3})` \|", re.MULTILINE)
MENTIONED_ID = re.compile(r"`(horizontal\.[EWIC]\d{3})`")


def index_ids() -> list[str]:
    index = DOCS.split("Every id, one line each", 1)[1].split("\n\n", 2)[1]
    return ROW_ID.findall(index)


def section_ids() -> set[str]:
    """Ids the sections document: table rows, and ids named in their prose."""
    sections = DOCS.split("## Configuration errors", 1)[1]
    # Headings name id ranges ("W100-W199"), not ids.
    body = "\n".join(line for line in sections.splitlines() if not line.startswith("#"))
    return set(MENTIONED_ID.findall(body))


def emitted_ids(module: str) -> set[str]:
    source = (ROOT / "horizontal" / "checks" / f"{module}.py").read_text()
    return set(re.findall(r'id="(horizontal\.[EWIC]\d{3})"', source))


def test_index_lists_each_documented_id_once_in_order() -> None:
    ids = index_ids()
    assert len(ids) == len(set(ids))
    assert ids == sorted(ids, key=lambda i: (i[11] != "E", int(i[-3:])))
    assert set(ids) == section_ids()


def test_every_settings_and_config_id_is_documented() -> None:
    emitted = emitted_ids("settings") | emitted_ids("config")
    assert len(emitted) == 29
    assert emitted <= section_ids()
    assert emitted <= set(index_ids())
