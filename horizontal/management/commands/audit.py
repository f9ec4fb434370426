"""``manage.py audit [PATH…]``: single-instance assumptions in code, settings and images."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal.audit import CATEGORIES, scan_paths
from horizontal.audit.findings import LEVELS, level_rank
from horizontal.audit.formats import FORMATS, render
from horizontal.audit.suppress import new_findings, read_baseline, write_baseline


class Command(BaseCommand):
    help = (
        "Find code, settings, Dockerfiles, entrypoints and crontabs that assume a single "
        "instance. Exit status 1 when a finding at or above --fail-on is not baselined."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
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
            help="Only these categories (repeatable).",
        )
        parser.add_argument(
            "--exclude", action="append", default=[], help="Directory name to skip (repeatable)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        result = scan_paths(
            options["paths"], categories=options["category"], exclude=options["exclude"]
        )
        if options["write_baseline"]:
            count = write_baseline(options["write_baseline"], result.findings)
            self.stderr.write(
                f"Baseline of {count} findings written to {options['write_baseline']}."
            )
            return
        findings = result.findings
        if options["baseline"]:
            try:
                findings = new_findings(findings, read_baseline(options["baseline"]))
            except (OSError, ValueError, KeyError) as exc:
                raise CommandError(f"Cannot read baseline: {exc}", returncode=2) from exc
        self.stdout.write(render(findings, options["format"]), ending="")
        known = len(result.findings) - len(findings)
        self.stderr.write(
            f"{len(findings)} findings in {result.files} files "
            f"({result.suppressed} suppressed inline, {known} in the baseline)."
        )
        if options["fail_on"] != "never":
            floor = level_rank(options["fail_on"])
            failing = [f for f in findings if level_rank(f.level) >= floor]
            if failing:
                raise CommandError(
                    f"{len(failing)} findings at or above {options['fail_on']!r}.", returncode=1
                )
