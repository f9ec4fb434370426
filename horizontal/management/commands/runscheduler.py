"""``manage.py runscheduler``: run on every node; every node with a free thread runs due slots."""

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
        "Run on every node: each node runs due slots through the job gate in up to "
        "--concurrency threads; an elected leader re-claims crashed runs and catches up. "
        "SIGTERM hands running slots (at their next checkpoint) and leadership back."
    )
    requires_system_checks = ["horizontal"]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--jobs", help="Comma-separated job names (default: all scheduled).")
        parser.add_argument("--poll", type=float, default=1.0, help="Seconds between polls (1).")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=None,
            help="Slots this process runs at once (HORIZONTAL_SCHEDULER_CONCURRENCY, 4).",
        )

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
        if options["concurrency"] is not None and options["concurrency"] < 1:
            raise CommandError("--concurrency must be at least 1", returncode=2)
        scheduler = Scheduler(
            jobs,
            poll=options["poll"],
            report=self.stdout.write,
            concurrency=options["concurrency"],
        )

        def interrupt(signum: int, frame: object) -> None:
            # Jobs run in worker threads: each is told at its next checkpoint and hands
            # its claim back; run() waits for them, then hands leadership back.
            scheduler.stop()

        signal.signal(signal.SIGTERM, interrupt)
        signal.signal(signal.SIGINT, interrupt)
        with suppress(Interrupted):
            scheduler.run()
