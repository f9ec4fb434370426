"""``manage.py fleet [--format json]``: the live instances, and the settings they disagree on."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from horizontal.fleet import fleet_report

EXIT_DRIFT = 1


class Command(BaseCommand):
    help = (
        "List the live horizontal processes (fleet registry). Exit 0: they agree; 1: live "
        "instances differ on SECRET_KEY (keyed hash), database or cache targets or release "
        "(each differing field is named)."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args: Any, **options: Any) -> None:
        report = fleet_report()
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
        else:
            self._print(report)
        if report["drift"]:
            raise SystemExit(EXIT_DRIFT)

    def _print(self, report: dict[str, Any]) -> None:
        instances = report["instances"]
        self.stdout.write(f"{len(instances)} live instance(s)")
        for row in instances:
            versions = row["versions"]
            self.stdout.write(
                f"  {row['instance']}  {row['kind']}  host {row['host']} pid {row['pid']}  "
                f"release {row['release'] or '-'}  python {versions['python']} django "
                f"{versions['django']} horizontal {versions['horizontal']}  started "
                f"{row['started']}  last seen {row['last_seen']}  settings {row['fingerprint']}"
            )
        if not report["drift"]:
            self.stdout.write("settings agree across live instances")
            return
        for item in report["drift"]:
            parts = "; ".join(
                f"{value or '(none)'} on {', '.join(ids)}" for value, ids in item["values"].items()
            )
            self.stderr.write(f"drift: {item['field']} differs: {parts}")
