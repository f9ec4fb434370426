from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("testproject.accounts.urls")),
    path("files/", include("testproject.files.urls")),
]
# The HTTP trigger only with its secret (routed without one: horizontal.W080); the health
# views always.
if getattr(settings, "HORIZONTAL_TRIGGER_SECRET", None):
    urlpatterns.append(path("horizontal/", include("horizontal.urls")))
else:
    urlpatterns.append(path("horizontal/", include("horizontal.health.urls")))

if settings.HORIZONTAL_METRICS:
    from horizontal.metrics import metrics_view

    urlpatterns.append(path("metrics", metrics_view))
if apps.is_installed("testproject.monitoring"):
    urlpatterns.append(path("monitoring/", include("testproject.monitoring.urls")))
if apps.is_installed("testproject.chaos"):
    urlpatterns.append(path("chaos/", include("testproject.chaos.urls")))
