"""A random key put in the environment when it is missing, then read from it."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key

os.environ.setdefault("HORIZONTAL_TEST_SETDEFAULT_KEY", get_random_secret_key())
SECRET_KEY = os.environ["HORIZONTAL_TEST_SETDEFAULT_KEY"]
