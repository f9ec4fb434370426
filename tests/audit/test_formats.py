"""Output formats: text, TSV, JSON and SARIF 2.1.0."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from horizontal.audit import CATEGORIES, Finding
from horizontal.audit.findings import Location
from horizontal.audit.formats import render

FINDINGS = [
    Finding("shop/state.py", 10, "module-state", "dict _HITS is mutated", "_HITS = {}"),
    Finding("deploy/Dockerfile", 12, "boot-migrate", "migrate at start", "CMD migrate"),
]


def test_text_has_location_category_message_and_fix():
    lines = render(FINDINGS, "text").splitlines()
    assert lines[0] == "shop/state.py:10: module-state: dict _HITS is mutated"
    assert lines[1] == f"    fix: {CATEGORIES['module-state'].fix}"
    assert lines[2].startswith("deploy/Dockerfile:12: boot-migrate:")


def test_tsv_has_a_header_and_one_row_per_finding():
    rows = [row.split("\t") for row in render(FINDINGS, "tsv").splitlines()]
    assert rows[0] == ["category", "path", "line", "message", "fix", "related"]
    assert rows[1][:4] == ["module-state", "shop/state.py", "10", "dict _HITS is mutated"]
    assert len(rows) == 3


def test_tsv_and_sarif_carry_the_related_places():
    """A finding is true where any of its places is: both formats carry them (the TSV's
    last column, SARIF's relatedLocations with a message code-scanning UIs list)."""
    found = Finding(
        "app/settings.py",
        4,
        "settings",
        "CACHES: LocMemCache is per process",
        "CACHES = {}",
        related=(Location("app/views.py", 9, "cache.incr(key)"), Location("app/urls.py", 2)),
    )
    row = render([found], "tsv").splitlines()[1].split("\t")
    assert row[-1] == "app/views.py:9;app/urls.py:2"
    result = json.loads(render([found], "sarif"))["runs"][0]["results"][0]
    messages = [r["message"]["text"] for r in result["relatedLocations"]]
    assert messages == [
        "Another place of this finding: cache.incr(key)",
        "Another place of this finding",
    ]


def test_sarif_names_the_tools_version():
    driver = json.loads(render(FINDINGS, "sarif"))["runs"][0]["tool"]["driver"]
    assert driver["version"] == metadata.version("django-horizontal")


def test_json_round_trips_every_field():
    data = json.loads(render(FINDINGS, "json"))
    assert data[1]["category"] == "boot-migrate"
    assert data[1]["line"] == 12
    assert data[1]["id"] == "horizontal.W108"
    assert data[1]["level"] == "warning"
    assert data[1]["fix"] == CATEGORIES["boot-migrate"].fix
    assert len(data[1]["fingerprint"]) == 16


def test_sarif_is_2_1_0_with_rules_and_located_results():
    sarif = json.loads(render(FINDINGS, "sarif"))
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [c.check_id for c in CATEGORIES.values()]
    first = run["results"][0]
    assert first["ruleId"] == "horizontal.W101"
    assert rules[first["ruleIndex"]]["name"] == "module-state"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "shop/state.py"
    assert location["region"]["startLine"] == 10
    assert first["level"] == "warning"


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown format"):
        render(FINDINGS, "xml")
