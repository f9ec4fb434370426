"""``manage.py trigger_url NAME --base URL``: a signed ``curl`` call of a job's HTTP trigger."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import NoReverseMatch

from horizontal.conf import conf
from horizontal.jobs.registry import registry
from horizontal.triggers.http import curl_command


class Command(BaseCommand):
    help = (
        "Print a curl command that calls NAME's HTTP trigger, signed with "
        "HORIZONTAL_TRIGGER_SECRET and good for HORIZONTAL_TRIGGER_MAX_SKEW seconds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="A scheduled job.")
        parser.add_argument("--base", required=True, help="The site, e.g. https://app.example.com")
        parser.add_argument("--body", default="", help="Request body to sign (a request id).")

    def handle(self, *args: Any, **options: Any) -> None:
        secret = conf.TRIGGER_SECRET
        if secret is None:
            raise CommandError("HORIZONTAL_TRIGGER_SECRET is not set: the trigger is off")
        job = registry.get(options["name"])
        if job is None or job.schedule is None:
            raise CommandError(f"no scheduled job {options['name']!r}", returncode=2)
        try:
            line = curl_command(secret, options["base"], job.name, options["body"].encode())
        except NoReverseMatch:
            raise CommandError("the trigger is not routed: include('horizontal.urls')") from None
        self.stdout.write(line)
