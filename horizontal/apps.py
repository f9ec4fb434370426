from __future__ import annotations

from importlib import import_module

from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_started
from django.utils.module_loading import autodiscover_modules

from horizontal.conf import conf


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

        # Instance id (and a run's job, slot, token) on every line horizontal logs.
        from horizontal.instance import tag_horizontal_loggers

        tag_horizontal_loggers()

        # A web worker records itself in the fleet registry on its first request (after
        # gunicorn's fork, so with the worker's own pid); commands call fleet.start().
        from horizontal import fleet

        request_started.connect(fleet.on_first_request, dispatch_uid="horizontal.fleet")

        if conf.METRICS:  # the [prometheus] extra; imported only when asked for
            try:
                import_module("horizontal.metrics")
            except ModuleNotFoundError as exc:
                if exc.name != "prometheus_client":
                    raise
                raise ImproperlyConfigured(
                    "HORIZONTAL_METRICS = True needs prometheus_client: "
                    "pip install 'django-horizontal[prometheus]'"
                ) from exc
