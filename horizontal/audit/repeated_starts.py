"""One cause said more than once by the start files: one finding, the others related.

- A start file's several purging workers (``celery worker -Q default --purge``, then
  ``-Q scan --purge``): one choice, made once per file.
- Variants of one start file in one folder (``supervisord-celery.conf`` and
  ``supervisord-celery-pro.conf``, ``Dockerfile`` and ``Dockerfile.prod``) that say the
  same line: a deployment runs one of them, and the fix is the same.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from horizontal.audit.deploy import PURGE_AT_START
from horizontal.audit.findings import Finding, Location

__all__ = ["one_per_start_line"]


def one_per_start_line(findings: list[Finding]) -> list[Finding]:
    return _same_line_in_variants(_one_purge_per_file(findings))


def _one_purge_per_file(findings: list[Finding]) -> list[Finding]:
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.message == PURGE_AT_START:
            groups.setdefault(finding.path, []).append(finding)
    return _merged(findings, groups.values())


def _same_line_in_variants(findings: list[Finding]) -> list[Finding]:
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in findings:
        text = " ".join(finding.source.split())
        if text and not finding.path.endswith(".py"):
            key = (finding.category, posixpath.dirname(finding.path), text)
            groups.setdefault(key, []).append(finding)
    # The plainest name first: ``supervisord.conf`` before ``supervisord-pro.conf``.
    ordered = (sorted(g, key=lambda f: (len(f.path), f.path, f.line)) for g in groups.values())
    return _merged(findings, (g for g in ordered if len({f.path for f in g}) == len(g)))


def _merged(findings: list[Finding], groups: Iterable[list[Finding]]) -> list[Finding]:
    replaced: dict[int, Finding | None] = {}
    for group in groups:
        if len(group) < 2:
            continue
        first, *rest = group
        related = tuple(
            place for f in rest for place in (Location(f.path, f.line, f.source), *f.related)
        )
        replaced[id(first)] = first._replace(related=(*first.related, *related))
        replaced.update((id(f), None) for f in rest)
    if not replaced:
        return findings
    kept = (replaced.get(id(f), f) for f in findings)
    return [f for f in kept if f is not None]
