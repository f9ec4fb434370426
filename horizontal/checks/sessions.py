"""Deploy warnings for sessions, ``horizontal.W010``-``W029``: every session id lives here.

- ``W010``-``W011``: Django's engines that keep sessions on one box: the ``file`` engine,
  and the ``cache``/``cached_db`` engines on a cache that is not shared.
- ``W026``: a cache-backed engine whose cache is on this host (``localhost``, loopback,
  a unix socket): each instance has its own sessions.
- ``W020``-``W025``: the Redis session store. They run only when ``SESSION_ENGINE`` is
  ``horizontal.sessions`` (or a subclass of its ``SessionStore``).

All read settings only: no connection to Redis is made. Engines, caches and middleware
are matched by class (``horizontal.checks._classes``); whether a cache is django-redis's
is decided by the store's own test, so the check and the engine agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import is_a
from horizontal.checks.caches import (
    DUMMY_CACHE,
    NOT_SHARED_CACHES,
    cache_address_on_this_host,
    cache_address_place,
    cache_is,
    session_cache_alias,
    shared_cache_configs,
)
from horizontal.conf import conf
from horizontal.sessions.names import DJANGO_REDIS_CACHE, STORE_CLASSES, is_django_redis_backend

__all__ = [
    "CACHE_SESSIONS",
    "FILE_SESSIONS",
    "SHARED_SESSIONS",
    "W010",
    "W011",
    "W020",
    "W021",
    "W022",
    "W023",
    "W024",
    "W025",
    "check_file_sessions",
    "check_session_cache_has_its_own_database",
    "check_session_cache_is_django_redis",
    "check_session_cache_is_not_on_this_host",
    "check_session_cache_is_shared",
    "check_session_cache_raises_errors",
    "check_session_cache_reads_the_primary",
    "check_session_cache_timeouts",
    "check_session_failure_middleware",
]

# SESSION_ENGINE names a module; Django uses its SessionStore class.
FILE_SESSIONS = tuple(
    f"{engine}.SessionStore" for engine in known.paths(known.FILE_SESSION_ENGINES)
)
CACHED_DB_SESSIONS = ("django.contrib.sessions.backends.cached_db.SessionStore",)
# django-redis-sessions: its own Redis client, configured by SESSION_REDIS.
REDIS_SESSIONS = ("redis_sessions.session.SessionStore",)
CACHE_SESSIONS = ("django.contrib.sessions.backends.cache.SessionStore", *CACHED_DB_SESSIONS)
# Engines whose sessions every instance reads, classified without imports.
SHARED_SESSIONS = frozenset(
    {
        "django.contrib.sessions.backends.db.SessionStore",
        "django.contrib.sessions.backends.signed_cookies.SessionStore",
        *STORE_CLASSES,
    }
)
DJANGO_SESSION_MIDDLEWARE = "django.contrib.sessions.middleware.SessionMiddleware"

FAILURE_MIDDLEWARE = "horizontal.sessions.middleware.SessionMiddleware"
TIMEOUT_OPTIONS = ("SOCKET_CONNECT_TIMEOUT", "SOCKET_TIMEOUT")


# -- messages: Django's engines ----------------------------------------------------------

W010 = checks.Warning(
    "Sessions are files on one host: other instances log the user out.",
    hint="Use SESSION_ENGINE 'horizontal.sessions' (Redis) or Django's database engine.",
    obj="SESSION_ENGINE",
    id="horizontal.W010",
)


def W011(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Sessions use cache {alias!r}, which is not shared between instances.",
        hint=(
            "Other instances see no session or a stale one: use SESSION_ENGINE "
            "'horizontal.sessions' or point SESSION_CACHE_ALIAS at Redis."
        ),
        obj="SESSION_CACHE_ALIAS",
        id="horizontal.W011",
    )


def W026(alias: str | None, address: str, where: str = "LOCATION") -> checks.Warning:
    store = f"cache {alias!r}" if alias is not None else "SESSION_REDIS"
    return checks.Warning(
        f"Sessions use {store} on this host: each instance has its own.",
        hint=(
            f"{where + ' ' if alias is not None else ''}{address} is this host: point it at "
            "the shared Redis. Behind a sidecar proxy to it, silence horizontal.W026."
        ),
        obj="SESSION_CACHE_ALIAS" if alias is not None else "SESSION_REDIS",
        id="horizontal.W026",
    )


# -- messages: the Redis session store ---------------------------------------------------


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
    "horizontal.sessions is used without horizontal.sessions.middleware.SessionMiddleware: a "
    "session store error becomes a 500 and HORIZONTAL_SESSION_FAILURE is not applied.",
    hint=(f"Replace {DJANGO_SESSION_MIDDLEWARE!r} with {FAILURE_MIDDLEWARE!r} in MIDDLEWARE."),
    obj="MIDDLEWARE",
    id="horizontal.W024",
)


def W025(alias: str, others: list[str], *, migrating: bool = False) -> checks.Warning:
    # While the fallback engine is set, FLUSHDB also empties the list of users logged
    # out everywhere, whose old sessions are then moved into Redis and served.
    migration = (
        " While HORIZONTAL_SESSION_FALLBACK_ENGINE is set, a FLUSHDB there also lets "
        "the old sessions of users logged out everywhere back in."
        if migrating
        else ""
    )
    return checks.Warning(
        f"Session cache {alias!r} shares its Redis database with cache "
        f"{', '.join(map(repr, others))}: cache.clear() there (FLUSHDB) or eviction under "
        "cache load logs everyone out.",
        hint=(
            "Give sessions a Redis database (or server) of their own, with "
            f"maxmemory-policy noeviction or volatile-*.{migration}"
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W025",
    )


# -- helpers -----------------------------------------------------------------------------


def _session_store() -> str:
    return f"{settings.SESSION_ENGINE}.SessionStore"


def _uses_sessions() -> bool:
    return apps.is_installed("django.contrib.sessions") or any(
        is_a(middleware, (DJANGO_SESSION_MIDDLEWARE,)) for middleware in settings.MIDDLEWARE
    )


def _session_store_is(known_stores: tuple[str, ...]) -> bool:
    store = _session_store()
    return store not in SHARED_SESSIONS and is_a(store, known_stores)


def _uses_redis_sessions() -> bool:
    return is_a(_session_store(), STORE_CLASSES)


def _is_django_redis(backend: object) -> bool:
    return isinstance(backend, str) and is_django_redis_backend(backend)


def _session_cache() -> tuple[str, Mapping[str, Any] | None]:
    alias = settings.SESSION_CACHE_ALIAS
    config = settings.CACHES.get(alias)
    return alias, config if isinstance(config, Mapping) else None


def _redis_session_cache() -> tuple[str, Mapping[str, Any]] | None:
    """The sessions alias and its config, when the engine is ours on django-redis."""
    if not _uses_redis_sessions():
        return None
    alias, config = _session_cache()
    if config is None or not _is_django_redis(config.get("BACKEND")):
        return None
    return alias, config


def _cache_options(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """A CACHES entry's OPTIONS, or an empty mapping when it has none (or not a mapping)."""
    options = config.get("OPTIONS") or {}
    return options if isinstance(options, Mapping) else {}


