from __future__ import annotations

from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "testproject.billing"
    label = "billing"
