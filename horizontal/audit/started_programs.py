"""The project's own programs that start lines run, found once every file is read.

``python jms start`` runs a Python program of the tree that may migrate with no lock;
``mrs migrate`` runs the project's manage.py installed as a console script; ``make
server-migrate`` a Makefile target whose recipe migrates. What such a
line runs is judged as the start line's (``starts.migrations_through_commands``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from horizontal.audit import migrate_commands
from horizontal.audit.findings import Finding, Location
from horizontal.audit.tree import read_text

if TYPE_CHECKING:
    from horizontal.audit.runner import Scan

__all__ = [
    "make_targets",
    "manage_aliases",
    "migrating_programs",
    "migrations_through_commands",
    "runs_that_migrate",
    "with_command_run",
]


def migrations_through_commands(scan: Scan) -> dict[Location, tuple[str, Location]]:
    """Start lines that run a project command that migrates, judged as ``migrate``:
    each such line with its original text and the command's line that migrates. The
    scripts start scripts run are judged too (their findings kept in ``scan``)."""
    from horizontal.audit import starts
    from horizontal.audit.file_kinds import text_detector

    if "boot-migrate" not in scan.wanted:
        return {}
    rewritten, runs = starts.migrations_through_commands(
        scan.texts,
        scan.migrate_commands,
        *runs_that_migrate(scan.texts, scan.python_texts, scan.paths, scan.base),
    )
    lines = {place: (scan.texts[place.path][place.line - 1], run) for place, run in runs.items()}
    known = {Location(f.path, f.line) for f in scan.result.findings if f.category == "boot-migrate"}
    scan.texts.update(rewritten)
    for path, text in rewritten.items():
        detector = text_detector(path)
        if detector is None:
            continue
        for finding in detector(path, "\n".join(text)):
            place = Location(path, finding.line)
            if finding.category == "boot-migrate" and place in lines and place not in known:
                scan.keep(finding)
    return lines


def runs_that_migrate(
    texts: Mapping[str, list[str]],
    python_texts: Iterable[tuple[str, str]],
    paths: Collection[str],
    base: str,
) -> tuple[dict[str, Location], dict[str, Location], dict[str, Location]]:
    """What a start line may run that migrates, each name to the line that does: the
    tree's Python programs, manage.py's console-script names, Makefile targets."""
    return (
        migrating_programs(texts, paths, base),
        manage_aliases(python_texts, paths, base),
        make_targets(texts, paths, base),
    )


def migrating_programs(
    texts: Mapping[str, list[str]], paths: Collection[str], base: str
) -> dict[str, Location]:
    """Python programs start files run that migrate with no lock: the program as the
    start line names it, to its line that migrates."""
    found: dict[str, Location] = {}
    for path, lines in texts.items():
        if path.endswith(".py"):
            continue
        for program, is_module in migrate_commands.python_programs(lines):
            name = _program_file(paths, program, is_module)
            text = read_text(Path(base, name)) if name else None
            line = migrate_commands.program_migrates(text) if text else None
            if name and line:
                found[program] = Location(name, line)
    return found


def manage_aliases(
    python_texts: Iterable[tuple[str, str]], paths: Collection[str], base: str
) -> dict[str, Location]:
    """The project's manage.py installed as a console script (``mrs``), by name, to the
    packaging line that declares it."""
    packaging = [(name, text) for name, text in python_texts if name.endswith("setup.py")]
    for name in paths:
        if name.endswith(("pyproject.toml", "setup.cfg")):
            text = read_text(Path(base, name))
            if text is not None:
                packaging.append((name, text))
    found = migrate_commands.manage_aliases(packaging)
    return {alias: Location(path, line) for alias, (path, line) in found.items()}


def make_targets(
    texts: Mapping[str, list[str]], paths: Collection[str], base: str
) -> dict[str, Location]:
    """Targets of the project's Makefiles that migrate with no lock, to the line that
    does; the shallowest Makefile's wins where two define one target. Read only where a
    start file runs ``make`` at all."""
    found: dict[str, Location] = {}
    if not any(
        "make " in line
        for path, lines in texts.items()
        if not path.endswith(".py")
        for line in lines
    ):
        return found
    makefiles = [
        p
        for p in paths
        if p.rpartition("/")[2] in migrate_commands.MAKEFILE_NAMES or p.endswith(".mk")
    ]
    for name in sorted(makefiles, key=lambda p: (p.count("/"), p)):
        text = read_text(Path(base, name))
        if text is None or "migrate" not in text:
            continue
        for target, line in migrate_commands.make_targets_that_migrate(text).items():
            found.setdefault(target, Location(name, line))
    return found


def _program_file(paths: Collection[str], program: str, is_module: bool) -> str | None:
    """The scanned file a ``python`` start line runs, when exactly one matches."""
    stem = program.replace(".", "/")
    wanted: tuple[str, ...] = (
        (f"{stem}.py", f"{stem}/__main__.py") if is_module else (program.lstrip("./"),)
    )
    matches = {
        path
        for path in paths
        for tail in wanted
        if path == tail or path.endswith(f"/{tail}") or tail.endswith(f"/{path}")
    }
    return matches.pop() if len(matches) == 1 else None


def with_command_run(
    finding: Finding, through_commands: Mapping[Location, tuple[str, Location]]
) -> Finding:
    """A migrate found on a rewritten start line: its own text, the command related."""
    run = through_commands.get(Location(finding.path, finding.line))
    if run is None or finding.category != "boot-migrate":
        return finding
    source, command = run
    return finding._replace(source=source.strip(), related=(*finding.related, command))
