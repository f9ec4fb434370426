from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from testproject.billing.seed import seed


class Command(BaseCommand):
    help = "Create demo accounts (balance 0) and pending refunds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--accounts", type=int, default=10)
        parser.add_argument("--refunds", type=int, default=50)

    def handle(self, *args: Any, **options: Any) -> None:
        accounts, refunds = seed(options["accounts"], options["refunds"])
        self.stdout.write(f"Created {accounts} accounts and {refunds} pending refunds.")
