"""testproject's settings plus ``default_groups``, for ``migrate_locked`` processes."""

from __future__ import annotations

from testproject.settings import *  # noqa: F403
from testproject.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.leases.default_groups"]
