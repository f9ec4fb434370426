"""Deploy warnings ``horizontal.W080``–``W084``: the HTTP trigger (``horizontal.triggers.http``).

Settings only, and the URLconf (is the trigger routed?): no network.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags
from django.urls import NoReverseMatch, reverse

from horizontal.checks._base import TAG, register
from horizontal.conf import conf
from horizontal.triggers.http import MIN_SECRET_BYTES, URL_NAME, site_says_https

__all__ = ["W080", "W081", "W082", "W083", "check_trigger"]


def W080(path: str) -> checks.Warning:
    return checks.Warning(
        "HORIZONTAL_TRIGGER_SECRET is unset: the routed HTTP trigger answers 404.",
        hint="Set HORIZONTAL_TRIGGER_SECRET (32 bytes or more, from a secret store) on every "
        "instance, or drop include('horizontal.urls') if no scheduler calls it.",
        obj=path,
        id="horizontal.W080",
    )


def W081(length: int) -> checks.Warning:
    return checks.Warning(
        f"HORIZONTAL_TRIGGER_SECRET is {length} bytes long, fewer than {MIN_SECRET_BYTES}.",
        hint="Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(48))'.",
        id="horizontal.W081",
    )


def W082() -> checks.Warning:
    return checks.Warning(
        "The site is HTTPS but the HTTP trigger accepts plain HTTP calls.",
        hint="Remove HORIZONTAL_TRIGGER_REQUIRE_HTTPS = False; behind a TLS-terminating proxy set "
        "SECURE_PROXY_SSL_HEADER so request.is_secure() is true.",
        id="horizontal.W082",
    )


def W083() -> checks.Warning:
    return checks.Warning(
        "HORIZONTAL_TRIGGER_SECRET is the SECRET_KEY (or one of its fallbacks).",
        hint="Give the trigger a secret of its own: the scheduler that holds it can then "
        "not sign sessions, and either can be rotated alone.",
        id="horizontal.W083",
    )


def _trigger_path() -> str | None:
    if not getattr(settings, "ROOT_URLCONF", None):
        return None  # a project without URLs (a worker-only settings module)
    try:
        return reverse(URL_NAME, args=["NAME"])
    except NoReverseMatch:
        return None


@register(Tags.security, TAG, deploy=True)
def check_trigger(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    secret = conf.TRIGGER_SECRET
    if secret is None:
        routed = _trigger_path()
        return [] if routed is None else [W080(routed)]
    found: list[CheckMessage] = []
    length = len(secret.encode())
    if length < MIN_SECRET_BYTES:
        found.append(W081(length))
    if site_says_https() and conf.TRIGGER_REQUIRE_HTTPS is False:
        found.append(W082())
    keys = [getattr(settings, "SECRET_KEY", None), *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    if secret in keys:
        found.append(W083())
    return found
