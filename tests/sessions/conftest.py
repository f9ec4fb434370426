"""Fixtures for the session store tests.

In-process tests use the shared Redis (tests/settings.py: db 15) under a key prefix of
their own, deleted afterwards with SCAN + DEL (never FLUSHDB: others use the db too).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import override_settings

from tests.support.redis_server import RedisServer

SHARED_REDIS_URL = settings.REDIS_URL


def redis_caches(location: str, prefix: str, **options: Any) -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": prefix,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5, **options},
        }
    }


def delete_prefixed(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url, socket_timeout=5)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def key_prefix() -> Iterator[str]:
    prefix = f"hz-sessions-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    delete_prefixed(SHARED_REDIS_URL, prefix)


@pytest.fixture
def redis_sessions(key_prefix: str) -> Iterator[redis.Redis]:
    """``horizontal.sessions`` on the shared Redis, under this test's own key prefix."""
    with override_settings(
        CACHES=redis_caches(SHARED_REDIS_URL, key_prefix),
        SESSION_ENGINE="horizontal.sessions",
        SESSION_CACHE_ALIAS="default",
        HORIZONTAL_SESSION_FAILURE="closed",
        HORIZONTAL_SESSION_FALLBACK_ENGINE=None,
    ):
        yield redis.Redis.from_url(SHARED_REDIS_URL, socket_timeout=5)


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def closed_port_sessions(key_prefix: str, redis_sessions: redis.Redis) -> Iterator[None]:
    """``horizontal.sessions`` pointed at a port nothing listens on.

    Set up after ``redis_sessions`` (a dependency) so that its CACHES win when a module
    uses both.
    """
    from tests.support.processes import free_port

    with override_settings(
        CACHES=redis_caches(f"redis://127.0.0.1:{free_port()}/0", key_prefix),
        SESSION_ENGINE="horizontal.sessions",
        HORIZONTAL_SESSION_FALLBACK_ENGINE=None,
    ):
        yield
