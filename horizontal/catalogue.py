"""The catalogue of check ids, offline: what ``manage.py horizontal_explain ID`` prints.

A check's hint says what to do in one line; its full entry (what goes wrong with N
instances, the risk, the fix, the notes of its group) is in ``docs/checks.md``, which
a project that installed the package with pip does not have. So the package carries
the catalogue itself, as data: ``horizontal/catalogue.json``.

``docs/checks.md`` is the one source: that file is generated from it by ``parse()``
and ``render_json()``, never edited by hand, and a test
(``tests/checks/test_docs.py``) fails when the two differ. After changing the page::

    python -m horizontal.catalogue

The page stays the source because it is what people read and review, and the test that
keeps every emitted id documented already reads it. The shipped copy is JSON, not a
generated Python module: it is data, which linters and type checkers need not read.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CATALOGUE_FILE",
    "Entry",
    "UnknownCheck",
    "entries",
    "explain",
    "index",
    "known_ranges",
    "normalise_id",
    "parse",
    "read_json",
    "render_json",
]

DOCS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "checks.md"
CATALOGUE_FILE = Path(__file__).with_name("catalogue.json")

ID = re.compile(r"horizontal\.([EWIC])(\d{3})")
# How known ids are listed: critical errors, errors, warnings, then notes.
LEVEL_ORDER = "CEWI"
# What a user may type: "W060", "w060", "horizontal.W060".
TYPED_ID = re.compile(r"(?:horizontal\.)?([EWIC])(\d{3})", re.IGNORECASE)
ROW_ID = re.compile(r"^`(horizontal\.[EWIC]\d{3})`$")
MENTIONED_ID = re.compile(r"`(horizontal\.[EWIC]\d{3})`")
LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
WIDTH = 88


class UnknownCheck(ValueError):
    """An id that is not in the catalogue (or is not an id at all)."""


@dataclass(frozen=True)
class Entry:
    """One id's entry, as ``docs/checks.md`` gives it (Markdown text)."""

    id: str
    level: str
    runs_on: str
    summary: str
    group: str = ""
    # The columns of the id's row in its group's table: (header, cell).
    fields: tuple[tuple[str, str], ...] = ()
    # The group's own paragraphs, before and after its table.
    notes: tuple[str, ...] = field(default=())


# -- reading docs/checks.md ---------------------------------------------------------------


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _is_row(line: str) -> bool:
    return line.startswith("|") and not re.fullmatch(r"\|[\s|:-]+\|", line.strip())


def _paragraphs(lines: Iterable[str]) -> Iterator[str]:
    """Paragraphs of prose (tables and code blocks left out), each joined into one line."""
    current: list[str] = []
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("|") or not line.strip():
            if current:
                yield " ".join(current)
            current = []
            continue
        current.append(line.strip())
    if current:
        yield " ".join(current)


def parse(markdown: str) -> dict[str, Entry]:
    """Every id's entry in ``markdown`` (the text of ``docs/checks.md``), by id."""
    index = markdown.split("Every id, one line each", 1)[1].split("\n\n", 2)[1]
    found: dict[str, Entry] = {}
    for line in index.splitlines():
        cells = _cells(line)
        match = ROW_ID.match(cells[0])
        if match and _is_row(line):
            level, runs_on, summary = cells[1:4]
            found[match[1]] = Entry(match[1], level, runs_on, summary)
    body = markdown.split("\n## Configuration errors", 1)[1]
    for section in re.split(r"^### ", body, flags=re.MULTILINE)[1:]:
        heading, _, text = section.partition("\n")
        lines = [line for line in text.splitlines() if not line.startswith("## ")]
        table = [line for line in lines if _is_row(line)]
        headers = _cells(table[0]) if table else []
        notes = tuple(_paragraphs(lines))
        rows: dict[str, tuple[tuple[str, str], ...]] = {}
        for line in table[1:]:
            cells = _cells(line)
            match = ROW_ID.match(cells[0])
            if match:
                rows[match[1]] = tuple(zip(headers[1:], cells[1:], strict=True))
        named = rows.keys() | set(MENTIONED_ID.findall("\n".join(notes)))
        for check_id in sorted(named & found.keys()):
            entry = found[check_id]
            # The group whose table has the id's row; else the first that names it.
            if entry.fields or (entry.group and check_id not in rows):
                continue
            found[check_id] = Entry(
                check_id,
                entry.level,
                entry.runs_on,
                entry.summary,
                group=heading.strip(),
                fields=rows.get(check_id, ()),
                notes=notes,
            )
    return found


