"""``manage.py audit [PATH…]``: single-instance assumptions in code, settings and images.

The same options and run as the ``horizontal-audit`` console script
(``horizontal.audit.cli``), which needs no Django project.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal.audit.cli import DESCRIPTION, Failed, add_arguments, run


class Command(BaseCommand):
    help = DESCRIPTION
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            run(options, self.stdout, self.stderr)
        except Failed as failed:
            raise CommandError(str(failed), returncode=failed.status) from failed
