"""Render findings: text for people, TSV for spreadsheets, JSON for tools, SARIF 2.1.0
for code-scanning UIs (GitHub, GitLab, Azure DevOps show the results inline on the diff).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import metadata

from horizontal.audit.findings import CATEGORIES, Finding, Rebase

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FORMATS = ("text", "tsv", "json", "sarif")


def render(findings: Sequence[Finding], fmt: str, rebase: Rebase | None = None) -> str:
    """``rebase`` names a file from the repository's root: for fingerprints, and for
    SARIF's locations, which code-scanning UIs resolve against the checkout's root."""
    if fmt == "text":
        return render_text(findings)
    if fmt == "tsv":
        return render_tsv(findings)
    if fmt == "json":
        return json.dumps([f.as_dict(rebase) for f in findings], indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(render_sarif(findings, rebase), indent=2) + "\n"
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def render_text(findings: Sequence[Finding]) -> str:
    lines = []
    for finding in findings:
        lines.append(f"{finding.path}:{finding.line}: {finding.category}: {finding.message}")
        lines.append(f"    fix: {finding.fix}")
        if finding.related:
            also = ", ".join(f"{r.path}:{r.line}" for r in finding.related)
            lines.append(f"    also: {also}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_tsv(findings: Sequence[Finding]) -> str:
    """One row per finding; ``related`` is its other places, ``path:line`` joined by
    ``;`` (a finding is true where any of its places is)."""
    rows = ["category\tpath\tline\tmessage\tfix\trelated"]
    for f in findings:
        related = ";".join(f"{r.path}:{r.line}" for r in f.related)
        rows.append("\t".join([f.category, f.path, str(f.line), f.message, f.fix, related]))
    return "\n".join(rows) + "\n"


def render_sarif(findings: Sequence[Finding], rebase: Rebase | None = None) -> dict[str, object]:
    rules = [
        {
            "id": category.check_id,
            "name": category.name,
            "shortDescription": {"text": category.title},
            # The fix travels with the rule; docs/audit.md has the long form.
            "help": {"text": category.fix},
            "defaultConfiguration": {"level": category.level},
        }
        for category in CATEGORIES.values()
    ]
    index = {name: i for i, name in enumerate(CATEGORIES)}
    results = [_sarif_result(f, index, rebase or _same) for f in findings]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "horizontal-audit", **_version(), "rules": rules}},
                "results": results,
            }
        ],
    }


def _location(path: str, line: int) -> dict[str, object]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": line},
        }
    }


def _version() -> dict[str, str]:
    """The installed distribution's version (the audit's room imports nothing above it, so
    not ``horizontal.__version__``); none from a bare checkout."""
    try:
        return {"version": metadata.version("django-horizontal")}
    except metadata.PackageNotFoundError:
        return {}


def _related_text(source: str) -> str:
    return f"Another place of this finding: {source}" if source else "Another place of this finding"


def _same(path: str) -> str:
    return path


def _sarif_result(f: Finding, index: dict[str, int], rebase: Rebase) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": f.check_id,
        "ruleIndex": index[f.category],
        "level": f.level,
        "message": {"text": f"{f.message}. Fix: {f.fix}"},
        "locations": [_location(rebase(f.path), f.line)],
        "partialFingerprints": {"horizontalAudit/v1": f.fingerprint(rebase)},
    }
    if f.related:
        # Code-scanning UIs list related places by their message.
        result["relatedLocations"] = [
            {
                "id": number,
                **_location(rebase(r.path), r.line),
                "message": {"text": _related_text(r.source)},
            }
            for number, r in enumerate(f.related)
        ]
    return result
