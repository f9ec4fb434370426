"""A settings module that makes up its SECRET_KEY when the variable is missing."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key

SECRET_KEY = os.environ.get("NO_SUCH_SECRET_KEY_VARIABLE") or get_random_secret_key()
