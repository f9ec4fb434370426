"""One cause said more than once by the start files: one finding, the others related.

- A start file's several purging workers (``celery worker -Q default --purge``, then
  ``-Q scan --purge``): one choice, made once per file.
- Variants of one start file in one folder (``supervisord-celery.conf`` and
  ``supervisord-celery-pro.conf``, ``Dockerfile`` and ``Dockerfile.prod``) that say the
  same migrate, scheduler or reset: a deployment runs one of them, and the fix is the
  same. Two programs of one folder (``web.sh`` and ``worker.sh``) are not variants.
"""

from __future__ import annotations

import posixpath
import re

from horizontal.audit.findings import Finding, fold_into_first
from horizontal.audit.start_messages import PURGE_AT_START

__all__ = ["one_per_start_line"]


def one_per_start_line(findings: list[Finding]) -> list[Finding]:
    return _same_line_in_variants(_one_purge_per_file(findings))


def _one_purge_per_file(findings: list[Finding]) -> list[Finding]:
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.message == PURGE_AT_START:
            groups.setdefault(finding.path, []).append(finding)
    return fold_into_first(findings, groups.values())


# What a variant of a start file says again: the same migrate, scheduler or reset.
FOLDED_CATEGORIES = frozenset({"boot-migrate", "boot-reset", "scheduler"})


def _same_line_in_variants(findings: list[Finding]) -> list[Finding]:
    lines: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in findings:
        text = " ".join(finding.source.split())
        if text and finding.category in FOLDED_CATEGORIES and not finding.path.endswith(".py"):
            key = (finding.category, posixpath.dirname(finding.path), text)
            lines.setdefault(key, []).append(finding)
    groups: list[list[Finding]] = []
    for same in lines.values():
        # The plainest name first (``supervisord.conf`` before ``supervisord-pro.conf``),
        # each file once; a file that says the line twice keeps its second finding.
        heads: list[list[Finding]] = []
        for finding in sorted(same, key=lambda f: (len(f.path), f.path, f.line)):
            head = next((h for h in heads if _variants(h[0].path, finding.path)), None)
            if head is None:
                heads.append([finding])
            elif all(f.path != finding.path for f in head):
                head.append(finding)
        groups.extend(heads)
    return fold_into_first(findings, groups)


def _variants(one: str, other: str) -> bool:
    """``supervisord-celery`` and ``supervisord-celery-pro``, ``Dockerfile`` and
    ``Dockerfile.prod``, ``exec_gunicorn.sh`` and ``exec_uwsgi.sh``: one name extends the
    other, or the two differ only in their last word; ``web.sh`` and ``worker.sh`` are
    two programs, not variants of one."""
    first, second = (_words(path) for path in (one, other))
    shorter, longer = sorted((first, second), key=len)
    if longer[: len(shorter)] == shorter:
        return True
    return len(first) == len(second) >= 2 and first[:-1] == second[:-1]


def _words(path: str) -> list[str]:
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return [word for word in re.split(r"[._-]", stem.lower()) if word]
