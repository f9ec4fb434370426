from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("testproject.accounts.urls")),
    path("files/", include("testproject.files.urls")),
]

if apps.is_installed("testproject.chaos"):
    urlpatterns.append(path("chaos/", include("testproject.chaos.urls")))

# The HTTP trigger: answers 404 unless HORIZONTAL_TRIGGER_SECRET is set.
urlpatterns.append(path("horizontal/", include("horizontal.urls")))
