"""A settings module that reads SECRET_KEY from the environment, the same everywhere."""

from __future__ import annotations

import os

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "one-fixed-development-key")
