"""Creates the group ``editors`` after every migrate."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def create_default_groups(sender: AppConfig, using: str = "default", **kwargs: Any) -> None:
    from django.contrib.auth.models import Group

    Group.objects.using(using).get_or_create(name="editors")


class DefaultGroupsConfig(AppConfig):
    name = "tests.leases.default_groups"
    label = "default_groups"

    def ready(self) -> None:
        post_migrate.connect(create_default_groups, dispatch_uid="default_groups")
