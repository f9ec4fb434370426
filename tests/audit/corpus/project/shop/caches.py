"""cache: memoisation over data that changes; pure memos are fine."""

import functools
from functools import lru_cache

import requests
from django.conf import settings
from django.core.cache import cache
from django.utils.functional import cached_property
from django.utils.module_loading import import_string

from .models import Plan, SiteSettings


@lru_cache(maxsize=None)  # expect: cache
def site_settings():
    return SiteSettings.objects.first()


def _load_flags():
    return dict(SiteSettings.objects.values_list("key", "value"))


@functools.cache  # expect: module-state (nothing clears it: stale in every process alike)
def feature_flags():
    return _load_flags()


@lru_cache(maxsize=8)  # ok: what a remote service publishes, fetched again on a miss
def exchange_rates(currency):
    return requests.get(f"https://rates.example/{currency}", timeout=5).json()


@lru_cache  # ok: pure function of its argument
def slugify_title(title):
    return "-".join(title.lower().split())


@functools.cache  # ok: built from settings, the same on every instance
def payment_backend():
    return import_string(settings.PAYMENT_BACKEND)()


# Plans by code, filled from the database on first use, forgotten where a plan is edited.
_PLANS = {}  # expect: cache


def plan(code):
    if code not in _PLANS:
        _PLANS[code] = Plan.objects.get(code=code)
    return _PLANS[code]


def forget_plan(code):
    # Called by the view that edits a plan: in that process only.
    _PLANS.pop(code, None)  # expect: cache (the clear, related)


def site_settings_saved(sender, **kwargs):
    site_settings.cache_clear()  # expect: cache (the clear, related)


_tax_table = None  # expect: module-state (the binding, related to the global below)


def tax_table():
    global _tax_table  # expect: module-state (nothing clears it: opt-in)
    if _tax_table is None:
        _tax_table = list(Plan.objects.values_list("code", "tax"))
    return _tax_table


class Invoice:
    @cached_property  # ok: per object, per request
    def plan(self):
        return Plan.objects.get(pk=self.plan_id)


def cached_total(key):
    return cache.get(key)  # ok: the shared cache


def forget_total(key):
    # An invalidation every instance must see: shown beside the per-process CACHES.
    cache.delete(key)  # expect: settings
