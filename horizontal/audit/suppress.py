"""Inline ``# horizontal: ignore[category]`` comments and the baseline file.

A team adopting the audit on an old codebase records today's findings in a baseline and
fails CI only on new ones. The baseline keys a finding by category, file and the text of
its line (not the line number), so unrelated edits above it do not resurrect it.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from horizontal.audit.findings import CATEGORIES, Finding, Rebase
from horizontal.audit.patterns import lazy_compile

IGNORE = lazy_compile(r"#\s*horizontal:\s*ignore(?:\[(?P<categories>[^\]]*)\])?")
BASELINE_VERSION = 1
# How a baseline names files: from the repository's root (``repository_paths``). One
# without it was written from the folder the audit ran in.
PATHS_FROM_ROOT = "repository"


class Baseline(Counter[str]):
    """The fingerprints of a baseline, with how many findings share each one, and
    whether it names files from the repository's root (``from_root``)."""

    from_root = True


def ignored_categories(line: str) -> set[str] | None:
    """Categories an inline comment ignores; ``{"*"}`` for a bare ignore; None if none.
    A name may be spelled with underscores (``file_write``) or be the category's check id
    (``W104``, ``horizontal.W104``), as the deploy check reports it."""
    names = _written_names(line)
    if names is None:
        return None
    return {_category_of(name) for name in names} if names else {"*"}


def _written_names(line: str) -> list[str] | None:
    """The names an ignore comment lists as written; ``[]`` for a bare ignore; None if the
    line has no ignore comment."""
    match = IGNORE.search(line)
    if match is None:
        return None
    listed = match.group("categories")
    if listed is None:
        return []
    return [part.strip() for part in listed.split(",") if part.strip()] or [listed]


def _category_of(name: str) -> str:
    bare = name.removeprefix("horizontal.")
    return _categories_by_check_id().get(bare.upper(), bare.replace("_", "-"))


@functools.cache
def _categories_by_check_id() -> dict[str, str]:
    """``W104`` -> ``in-process-lock``: the names a deploy check's user writes."""
    return {c.check_id.removeprefix("horizontal."): key for key, c in CATEGORIES.items()}


def _comment_lines(finding: Finding, lines: list[str]) -> list[str]:
    """The finding's line, and the line above it when that is a comment alone."""
    candidates = []
    if 0 < finding.line <= len(lines):
        candidates.append(lines[finding.line - 1])
    if 1 < finding.line <= len(lines) + 1:
        above = lines[finding.line - 2]
        if above.lstrip().startswith("#"):
            candidates.append(above)
    return candidates


def is_suppressed(finding: Finding, lines: list[str]) -> bool:
    """An ignore comment on the finding's line, or alone on the line just above it."""
    for line in _comment_lines(finding, lines):
        categories = ignored_categories(line)
        if categories and ("*" in categories or finding.category in categories):
            return True
    return False


def unknown_ignored(finding: Finding, lines: list[str], known: Iterable[str]) -> list[str]:
    """Names in the ignore comments at ``finding`` that are no category (``files``,
    ``filewrite``): a comment meant to silence it that silences nothing."""
    names = set(known)
    return sorted(
        {
            written
            for line in _comment_lines(finding, lines)
            for written in _written_names(line) or ()
            if _category_of(written) not in names
        }
    )


def write_baseline(
    path: str | Path, findings: Iterable[Finding], rebase: Rebase | None = None
) -> int:
    """Record ``findings``; ``rebase`` names their files from the repository's root, so
    that the baseline matches from any folder (``Finding.fingerprint``)."""
    entries = sorted(
        (
            {
                "category": f.category,
                "path": rebase(f.path) if rebase else f.path,
                "fingerprint": f.fingerprint(rebase),
                **(
                    {"related": f.related_fingerprints(rebase)}
                    if f.related_fingerprints(rebase)
                    else {}
                ),
            }
            for f in findings
        ),
        key=lambda e: (e["path"], e["category"], e["fingerprint"]),
    )
    document = {
        "version": BASELINE_VERSION,
        "tool": "horizontal-audit",
        **({"paths": PATHS_FROM_ROOT} if rebase else {}),
        "findings": entries,
    }
    # The operator names the file on the command line, in the checkout CI runs in.
    text = json.dumps(document, indent=2) + "\n"
    Path(path).write_text(text, encoding="utf-8")  # horizontal: ignore[file-write]
    return len(entries)


def read_baseline(path: str | Path) -> Baseline:
    """Fingerprints in the baseline, with how many findings share each one."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(document, dict) or document.get("version") != BASELINE_VERSION:
        raise ValueError(f"{path}: not a horizontal audit baseline (version 1)")
    entries = document.get("findings")
    if not isinstance(entries, list) or not all(_is_baseline_entry(e) for e in entries):
        raise ValueError(
            f"{path}: 'findings' must be a list of entries, each with a 'fingerprint' "
            "(--write-baseline writes one)"
        )
    baseline = Baseline(
        key for entry in entries for key in (entry["fingerprint"], *entry.get("related", ()))
    )
    baseline.from_root = document.get("paths") == PATHS_FROM_ROOT
    return baseline


def _is_baseline_entry(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
        return False
    related = entry.get("related", [])
    return isinstance(related, list) and all(isinstance(key, str) for key in related)


def new_findings(
    findings: Iterable[Finding], baseline: Counter[str], rebase: Rebase | None = None
) -> list[Finding]:
    """Findings not in the baseline; N identical lines in the baseline absorb N findings.
    A finding whose related places include one the baseline lacks (a write added to a
    module whose writes are one finding) is new; one whose places shrank is not."""
    remaining = Counter(baseline)
    fresh: list[Finding] = []
    for finding in findings:
        keys = Counter([finding.fingerprint(rebase), *finding.related_fingerprints(rebase)])
        # A baseline written before fingerprints named files from the repository's root
        # keyed them from the folder it was written in: still matched from there.
        legacy = Counter([finding.fingerprint(), *finding.related_fingerprints()])
        old_keys = rebase is not None and not getattr(baseline, "from_root", True)
        for candidate in (keys, legacy) if old_keys else (keys,):
            if all(remaining[key] >= count for key, count in candidate.items()):
                remaining -= candidate
                break
        else:
            fresh.append(finding)
    return fresh
