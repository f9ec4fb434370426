from __future__ import annotations

from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    """Jobs and views the monitoring tests drive (metrics, fleet, logs); installed only for them."""

    name = "testproject.monitoring"
    label = "monitoring"
