"""Deploy warnings for the Redis session store, ``horizontal.W020``-``W029``.

They run only when ``SESSION_ENGINE`` is ``horizontal.sessions`` (or a subclass of its
``SessionStore``) and read settings only: no connection to Redis is made. Backends and
middleware are matched by class (``import_string`` + ``issubclass``); a path that
cannot be imported is left alone, since Django fails loudly when it first uses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core import checks
from django.core.checks import Tags
from django.utils.module_loading import import_string

TAG = "horizontal"

ENGINE_STORE = "horizontal.sessions.SessionStore"
DJANGO_REDIS_CACHE = "django_redis.cache.RedisCache"
FAILURE_MIDDLEWARE = "horizontal.middleware.SessionMiddleware"
TIMEOUT_OPTIONS = ("SOCKET_CONNECT_TIMEOUT", "SOCKET_TIMEOUT")


def W020(alias: str, backend: object) -> checks.Warning:
    return checks.Warning(
        f"horizontal.sessions needs a django-redis cache; SESSION_CACHE_ALIAS {alias!r} "
        f"is {backend!r}.",
        hint=f"Point SESSION_CACHE_ALIAS at a cache whose BACKEND is {DJANGO_REDIS_CACHE!r}.",
        obj="SESSION_CACHE_ALIAS",
        id="horizontal.W020",
    )


def W021(alias: str, missing: list[str]) -> checks.Warning:
    return checks.Warning(
        f"Session cache {alias!r} sets no {' or '.join(missing)}: a wedged Redis can hang "
        "every request on every instance.",
        hint=(
            'Set OPTIONS {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5} (seconds). '
            "horizontal.sessions bounds its own connections when the pool is a plain "
            "redis-py ConnectionPool, but not Sentinel or custom pools, nor other users "
            "of the alias."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W021",
    )


def W022(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Session cache {alias!r} ignores Redis errors (IGNORE_EXCEPTIONS): a Redis "
        "outage looks like an empty cache.",
        hint=(
            "Turn IGNORE_EXCEPTIONS off for the sessions alias and give the best-effort "
            "cache its own alias; Django's cache engines log everyone out on such a miss."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W022",
    )


def W023(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Session cache {alias!r} lists replicas in LOCATION: cache reads go to a "
        "replica that can lag behind a login made on another instance.",
        hint=(
            "Give the sessions alias the primary only (use Sentinel for failover). "
            "horizontal.sessions itself reads the first server only."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W023",
    )


W024 = checks.Warning(
    "horizontal.sessions is used without horizontal.middleware.SessionMiddleware: a "
    "session store error becomes a 500 and HORIZONTAL_SESSION_FAILURE is not applied.",
    hint=(
        "Replace 'django.contrib.sessions.middleware.SessionMiddleware' with "
        f"{FAILURE_MIDDLEWARE!r} in MIDDLEWARE."
    ),
    obj="MIDDLEWARE",
    id="horizontal.W024",
)


def W025(alias: str, others: list[str]) -> checks.Warning:
    return checks.Warning(
        f"Session cache {alias!r} shares its Redis database with cache "
        f"{', '.join(map(repr, others))}: cache.clear() there (FLUSHDB) or eviction under "
        "cache load logs everyone out.",
        hint="Give sessions a Redis database (or server) of their own.",
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W025",
    )


# -- helpers ---------------------------------------------------------------------


def _is_subclass(path: object, base_path: str) -> bool:
    if not isinstance(path, str) or not path:
        return False
    if path == base_path:
        return True
    try:
        cls, base = import_string(path), import_string(base_path)
    except ImportError:
        return False
    return isinstance(cls, type) and issubclass(cls, base)


def _uses_redis_sessions() -> bool:
    return _is_subclass(f"{settings.SESSION_ENGINE}.SessionStore", ENGINE_STORE)


def _session_cache() -> tuple[str, Mapping[str, Any] | None]:
    alias = settings.SESSION_CACHE_ALIAS
    config = settings.CACHES.get(alias)
    return alias, config if isinstance(config, Mapping) else None


def _redis_session_cache() -> tuple[str, Mapping[str, Any]] | None:
    """The sessions alias and its config, when the engine is ours on django-redis."""
    if not _uses_redis_sessions():
        return None
    alias, config = _session_cache()
    if config is None or not _is_subclass(config.get("BACKEND"), DJANGO_REDIS_CACHE):
        return None
    return alias, config


def _options(config: Mapping[str, Any]) -> Mapping[str, Any]:
    options = config.get("OPTIONS") or {}
    return options if isinstance(options, Mapping) else {}


def _servers(location: object) -> list[str]:
    """django-redis accepts a list or a comma-separated string of servers."""
    if isinstance(location, str):
        return [server.strip() for server in location.split(",") if server.strip()]
    if isinstance(location, (list, tuple)):
        return [str(server) for server in location]
    return []


# -- checks ----------------------------------------------------------------------


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_is_django_redis(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    if not _uses_redis_sessions():
        return []
    alias, config = _session_cache()
    backend = None if config is None else config.get("BACKEND")
    passed = _is_subclass(backend, DJANGO_REDIS_CACHE)
    return [] if passed else [W020(alias, backend)]


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_timeouts(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    options = _options(config)
    missing = [
        name for name in ("SOCKET_CONNECT_TIMEOUT", "SOCKET_TIMEOUT") if not options.get(name)
    ]
    return [W021(alias, missing)] if missing else []


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_raises_errors(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    default = getattr(settings, "DJANGO_REDIS_IGNORE_EXCEPTIONS", False)
    ignores = _options(config).get("IGNORE_EXCEPTIONS", default)
    return [W022(alias)] if ignores else []


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_reads_the_primary(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    return [W023(alias)] if len(_servers(config.get("LOCATION"))) > 1 else []


@checks.register(Tags.security, TAG, deploy=True)
def check_session_failure_middleware(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    if not _uses_redis_sessions():
        return []
    passed = any(_is_subclass(path, FAILURE_MIDDLEWARE) for path in settings.MIDDLEWARE)
    return [] if passed else [W024]


@checks.register(Tags.caches, TAG, deploy=True)
def check_session_cache_has_its_own_database(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    servers = set(_servers(config.get("LOCATION")))
    others = [
        other
        for other, other_config in settings.CACHES.items()
        if other != alias
        and isinstance(other_config, Mapping)
        and _is_subclass(other_config.get("BACKEND"), DJANGO_REDIS_CACHE)
        and servers & set(_servers(other_config.get("LOCATION")))
    ]
    return [W025(alias, others)] if others else []
