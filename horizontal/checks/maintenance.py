"""Deploy warning ``horizontal.W053``: django-maintenance-mode's switch kept on one host.

django-maintenance-mode stores whether maintenance is on through its state backend, by
default ``LocalFileBackend``: a file on the disk of the instance that handled the admin's
request. The other instances never see it. The backend is the catalogue's
(``horizontal.audit.known``), matched by class; the check runs only with the app installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a

__all__ = ["W053", "check_maintenance_state"]

FILE_STATES = known.paths(known.MAINTENANCE_STATE_FILES)
DEFAULT_STATE = FILE_STATES[0]

W053 = checks.Warning(
    "django-maintenance-mode keeps its state in a local file: other instances never see "
    "maintenance switched on or off.",
    hint="MAINTENANCE_MODE_STATE_BACKEND = 'maintenance_mode.backends.CacheBackend' (on "
    "the shared cache) or 'maintenance_mode.backends.DefaultStorageBackend' (on S3).",
    obj="MAINTENANCE_MODE_STATE_BACKEND",
    id="horizontal.W053",
)


@register(TAG, deploy=True)
def check_maintenance_state(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not apps.is_installed(known.MAINTENANCE_APP):
        return []
    # MAINTENANCE_MODE set in settings decides alone: the state file is never read, and
    # switching at run time is refused.
    if getattr(settings, "MAINTENANCE_MODE", None) is not None:
        return []
    backend = getattr(settings, "MAINTENANCE_MODE_STATE_BACKEND", DEFAULT_STATE)
    return [W053] if is_a(backend, FILE_STATES) else []
