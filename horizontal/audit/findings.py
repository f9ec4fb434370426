"""What the audit reports: categories, their level and fix, and one ``Finding`` per hit."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

LEVELS = ("note", "warning", "error")  # SARIF's result levels, weakest first


class Category(NamedTuple):
    """One kind of single-instance assumption: what breaks, and which feature fixes it."""

    name: str
    check_id: str
    level: str
    title: str
    fix: str


CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category(
            "module-state",
            "horizontal.W101",
            "warning",
            "process-local state mutated at run time",
            "Keep shared state in the database or a shared cache (django-redis); per-user "
            "state belongs in the session (SESSION_ENGINE = 'horizontal.sessions').",
        ),
        Category(
            "cache",
            "horizontal.W102",
            "warning",
            "in-process memo over data that changes",
            "Cache in a shared cache (django.core.cache on Redis) with a TTL, or invalidate "
            "through the database; a per-process memo never hears of changes made elsewhere.",
        ),
        Category(
            "file-write",
            "horizontal.W103",
            "warning",
            "file written to the local disk",
            "Write through default_storage with STORAGES['default'] = "
            "horizontal.storage.S3Storage; keep local files to tempfiles removed in the "
            "same request.",
        ),
        Category(
            "in-process-lock",
            "horizontal.W104",
            "error",
            "lock that serialises one process only",
            "Use horizontal.locks.xact_lock (transaction-scoped) or a lease from "
            "horizontal.leases; for 'create once' rely on a unique constraint.",
        ),
        Category(
            "timer-thread",
            "horizontal.W105",
            "warning",
            "background thread or timer on every instance",
            "Move the periodic work into a @job and run it with 'manage.py runjob NAME' "
            "from cron, a Kubernetes CronJob or runscheduler.",
        ),
        Category(
            "scheduler",
            "horizontal.W106",
            "error",
            "in-process scheduler on every instance",
            "Register the work with @job and trigger 'manage.py runjob NAME' from one "
            "external scheduler (or runscheduler on every node): each slot runs once.",
        ),
        Category(
            "image-cron",
            "horizontal.W107",
            "error",
            "cron baked into the image, one per replica",
            "Remove cron from the image; register the command as a @job and call "
            "'manage.py runjob NAME' from a single scheduler (Kubernetes CronJob, systemd).",
        ),
        Category(
            "boot-migrate",
            "horizontal.W108",
            "warning",
            "migrate run by every replica at start-up",
            "Run migrate once per deploy as a release step / pre-deploy job, or replace it "
            "with 'manage.py migrate_locked' (one replica migrates, the others wait).",
        ),
        Category(
            "boot-reset",
            "horizontal.W111",
            "error",
            "shared state wiped by every replica at start-up",
            "Run it once per deploy as a release step, or not at all: clearing the shared "
            "cache or flushing tables at every start resets them under the replicas that "
            "are serving.",
        ),
        Category(
            "settings",
            "horizontal.W109",
            "warning",
            "setting that only works on one box",
            "See the horizontal.W0xx deploy checks: shared cache, horizontal.sessions, "
            "horizontal.storage.S3Storage, a server database, @job + runjob.",
        ),
        Category(
            "log-file",
            "horizontal.W110",
            "warning",
            "LOGGING handler that writes a file on this host",
            "Log to stdout/stderr (logging.StreamHandler) and let the platform collect the "
            "logs of every instance in one place (horizontal.W051).",
        ),
    )
}


# Reported only when asked for (``--category``/``--extend-category``): on the labelled
# corpus, module state mutated at run time was a registry, a per-process id or a counter
# meant to be per process in every case read, and a log file is split logs, not broken
# behaviour; labellers labelled neither (docs/audit.md, "Opt-in").
OPT_IN_CATEGORIES = frozenset({"module-state", "log-file"})
# Judged by the settings scan (settings modules read as Python runs them).
SETTINGS_CATEGORIES = frozenset({"settings", "log-file"})
DEFAULT_CATEGORIES = tuple(name for name in CATEGORIES if name not in OPT_IN_CATEGORIES)


class Location(NamedTuple):
    """Another place one finding's root cause shows (SARIF ``relatedLocations``)."""

    path: str
    line: int
    # The stripped line, where the location is a place of its own that the baseline must
    # know (one write of a module's several): empty for places that only explain.
    source: str = ""


# A finding's path (relative to the working directory) as the repository names it.
Rebase = Callable[[str], str]


def _fingerprint(category: str, path: str, source: str) -> str:
    text = " ".join(source.split())
    key = f"{category}\0{path}\0{text}".encode()
    return hashlib.sha1(key, usedforsecurity=False).hexdigest()[:16]


