from __future__ import annotations

from django.apps import AppConfig


class ChaosConfig(AppConfig):
    """The chaos suite's workload (RELIABILITY.md harness); installed only for it."""

    name = "testproject.chaos"
    label = "chaos"