def _servers(location: object) -> list[tuple[str, int | str, int | str]]:
    """The Redis databases a django-redis ``LOCATION`` names (a list or a comma-separated
    string of URLs), each as (host or socket path, port, database number):
    ``redis://h/3``, ``redis://h:6379/3`` and ``rediss://h:6379?db=3`` are one database,
    and a URL with no number is database 0."""
    if isinstance(location, str):
        urls = [server.strip() for server in location.split(",") if server.strip()]
    elif isinstance(location, (list, tuple)):
        urls = [str(server) for server in location]
    else:
        return []
    return [_redis_database(url) for url in urls]


def _redis_database(url: str) -> tuple[str, int | str, int | str]:
    try:
        parts = urlsplit(url)
        port: int | str = parts.port or 6379
    except ValueError:
        return (url, "", "")  # unparsable: compared as written
    query = parse_qs(parts.query)
    if parts.scheme == "unix":
        return (parts.path, "unix", _number(query.get("db", ["0"])[0]))
    path = parts.path.strip("/")
    database = path or query.get("db", ["0"])[0]
    return ((parts.hostname or "localhost").lower(), port, _number(database))


def _number(text: str) -> int | str:
    return int(text) if text.isdigit() else text


# -- checks: Django's engines ------------------------------------------------------------


