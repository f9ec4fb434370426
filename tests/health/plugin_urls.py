"""A URLconf with django-health-check's view running horizontal's checks."""

from __future__ import annotations

from django.urls import path
from health_check.views import HealthCheckView

urlpatterns = [
    path(
        "ht/",
        HealthCheckView.as_view(
            checks=[
                "horizontal.health.plugins.Drain",
                ("horizontal.health.plugins.Database", {"alias": "default"}),
                "horizontal.health.plugins.SessionStore",
                "horizontal.health.plugins.Storage",
            ]
        ),
    ),
]
