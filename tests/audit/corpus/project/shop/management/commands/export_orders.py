"""A management command writes where its operator says: not a finding."""

import threading

from django.core.management.base import BaseCommand

COUNTS = {}  # ok: the process ends with the command


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("output")

    def handle(self, *args, **options):
        with open(options["output"], "w") as handle:  # ok: operator's path
            handle.write("orders\n")
        COUNTS["runs"] = COUNTS.get("runs", 0) + 1
        threading.Lock()
