"""The fixture corpus: every true case found at its line, every false case silent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from horizontal.audit import CATEGORIES, scan_paths

CORPUS = Path(__file__).parent / "corpus"
EXPECT = re.compile(r"[#;]\s*expect(?P<next>-next)?:\s*(?P<category>[\w-]+)")
OK = re.compile(r"[#;]\s*ok(-next)?\b")


def expected_findings() -> set[tuple[str, int, str]]:
    """(path, line, category) for every ``# expect:`` marker in the corpus."""
    expected = set()
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.name == "README.md":
            continue
        name = path.relative_to(CORPUS).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for match in EXPECT.finditer(line):
                target = number + 1 if match.group("next") else number
                expected.add((name, target, match.group("category")))
    return expected


@pytest.fixture(scope="module")
def found() -> set[tuple[str, int, str]]:
    """Every place reported: each finding's own, and its related locations (the other
    places one root cause shows, such as the other lines of one crontab)."""
    result = scan_paths([CORPUS], base=CORPUS, categories=list(CATEGORIES))
    places = {(f.path, f.line, f.category) for f in result.findings}
    places |= {(r.path, r.line, f.category) for f in result.findings for r in f.related}
    return places


def test_every_true_case_is_found_at_its_line(found):
    missing = expected_findings() - found
    assert not missing, f"true cases not reported: {sorted(missing)}"


def test_no_finding_outside_the_true_cases(found):
    unexpected = found - expected_findings()
    assert not unexpected, f"false positives: {sorted(unexpected)}"


def test_corpus_has_true_and_false_cases_for_every_category():
    true_categories = {category for _, _, category in expected_findings()}
    assert true_categories == set(CATEGORIES)
    false_cases = sum(len(OK.findall(p.read_text())) for p in CORPUS.rglob("*") if p.is_file())
    assert false_cases >= 35


@pytest.mark.parametrize(
    ("path", "line", "category"),
    [
        ("project/shop/state.py", 10, "module-state"),
        ("project/shop/caches.py", 15, "cache"),
        ("deploy/docker-entrypoint.sh", 8, "boot-migrate"),
    ],
)
def test_markers_are_where_the_corpus_says(path, line, category, found):
    # Guards the marker parser itself: if it drifted, the two tests above would agree
    # with each other and still be wrong.
    assert (path, line, category) in found
    assert "expect" in (CORPUS / path).read_text().splitlines()[line - 1]
