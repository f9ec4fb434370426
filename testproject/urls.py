from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("testproject.accounts.urls")),
    path("files/", include("testproject.files.urls")),
    path("horizontal/", include("horizontal.urls")),
]

if settings.HORIZONTAL_METRICS:
    from horizontal.metrics import metrics_view

    urlpatterns.append(path("metrics", metrics_view))
if apps.is_installed("testproject.monitoring"):
    urlpatterns.append(path("monitoring/", include("testproject.monitoring.urls")))
if apps.is_installed("testproject.chaos"):
    urlpatterns.append(path("chaos/", include("testproject.chaos.urls")))