@register(Tags.security, TAG, deploy=True)
def check_file_sessions(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    passed_check = not _uses_sessions() or not _session_store_is(FILE_SESSIONS)
    return [] if passed_check else [W010]


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_is_shared(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not _uses_sessions() or not _session_store_is(CACHE_SESSIONS):
        return []
    # HORIZONTAL_LOCAL_CACHES does not excuse this one: a session cache must be shared.
    alias, config = _session_cache()
    backend = None if config is None else config.get("BACKEND")
    passed_check = config is None or not cache_is(backend, NOT_SHARED_CACHES)
    # cached_db over DummyCache reads every session from the shared database: nothing
    # per instance to go stale (W003 still says the cache does nothing).
    if _session_store_is(CACHED_DB_SESSIONS) and cache_is(backend, DUMMY_CACHE):
        passed_check = True
    return [] if passed_check else [W011(alias)]


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_is_not_on_this_host(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not _uses_sessions():
        return []
    if _session_store_is(REDIS_SESSIONS):
        address = _redis_sessions_address()
        return [] if address is None else [W026(None, address)]
    alias = session_cache_alias()
    if alias is None:
        return []
    # HORIZONTAL_LOCAL_CACHES does not excuse it (as W011): sessions must be shared.
    for shared_alias, config in shared_cache_configs():
        if shared_alias == alias:
            address = cache_address_on_this_host(config)
            if address is None:
                return []
            return [W026(alias, address, cache_address_place(config, address))]
    return []


def _redis_sessions_address() -> str | None:
    """django-redis-sessions' server, if it is this host: ``SESSION_REDIS``'s ``url``,
    socket, sentinels or ``host`` (``localhost`` when none is given)."""
    config = getattr(settings, "SESSION_REDIS", None) or {}
    if not isinstance(config, Mapping):
        return None
    if config.get("url"):
        value: object = config["url"]
    elif config.get("unix_domain_socket_path"):
        value = f"unix:{config['unix_domain_socket_path']}"
    elif config.get("sentinel_list"):
        value = list(config["sentinel_list"])
    else:
        value = {"host": config.get("host", "localhost")}
    from horizontal.audit.this_host import this_host_addresses  # not at start-up

    return next(this_host_addresses(value, live=True), None)


# -- checks: the Redis session store -----------------------------------------------------


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_is_django_redis(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not _uses_redis_sessions():
        return []
    alias, config = _session_cache()
    backend = None if config is None else config.get("BACKEND")
    passed_check = _is_django_redis(backend)
    return [] if passed_check else [W020(alias, backend)]


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_timeouts(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    options = _cache_options(config)
    missing = [name for name in TIMEOUT_OPTIONS if not options.get(name)]
    return [W021(alias, missing)] if missing else []


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_raises_errors(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    default = getattr(settings, "DJANGO_REDIS_IGNORE_EXCEPTIONS", False)
    ignores = _cache_options(config).get("IGNORE_EXCEPTIONS", default)
    return [W022(alias)] if ignores else []


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_reads_the_primary(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    found = _redis_session_cache()
    if found is None:
        return []
    alias, config = found
    return [W023(alias)] if len(_servers(config.get("LOCATION"))) > 1 else []


@register(Tags.security, TAG, deploy=True)
def check_session_failure_middleware(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    if not _uses_redis_sessions():
        return []
    # The listed path first: the subclass test imports every middleware it is asked about.
    passed_check = FAILURE_MIDDLEWARE in settings.MIDDLEWARE or any(
        is_a(path, (FAILURE_MIDDLEWARE,)) for path in settings.MIDDLEWARE
    )
    return [] if passed_check else [W024]


@register(Tags.caches, TAG, deploy=True)
def check_session_cache_has_its_own_database(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
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
        and _is_django_redis(other_config.get("BACKEND"))
        and servers & set(_servers(other_config.get("LOCATION")))
    ]
    migrating = bool(conf.SESSION_FALLBACK_ENGINE)
    return [W025(alias, others, migrating=migrating)] if others else []
