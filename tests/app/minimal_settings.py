"""A project with only ``pip install django-horizontal``: no Redis, no S3 packages."""

from __future__ import annotations

import os

SECRET_KEY = "minimal-project-key"
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "horizontal",
    "tests.app.minimal",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["MINIMAL_DB"]}}
USE_TZ = True