class Finding(NamedTuple):
    """One single-instance assumption (one root cause), reported at the place that decides
    it; the other places it shows are ``related``."""

    path: str  # relative to the scanned root, with forward slashes
    line: int
    category: str
    message: str  # one line: what breaks with N instances
    source: str = ""  # the stripped source line, for the baseline fingerprint
    related: tuple[Location, ...] = ()
    fix_text: str = ""  # this finding's own fix; empty: the category's

    @property
    def fix(self) -> str:
        return self.fix_text or CATEGORIES[self.category].fix

    @property
    def level(self) -> str:
        return CATEGORIES[self.category].level

    @property
    def check_id(self) -> str:
        return CATEGORIES[self.category].check_id

    def fingerprint(self, rebase: Rebase | None = None) -> str:
        """Stable across line shifts: the category, the file and the text of the line.
        ``rebase`` names the file from the repository's root (``repository_paths``), so
        that a baseline matches from whatever folder the audit runs in."""
        return _fingerprint(self.category, rebase(self.path) if rebase else self.path, self.source)

    def related_fingerprints(self, rebase: Rebase | None = None) -> list[str]:
        """The fingerprints of the related places that are places of their own (a
        module's other writes): a baseline must hold them too, so that a write added to
        a baselined module is new."""
        return [
            _fingerprint(self.category, rebase(r.path) if rebase else r.path, r.source)
            for r in self.related
            if r.source
        ]

    def as_dict(self, rebase: Rebase | None = None) -> dict[str, object]:
        return {
            "category": self.category,
            "path": self.path,
            "line": self.line,
            "level": self.level,
            "id": self.check_id,
            "message": self.message,
            "fix": self.fix,
            "fingerprint": self.fingerprint(rebase),
            "related": [{"path": r.path, "line": r.line} for r in self.related],
        }


def distinct_places(
    places: Iterable[Location], besides: tuple[str, int] | None = None
) -> list[Location]:
    """``places`` with each file and line once (two uses on one line are one place), in
    their order, without ``besides`` (a finding's own place)."""
    seen = {besides} if besides else set()
    kept = []
    for place in places:
        if (place.path, place.line) not in seen:
            seen.add((place.path, place.line))
            kept.append(place)
    return kept


def with_distinct_related(finding: Finding) -> Finding:
    """Each related place once, never the finding's own: several folds may bring one."""
    related = distinct_places(finding.related, (finding.path, finding.line))
    if len(related) == len(finding.related):
        return finding
    return finding._replace(related=tuple(related))


def level_rank(level: str) -> int:
    return LEVELS.index(level)


def line_of(texts: Mapping[str, list[str]], path: str, line: int) -> str:
    """Line ``line`` of a file the scan read (``texts``: its lines by path), or ""."""
    lines = texts.get(path)
    return lines[line - 1] if lines and 0 < line <= len(lines) else ""


class AuditResult:
    """What one audit found, and what it read. (Plain classes here, not dataclasses:
    ``check --deploy`` imports the scanner, and generating a dataclass's methods at import
    costs about what importing a small module does.)"""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.suppressed = 0
        self.files = 0
        self.uses_cache = False  # shared state kept in the cache (feature_use)
        self.gates_in_cache = False  # gates and counters, which a DummyCache breaks
        self.uses_channel_layer = False
        self.uses_private_media = False  # django-privates' fields or storage (private_media)
        self.stores_files = False
        self.read_models = False  # whether the facts above describe a project's code
        # Python files that needed a parse and that this interpreter cannot parse (newer
        # syntax, or broken): nothing in them was audited, and the summary says so.
        self.unparsed: list[str] = []
        # Ignore comments at a finding that name no category (``ignore[files]``): where,
        # and the names, so the summary can say why the finding was not silenced.
        self.unknown_ignores: list[tuple[str, int, list[str]]] = []
        # Settings modules, when every one was read as development or test settings (so
        # none was judged): the summary names them.
        self.settings_left_out: list[str] = []


def merged_results(results: list[AuditResult]) -> AuditResult:
    """Audits of separate projects (releases unpacked side by side) as one report."""
    if len(results) == 1:
        return results[0]
    total = AuditResult()
    for result in results:
        total.findings += result.findings
        total.suppressed += result.suppressed
        total.files += result.files
        total.unparsed += result.unparsed
        total.unknown_ignores += result.unknown_ignores
        total.settings_left_out += result.settings_left_out
    return total


def fold_into_first(findings: list[Finding], groups: Iterable[list[Finding]]) -> list[Finding]:
    """Each group of two or more findings of one cause as one: its first, with the others
    (and their related places) as related locations; the rest of ``findings`` as is."""
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
