"""``path("horizontal/", include("horizontal.urls"))``: ``live/``, ``ready/`` and the HTTP
trigger (``horizontal.triggers.http``).

See docs/operations.md for what the health views answer and how balancers should use
them, docs/triggers.md for the trigger.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from horizontal.health import views
from horizontal.triggers import http

__all__ = ["urlpatterns"]

app_name = "horizontal"

urlpatterns: list[URLPattern | URLResolver] = [
    path("live/", views.live, name="live"),
    path("ready/", views.ready, name="ready"),
    *http.urlpatterns,
]
