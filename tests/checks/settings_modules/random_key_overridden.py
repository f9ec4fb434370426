"""Production settings that replace their base module's random SECRET_KEY (and its
per-instance cache prefix) with values every instance shares."""

from __future__ import annotations

import os

from .random_key_base import *  # noqa: F403

SECRET_KEY = os.environ.get("SECRET_KEY", "x" * 50)
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://cache.internal:6379/0",
        "KEY_PREFIX": "shop",
    }
}
