"""``path("horizontal/", include("horizontal.urls"))``: ``live/`` and ``ready/``.

See docs/operations.md for what each answers and how balancers should use them.
"""

from __future__ import annotations

from django.urls import URLPattern, path

from horizontal.health import views

app_name = "horizontal"

urlpatterns: list[URLPattern] = [
    path("live/", views.live, name="live"),
    path("ready/", views.ready, name="ready"),
]
