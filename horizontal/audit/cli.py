"""``horizontal-audit PATH…`` and ``manage.py audit PATH…``: one set of options, one run.

The console script needs no Django project (the audit reads source, it imports nothing of
the project), so a team can add it to pre-commit or any CI in one line; the management
command adds its arguments and calls ``run`` the same way. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from horizontal.audit.findings import (
    CATEGORIES,
    DEFAULT_CATEGORIES,
    LEVELS,
    OPT_IN_CATEGORIES,
    level_rank,
)
from horizontal.audit.formats import FORMATS, render
from horizontal.audit.runner import scan_paths
from horizontal.audit.suppress import new_findings, read_baseline, write_baseline
from horizontal.audit.tree import EXAMPLES_NAMED, examples_skipped, repository_paths

__all__ = ["DESCRIPTION", "Failed", "Stream", "add_arguments", "main", "plural", "run"]

DESCRIPTION = (
    "Find code, settings, Dockerfiles, entrypoints and crontabs that assume a single "
    "instance. Exit status 1 when a finding at or above --fail-on is not baselined."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], help="Files or trees (default .).")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--baseline", help="Report only findings not in this baseline.")
    parser.add_argument(
        "--write-baseline", metavar="FILE", help="Record every finding in FILE and exit 0."
    )
    parser.add_argument(
        "--fail-on",
        choices=[*LEVELS, "never"],
        default="warning",
        help="Lowest level that fails the run (default warning: every finding).",
    )
    parser.add_argument(
        "--category",
        action="append",
        choices=sorted(CATEGORIES),
        help="Only these categories (repeatable; default: all but the opt-in ones).",
    )
    parser.add_argument(
        "--extend-category",
        action="append",
        default=[],
        choices=sorted(OPT_IN_CATEGORIES),
        help="Add an opt-in category to the default ones (repeatable).",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        help="Directory to skip: a name skips every folder so named, a path that one folder "
        "(repeatable).",
    )


def chosen_categories(options: dict[str, Any]) -> list[str]:
    """``--category`` as given, else the default ones, plus any ``--extend-category``."""
    chosen = list(options.get("category") or DEFAULT_CATEGORIES)
    return chosen + [c for c in options.get("extend_category") or () if c not in chosen]


def plural(count: int, noun: str) -> str:
    """``1 finding``, ``2 findings``, ``0 files``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def first_few(names: Sequence[str], limit: int) -> str:
    """``a, b, c, …``: the first ``limit`` names, and an ellipsis when there are more."""
    return ", ".join(names[:limit]) + (", …" if len(names) > limit else "")


class Stream(Protocol):
    """Where output goes: a text file, or a management command's ``OutputWrapper``."""

    def write(self, text: str, /) -> object: ...


class Failed(Exception):
    """The run failed: ``status`` is the exit status (1 findings, 2 bad input: a path
    that does not exist, a folder with nothing to audit, a baseline that cannot be read
    or written)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def run(options: dict[str, Any], stdout: Stream, stderr: Stream) -> None:
    """One audit run with parsed ``options``; raises ``Failed`` for a non-zero status."""
    # A mistyped path would otherwise audit nothing and pass: "0 findings in 0 files".
    missing = [path for path in options["paths"] if not os.path.exists(path)]
    if missing:
        raise Failed(f"No such file or directory: {', '.join(missing)}", 2)
    result = scan_paths(
        options["paths"], categories=chosen_categories(options), exclude=options["exclude"]
    )
    folders = [path for path in options["paths"] if os.path.isdir(path)]
    if folders and not result.files:
        # A folder of links, or of tests and vendored code only: nothing read is no pass.
        raise Failed(
            f"Nothing to audit in {', '.join(folders)}: no file there is the project's own "
            "(tests, dependencies and vendored releases are skipped; links to folders are "
            "not followed).",
            2,
        )
    # Fingerprints and SARIF name files from the repository's root, wherever this runs.
    rebase = repository_paths(options["paths"])
    if options["write_baseline"]:
        try:
            count = write_baseline(options["write_baseline"], result.findings, rebase)
        except OSError as exc:
            raise Failed(f"Cannot write baseline: {exc}", 2) from exc
        stderr.write(
            f"Baseline of {plural(count, 'finding')} written to {options['write_baseline']}.\n"
        )
        return
    findings = result.findings
    if options["baseline"]:
        try:
            findings = new_findings(findings, read_baseline(options["baseline"]), rebase)
        except (OSError, ValueError) as exc:
            raise Failed(f"Cannot read baseline: {exc}", 2) from exc
    rendered = render(findings, options["format"], rebase)
    if rendered:
        stdout.write(rendered)
    known = len(result.findings) - len(findings)
    stderr.write(
        f"{plural(len(findings), 'finding')} in {plural(result.files, 'file')} "
        f"({result.suppressed} suppressed inline, {known} in the baseline).\n"
    )
    skipped = examples_skipped(folders)
    if skipped:
        stderr.write(
            "Not audited, as examples, demos or a developer's project: "
            f"{first_few(skipped, EXAMPLES_NAMED)}; to read "
            "one, give its folder as a PATH.\n"
        )
    if result.settings_left_out:
        shown = first_few(result.settings_left_out, EXAMPLES_NAMED)
        stderr.write(
            f"Settings not judged: {shown} read as development or test settings (named so, "
            "or DEBUG = True that no production module overrides), and no settings module "
            "beside them as production's; settings kept outside this tree are not audited.\n"
        )
    for path, line, names in result.unknown_ignores:
        stderr.write(
            f"{path}:{line}: the ignore comment names no category of the audit "
            f"({', '.join(names)}), so it silences nothing; the categories are "
            f"{', '.join(CATEGORIES)}.\n"
        )
    if result.unparsed:
        shown = first_few(result.unparsed, 3)
        version = ".".join(map(str, sys.version_info[:2]))
        them = "them" if len(result.unparsed) > 1 else "it"
        stderr.write(
            f"{plural(len(result.unparsed), 'file')} not audited: Python {version} cannot "
            f"parse {them} ({shown}); run the audit on the Python the project uses.\n"
        )
    if options["fail_on"] != "never":
        floor = level_rank(options["fail_on"])
        failing = [f for f in findings if level_rank(f.level) >= floor]
        if failing:
            raise Failed(
                f"{plural(len(failing), 'finding')} at or above {options['fail_on']!r}.", 1
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="horizontal-audit", description=DESCRIPTION)
    add_arguments(parser)
    options = vars(parser.parse_args(argv))
    try:
        run(options, sys.stdout, sys.stderr)
    except Failed as failed:
        sys.stderr.write(f"{failed}\n")
        return failed.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
