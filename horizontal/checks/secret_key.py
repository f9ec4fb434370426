"""Deploy warning ``horizontal.W050``: a ``SECRET_KEY`` that is random per process.

The settings module (and every module it takes settings from with ``from X import *``)
is read as source, with the audit's rule and its catalogue of random-value calls
(``horizontal.audit.settings_imported.random_secret_key_sites``), so ``check --deploy``
and ``manage.py audit`` agree on what counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags

from horizontal.checks._base import TAG, register, relative_place

__all__ = ["W050", "check_secret_key_is_stable"]


def W050(where: str) -> checks.Warning:
    return checks.Warning(
        "SECRET_KEY is random per start: each instance signs with its own key.",
        hint="Read SECRET_KEY from the environment or a secret store, the same everywhere.",
        obj=where,
        id="horizontal.W050",
    )


@register(Tags.security, TAG, deploy=True)
def check_secret_key_is_stable(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    module_name = getattr(settings, "SETTINGS_MODULE", None)
    if not module_name:
        return []
    # Imported here, not at module level: every web worker imports the checks, and only
    # `check --deploy` needs the source reader.
    from horizontal.audit.settings_imported import random_secret_key_sites

    return [
        W050(relative_place(*site.rpartition(":")[::2]))
        for site in random_secret_key_sites(module_name)
    ]
