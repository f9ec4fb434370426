"""A base settings module whose SECRET_KEY is random per process."""

from __future__ import annotations

import secrets
import uuid

SECRET_KEY: str = secrets.token_urlsafe(50)
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://cache.internal:6379/0",
        "KEY_PREFIX": uuid.uuid4().hex,
    }
}
