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
from horizontal.checks.caches import NOT_SHARED_CACHES, cache_is

__all__ = ["W053", "check_maintenance_state"]

FILE_STATES = known.paths(known.MAINTENANCE_STATE_FILES)
DEFAULT_STATE = FILE_STATES[0]
CACHE_STATE = "maintenance_mode.backends.CacheBackend"
# The storage backends write the state through a storage alias: local storage, local
# state. DefaultStorageBackend on a local default storage is W060's one finding already.
STORAGE_STATES = {"maintenance_mode.backends.StaticStorageBackend": "staticfiles"}
LOCAL_STORAGES = known.paths(known.LOCAL_STORAGES)

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
    if is_a(backend, FILE_STATES):
        return [W053]
    # The shared backends are only as shared as what they write through.
    if is_a(backend, (CACHE_STATE,)):
        cache_config = settings.CACHES.get(_state_cache_alias()) or {}
        return [W053] if cache_is(cache_config.get("BACKEND"), NOT_SHARED_CACHES) else []
    storage_alias = STORAGE_STATES.get(str(backend))
    if storage_alias is not None:
        storage_config = settings.STORAGES.get(storage_alias) or {}
        return [W053] if is_a(storage_config.get("BACKEND"), LOCAL_STORAGES) else []
    return []


def _state_cache_alias() -> str:
    """The cache CacheBackend uses: MAINTENANCE_MODE_CACHE_BACKEND, else an alias named
    ``maintenance_mode``, else ``default``."""
    alias = getattr(settings, "MAINTENANCE_MODE_CACHE_BACKEND", None)
    if alias:
        return str(alias)
    return "maintenance_mode" if "maintenance_mode" in settings.CACHES else "default"
