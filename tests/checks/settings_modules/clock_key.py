"""A settings module that falls back to a SECRET_KEY hashed from the clock: per start."""

from __future__ import annotations

import hashlib
import os
import time

SECRET_KEY = (
    os.environ.get("NO_SUCH_SECRET_KEY_VARIABLE")
    or hashlib.sha512(str(time.time()).encode()).hexdigest()
)

# A cache namespace stamped with the boot time: each start (and instance) its own.
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://cache.internal:6379/0",
        "KEY_PREFIX": __import__("datetime").datetime.now().strftime("%Y%m%d%H%M%S"),
    }
}
