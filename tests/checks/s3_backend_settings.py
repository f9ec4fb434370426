"""testproject's production settings with ``STORAGES['default']`` on the S3 backend
class named by ``TEST_S3_BACKEND`` (for the start-up test of the storage checks)."""

from __future__ import annotations

import os

from testproject.settings_production import *  # noqa: F403
from testproject.settings_production import STORAGES

STORAGES = {
    **STORAGES,
    "default": {**STORAGES["default"], "BACKEND": os.environ["TEST_S3_BACKEND"]},
}
