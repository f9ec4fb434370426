"""django-apscheduler's documented shape: one dedicated process runs the scheduler."""

from apscheduler.schedulers.blocking import BlockingScheduler
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    def handle(self, *args, **options):
        call_command("migrate")  # ok: an explicit command, run on purpose
        scheduler = BlockingScheduler()  # ok: a dedicated scheduler process
        scheduler.start()
