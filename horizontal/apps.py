from __future__ import annotations

from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class HorizontalConfig(AppConfig):
    name = "horizontal"
    verbose_name = "Horizontal"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing the check modules registers them with Django's check framework.
        from horizontal import checks  # noqa: F401

        # Ending a user's sessions on password change (HORIZONTAL_SESSION_END_ON_PASSWORD_
        # CHANGE) must work in every process that saves users, commands included.
        from horizontal.sessions import connect_signals

        connect_signals()

        # Every installed app's ``jobs.py`` registers its @job functions.
        autodiscover_modules("jobs")
