"""The names of ``horizontal.sessions`` that need no Redis client: the engine's paths,
the failure policies and the django-redis backend it sits on.

The checks and ``HorizontalConfig.ready()`` read these in every process; importing the
store itself would load redis-py (about a fifth of a second on a slow machine) in
projects that keep their sessions elsewhere.
"""

from __future__ import annotations

from django.utils.module_loading import import_string

__all__ = [
    "DJANGO_REDIS_CACHE",
    "ENGINE",
    "ENGINE_MODULES",
    "FAILURE_POLICIES",
    "STORE_CLASSES",
    "is_django_redis_backend",
]

# The documented SESSION_ENGINE path (the package's facade).
ENGINE = "horizontal.sessions"
# Every module path that names this engine: the facade, and the store module, which
# Django loads just as well since it defines SessionStore.
ENGINE_MODULES = frozenset({ENGINE, "horizontal.sessions.store"})
# Both paths of the store class. The checks match a class by path without importing it,
# and the facade's is loaded lazily (a subclass names the store module's).
STORE_CLASSES = frozenset(f"{module}.SessionStore" for module in ENGINE_MODULES)

FAILURE_POLICIES = ("closed", "open")

DJANGO_REDIS_CACHE = "django_redis.cache.RedisCache"


def is_django_redis_backend(backend: str) -> bool:
    """Whether a CACHES ``BACKEND`` path is django-redis's cache (or a subclass)."""
    try:
        cls = import_string(backend)
        base = import_string(DJANGO_REDIS_CACHE)
    except ImportError:
        return False
    return isinstance(cls, type) and issubclass(cls, base)
