"""The Django admin for horizontal's tables (here: the fleet registry, read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse

from horizontal import fleet
from horizontal.models import Instance


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Live and recent processes; the list says which settings live instances disagree on."""

    list_display = (
        "instance_id",
        "kind",
        "host",
        "pid",
        "release",
        "horizontal_version",
        "django_version",
        "fingerprint",
        "started_at",
        "last_seen",
    )
    list_filter = ("kind", "release", "host")
    search_fields = ("instance_id", "host", "release")
    ordering = ("-last_seen",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        for item in fleet.drift(fleet.live_instances()):
            messages.warning(request, item.describe())
        return super().changelist_view(request, extra_context)
