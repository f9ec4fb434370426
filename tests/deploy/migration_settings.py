"""testproject's settings plus ``migrationapp``, for the migration check's processes."""

from __future__ import annotations

import os

from testproject.settings import *  # noqa: F403
from testproject.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.deploy.migrationapp"]
HORIZONTAL_ROLLING_SAFE_MIGRATIONS = [
    name for name in os.environ.get("ROLLING_SAFE_MIGRATIONS", "").split(",") if name
]
SILENCED_SYSTEM_CHECKS = [
    name for name in os.environ.get("SILENCED_SYSTEM_CHECKS", "").split(",") if name
]
