"""Deploy warnings ``horizontal.W001``-``W003``: caches that are not shared between instances.

``LocMemCache``, ``FileBasedCache`` and ``DummyCache`` (``horizontal.audit.known``) are
matched by class, subclasses included, and so is Django's implicit ``LocMemCache`` when
``CACHES`` is not set. An alias in ``HORIZONTAL_LOCAL_CACHES`` is per-instance on purpose
and is left alone. The session and django_cron checks ask ``cache_is`` about their own
cache alias.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import backends, is_a, is_overridden
from horizontal.conf import conf

__all__ = [
    "DUMMY_CACHE",
    "FILE_CACHE",
    "LOCMEM_CACHE",
    "NOT_SHARED_CACHES",
    "SHARED_CACHES",
    "W001",
    "W002",
    "W003",
    "cache_is",
    "check_dummy_caches",
    "check_file_caches",
    "check_locmem_caches",
]

LOCMEM_CACHE = known.paths(known.LOCMEM_CACHES)
FILE_CACHE = known.paths(known.FILE_CACHES)
DUMMY_CACHE = known.paths(known.DUMMY_CACHES)
NOT_SHARED_CACHES = LOCMEM_CACHE + FILE_CACHE + DUMMY_CACHE
# Shared by design: classified without importing them or the single-instance classes.
SHARED_CACHES = frozenset(
    {
        "django.core.cache.backends.redis.RedisCache",
        "django.core.cache.backends.memcached.PyMemcacheCache",
        "django.core.cache.backends.memcached.PyLibMCCache",
        "django.core.cache.backends.db.DatabaseCache",
        "django_redis.cache.RedisCache",
    }
)


def W001(alias: str, implicit: bool) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is LocMemCache: N instances keep N different caches.",
        hint=(
            "CACHES is not set, so Django uses LocMemCache: set CACHES['default'] to Redis."
            if implicit
            else "Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W001",
    )


def W002(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is FileBasedCache: each host keeps its own cache.",
        hint="Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES.",
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W002",
    )


def W003(alias: str) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is DummyCache: every instance wins every cache.add() lock.",
        hint="Use Redis or Memcached, or add the alias to HORIZONTAL_LOCAL_CACHES.",
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W003",
    )


def cache_is(backend: object, known_paths: Collection[str]) -> bool:
    """Whether a CACHES ``BACKEND`` is one of ``known_paths``; shared caches never are."""
    return backend not in SHARED_CACHES and is_a(backend, known_paths)


def _local_caches() -> set[str]:
    """Aliases the project declared per-instance on purpose (HORIZONTAL_LOCAL_CACHES)."""
    try:
        return set(conf.LOCAL_CACHES)
    except TypeError:
        return set()  # not a list: horizontal.E001 says so on the same run


def _cache_aliases_using(known_paths: Collection[str]) -> list[str]:
    local = _local_caches()
    return [
        alias
        for alias, backend in backends(settings.CACHES)
        if alias not in local and cache_is(backend, known_paths)
    ]


@register(Tags.caches, TAG, deploy=True)
def check_locmem_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    implicit = not is_overridden("CACHES")
    return [W001(alias, implicit) for alias in _cache_aliases_using(LOCMEM_CACHE)]


@register(Tags.caches, TAG, deploy=True)
def check_file_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W002(alias) for alias in _cache_aliases_using(FILE_CACHE)]


@register(Tags.caches, TAG, deploy=True)
def check_dummy_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W003(alias) for alias in _cache_aliases_using(DUMMY_CACHE)]
