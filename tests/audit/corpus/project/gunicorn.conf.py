"""gunicorn configuration: hooks run in every replica."""

from django.core.management import call_command

workers = 4


def on_starting(server):
    call_command("migrate", interactive=False)  # expect: boot-migrate
