from __future__ import annotations

from django.urls import URLPattern, path

from testproject.chaos import views

app_name = "chaos"
urlpatterns: list[URLPattern] = [
    path("locked-increment/", views.locked_increment, name="locked-increment"),
]
