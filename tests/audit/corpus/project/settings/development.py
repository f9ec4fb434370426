from .base import *  # noqa: F403

# Development settings are allowed to be single-box.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}  # ok: dev
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "dev.db"}}  # ok: dev
