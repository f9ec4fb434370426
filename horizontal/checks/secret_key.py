"""Deploy warning ``horizontal.W050``: a ``SECRET_KEY`` that is random per process.

The settings module (and every module it takes settings from with ``from X import *``)
is read as source, with the audit's rule and its catalogue of random-value calls
(``horizontal.audit.settings_imported.random_secret_key_sites``), so ``check --deploy``
and ``manage.py audit`` agree on what counts.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags

from horizontal.checks._base import TAG, register

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

    return [W050(_relative(site)) for site in random_secret_key_sites(module_name)]


def _relative(site: str) -> str:
    """``path:line`` with the path relative to the current folder, as the code warnings
    (``horizontal.W101``-``W111``) give theirs."""
    path, _, line = site.rpartition(":")
    with contextlib.suppress(ValueError):  # another drive on Windows
        path = os.path.relpath(path)
    return f"{path}:{line}"
