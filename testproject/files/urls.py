from __future__ import annotations

from django.urls import URLPattern, path

from testproject.files import views

app_name = "files"
urlpatterns: list[URLPattern] = [
    path("upload/", views.upload, name="upload"),
    path("download/<path:name>", views.download, name="download"),
    path("url/<path:name>", views.signed_url, name="url"),
    path("ready/", views.ready, name="ready"),
]
