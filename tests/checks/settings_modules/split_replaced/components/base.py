from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key

SECRET_KEY = os.environ.get("HORIZONTAL_TEST_SPLIT_KEY") or get_random_secret_key()
