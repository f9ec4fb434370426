"""``manage.py runscheduler``: run on every node; the elected leader runs due slots."""

from __future__ import annotations

import signal
from contextlib import suppress
from importlib import import_module
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from horizontal import fleet
from horizontal.conf import conf
from horizontal.jobs.registry import registry
from horizontal.jobs.runner import Interrupted
from horizontal.jobs.scheduler import Scheduler


class Command(BaseCommand):
    help = (
        "Run on every node: one elected leader runs each scheduled job's due slots through "
        "the job gate. SIGTERM hands leadership (and any running slot) back at once."
    )
    requires_system_checks = ["horizontal"]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--jobs", help="Comma-separated job names (default: all scheduled).")
        parser.add_argument("--poll", type=float, default=1.0, help="Seconds between polls (1).")

    def handle(self, *args: Any, **options: Any) -> None:
        jobs = None
        fleet.start("runscheduler")
        if conf.METRICS and conf.METRICS_PORT:  # no web view here: serve /metrics itself
            import_module("horizontal.metrics").serve(conf.METRICS_PORT)
        if options["jobs"]:
            names = [n.strip() for n in options["jobs"].split(",") if n.strip()]
            unknown = [n for n in names if registry.get(n) is None]
            if unknown:
                raise CommandError(
                    f"unknown job(s) {', '.join(unknown)}; known jobs: "
                    f"{', '.join(registry.names())}",
                    returncode=2,
                )
            jobs = [registry.jobs[n] for n in names]
        scheduler = Scheduler(jobs, poll=options["poll"], report=self.stdout.write)

        def interrupt(signum: int, frame: object) -> None:
            scheduler.stop()
            if scheduler.running_jobs:  # hand the running slot back, not just leadership
                raise Interrupted(signal.Signals(signum).name)

        signal.signal(signal.SIGTERM, interrupt)
        signal.signal(signal.SIGINT, interrupt)
        with suppress(Interrupted):  # run() hands leadership back in its finally
            scheduler.run()