def render_json(found: Mapping[str, Entry]) -> str:
    """``catalogue.json``: each group's notes once (``groups``) and each id's own text
    (``entries``), in the page's order."""
    groups = {entry.group: list(entry.notes) for entry in found.values() if entry.group}
    data = {
        "source": "docs/checks.md, by python -m horizontal.catalogue: do not edit",
        "groups": groups,
        "entries": {
            check_id: {
                "level": entry.level,
                "runs_on": entry.runs_on,
                "summary": entry.summary,
                "group": entry.group,
                "fields": [list(pair) for pair in entry.fields],
            }
            for check_id, entry in found.items()
        },
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def read_json(text: str) -> dict[str, Entry]:
    """The entries ``render_json`` wrote, by full id."""
    data = json.loads(text)
    groups = {group: tuple(notes) for group, notes in data["groups"].items()}
    return {check_id: _entry(check_id, item, groups) for check_id, item in data["entries"].items()}


# -- the catalogue the package carries ------------------------------------------------------


def entries() -> dict[str, Entry]:
    """The shipped catalogue, by full id (``horizontal.W060``), in the page's order."""
    return read_json(CATALOGUE_FILE.read_text(encoding="utf-8"))


def _entry(check_id: str, data: Mapping[str, Any], groups: Mapping[str, tuple[str, ...]]) -> Entry:
    group = str(data["group"])
    return Entry(
        check_id,
        str(data["level"]),
        str(data["runs_on"]),
        str(data["summary"]),
        group=group,
        fields=tuple((str(header), str(cell)) for header, cell in data["fields"]),
        notes=groups.get(group, ()),
    )


def known_ranges(ids: Iterable[str]) -> str:
    """``E001–E006, E009–E017, W001–W003, …, I001, I033``: runs of consecutive ids of one
    level, errors first, then warnings, then notes (a note beside its warning in the
    catalogue's order would split the warnings' run)."""
    runs: list[list[tuple[str, int]]] = []
    found = [(m[1], int(m[2])) for m in map(ID.fullmatch, ids) if m is not None]
    for letter, number in sorted(found, key=lambda id_: (LEVEL_ORDER.find(id_[0]), id_[1])):
        if runs and runs[-1][-1] == (letter, number - 1):
            runs[-1].append((letter, number))
        else:
            runs.append([(letter, number)])

    def spelt(run: list[tuple[str, int]]) -> str:
        first, last = (f"{letter}{number:03d}" for letter, number in (run[0], run[-1]))
        return first if first == last else f"{first}–{last}"

    return ", ".join(spelt(run) for run in runs)


def normalise_id(typed: str, known: Mapping[str, Entry]) -> str:
    """The full id for what a user typed (``w060`` -> ``horizontal.W060``)."""
    match = TYPED_ID.fullmatch(typed.strip())
    if match is not None:
        check_id = f"horizontal.{match[1].upper()}{match[2]}"
        if check_id in known:
            return check_id
    raise UnknownCheck(
        f"{typed!r} is not a horizontal check id. Known ids: {known_ranges(known)} "
        "(type them as W060 or horizontal.W060)."
    )


def plain(markdown: str) -> str:
    """Markdown inline text as a terminal shows it: no links' targets, no code marks."""
    return LINK.sub(r"\1", markdown).replace("**", "").replace("`", "")


def _block(title: str, text: str) -> list[str]:
    wrapped = textwrap.fill(
        plain(text), WIDTH, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False
    )
    return [f"{title[:1].upper()}{title[1:]}:", wrapped]


def explain(typed: str, known: Mapping[str, Entry] | None = None) -> str:
    """The full entry of one check id, as text for a terminal. ``UnknownCheck`` if none."""
    catalogue = entries() if known is None else known
    entry = catalogue[normalise_id(typed, catalogue)]
    runs_on = plain(entry.runs_on)
    runs_on = f"check {runs_on}" if runs_on.startswith("--") else runs_on
    lines = [f"{entry.id} ({entry.level}, runs on {runs_on}): {plain(entry.summary)}"]
    if entry.group:
        lines += ["", f"Group: {plain(entry.group)}"]
    for header, cell in entry.fields:
        lines += ["", *_block(header, cell)]
    if entry.notes:
        lines += ["", "About the group:"]
        lines += "\n\n".join(
            textwrap.fill(plain(note), WIDTH, initial_indent="    ", subsequent_indent="    ")
            for note in entry.notes
        ).splitlines()
    lines.append("")
    if entry.level == "Error":
        lines.append("Never silence an error: the configuration does not work.")
    else:
        lines.append(
            "Silence it only knowingly, with the reason next to it: "
            f'SILENCED_SYSTEM_CHECKS = ["{entry.id}"]'
        )
    return "\n".join(lines)


def index(known: Mapping[str, Entry] | None = None) -> str:
    """Every id with its level and one line, as the page's index gives them."""
    catalogue = entries() if known is None else known
    return "\n".join(
        f"{entry.id}  {entry.level:<7}  {plain(entry.summary)}" for entry in catalogue.values()
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m horizontal.catalogue [PAGE]``: regenerate ``catalogue.json``."""
    arguments = sys.argv[1:] if argv is None else argv
    page = Path(arguments[0]) if arguments else DOCS_PAGE
    if not page.is_file():
        print(f"no {page}: regenerate from a checkout of the repository", file=sys.stderr)
        return 2
    found = parse(page.read_text(encoding="utf-8"))
    CATALOGUE_FILE.write_text(render_json(found), encoding="utf-8")
    print(f"{len(found)} entries written to {CATALOGUE_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
