from __future__ import annotations

from django.apps import AppConfig


class MigrationAppConfig(AppConfig):
    name = "tests.deploy.migrationapp"
    label = "migrationapp"
    default_auto_field = "django.db.models.BigAutoField"
