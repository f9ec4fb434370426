"""A key a class of the settings module makes, read as its attribute."""

from __future__ import annotations

import os

from django.core.management.utils import get_random_secret_key


class Secrets:
    SECRET_KEY = os.environ.get("HORIZONTAL_TEST_CLASS_KEY") or get_random_secret_key()


SECRET_KEY = Secrets.SECRET_KEY
