from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("testproject.accounts.urls")),
    path("files/", include("testproject.files.urls")),
    path("horizontal/", include("horizontal.urls")),
]

if apps.is_installed("testproject.chaos"):
    urlpatterns.append(path("chaos/", include("testproject.chaos.urls")))
