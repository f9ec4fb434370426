from __future__ import annotations

from django.apps import AppConfig


class WorkloadConfig(AppConfig):
    name = "tests.triggers.workload"
    label = "triggers_workload"
    default_auto_field = "django.db.models.BigAutoField"
