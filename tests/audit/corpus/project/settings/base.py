"""Shared settings (no CACHES anywhere in this package: Django falls back to LocMemCache)."""

import os

BASE_DIR = os.path.dirname(os.path.dirname(__file__))

INSTALLED_APPS = [  # expect: settings
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django_apscheduler",  # expect: settings
    "shop",
]

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},  # expect: settings
    "staticfiles": {"BACKEND": "django.core.files.storage.FileSystemStorage"},  # ok: static
}

DATABASES = {
    "default": {
        "ENGINE": os.environ.get("DB_ENGINE") or "django.db.backends.sqlite3",  # expect: settings
        "NAME": os.path.join(BASE_DIR, "db.sqlite3"),
    }
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # ok: a comparison
    DATABASES["default"]["OPTIONS"] = {"timeout": 20}

SESSION_ENGINE = "django.contrib.sessions.backends.db"  # ok: shared

DEBUG = os.environ.get("DEBUG") == "1"
if DEBUG:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"  # ok: DEBUG only
CACHE_BACKEND = (
    "django.core.cache.backends.locmem.LocMemCache"  # ok: DEBUG only
    if DEBUG
    else "django.core.cache.backends.redis.RedisCache"
)
