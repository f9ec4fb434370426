"""``manage.py drain [--undo] [--status] [--wait SECONDS]``: take this instance out of rotation.

Creates ``HORIZONTAL_DRAIN_FILE``; every process of the instance that reads that path
answers readiness 503 while it still serves. For platforms whose stop sequence runs a
command (a Kubernetes ``preStop`` hook, a deploy script) rather than only a signal.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal.conf import conf
from horizontal.health.drain import drain_file_since, remove_drain_file, write_drain_file


class Command(BaseCommand):
    help = (
        "Put this instance in drain (readiness answers 503 while it still serves) by "
        "creating HORIZONTAL_DRAIN_FILE; --undo removes it."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--undo", action="store_true", help="Remove the drain file.")
        parser.add_argument(
            "--status", action="store_true", help="Say whether the drain file exists."
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=0.0,
            help="After creating the file, wait this many seconds (e.g. your balancer's "
            "check interval × fall count) before exiting.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = conf.DRAIN_FILE
        if not path:
            raise CommandError("HORIZONTAL_DRAIN_FILE is not set: there is no drain file.")
        if options["status"]:
            since = drain_file_since(path)
            self.stdout.write(
                f"draining since {time.ctime(since)} ({path})" if since else f"serving ({path})"
            )
            return
        if options["undo"]:
            removed = remove_drain_file(path)
            self.stdout.write(f"drain file {'removed' if removed else 'was absent'}: {path}")
            return
        write_drain_file(path)
        self.stdout.write(f"draining: {path}")
        if options["wait"] > 0:
            time.sleep(options["wait"])
