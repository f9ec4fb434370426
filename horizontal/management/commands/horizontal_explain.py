"""``manage.py horizontal_explain [ID…]``: a check's full catalogue entry, offline.

Named after the app, not ``explain``: Django gives a command name to the first app in
``INSTALLED_APPS`` that has it, so a bare ``explain`` (a common name for SQL ``EXPLAIN``
helpers) could silently shadow this one or be shadowed by it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal.catalogue import UnknownCheck, entries, explain, index


class Command(BaseCommand):
    help = (
        "Print the full entry of horizontal check ids (W060, horizontal.E010, …): what goes "
        "wrong with N instances, the risk and the fix. Without an id, list every id. "
        "Exit 2 for an unknown id."
    )
    # It explains failing checks, so it must run when they fail.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", metavar="ID", help="A check id, e.g. W060.")

    def handle(self, *args: Any, **options: Any) -> None:
        catalogue = entries()
        if not options["ids"]:
            self.stdout.write(index(catalogue))
            return
        try:
            texts = [explain(typed, catalogue) for typed in options["ids"]]
        except UnknownCheck as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write("\n\n".join(texts))
