"""``path("horizontal/", include("horizontal.urls"))``: ``live/``, ``ready/`` and the HTTP
trigger (``horizontal.triggers.http``). Without the trigger: ``horizontal.health.urls``.

See docs/operations.md for what the health views answer and how balancers should use
them, docs/triggers.md for the trigger.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

from horizontal.health import urls as health_urls
from horizontal.triggers import http

__all__ = ["urlpatterns"]

app_name = http.APP_NAME

urlpatterns: list[URLPattern | URLResolver] = [
    *health_urls.urlpatterns,
    *http.urlpatterns,
]
