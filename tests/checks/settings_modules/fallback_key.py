"""A settings module that makes up its SECRET_KEY in a second step when none is given."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key

SECRET_KEY = os.environ.get("NO_SUCH_SECRET_KEY_VARIABLE")
if not SECRET_KEY:
    SECRET_KEY = get_random_secret_key()
