"""``path("horizontal/", include("horizontal.health.urls"))``: ``live/`` and ``ready/`` only.

For a project that does not use the HTTP trigger: ``horizontal.urls`` routes these and the
trigger (``horizontal.W080`` asks for a secret wherever the trigger is routed). The same
namespace, so ``reverse("horizontal:ready")`` works with either.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from horizontal.health import views
from horizontal.triggers.http import APP_NAME

__all__ = ["urlpatterns"]

app_name = APP_NAME

urlpatterns: list[URLPattern | URLResolver] = [
    path("live/", views.live, name="live"),
    path("ready/", views.ready, name="ready"),
]
