"""Where the background services the live settings name live: each Celery broker or
result store setting, channel layer, Huey queue and django-q broker, as (setting as
reported, value holding addresses), read as the libraries read them. W048 judges each
address (``background.py``); W049 asks whether a Huey queue runs inline.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings

from horizontal.checks._classes import is_a

__all__ = [
    "CELERY_ADDRESS_SETTINGS",
    "huey_immediate",
    "service_addresses",
]


# Settings that name a broker or a result store, by the names the libraries read.
CELERY_ADDRESS_SETTINGS = (
    "CELERY_BROKER_URL",
    "BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "CELERY_BROKER_READ_URL",
    "CELERY_BROKER_WRITE_URL",
)


CHANNELS_REDIS_DEFAULT_HOST = ("localhost", 6379)
CHANNELS_REDIS_LAYERS = (
    "channels_redis.core.RedisChannelLayer",
    "channels_redis.pubsub.RedisPubSubChannelLayer",
)


def service_addresses(
    celery: Iterable[str] = CELERY_ADDRESS_SETTINGS,
) -> Iterable[tuple[str, object]]:
    """(setting as reported, value holding addresses) for each background service."""
    layers = getattr(settings, "CHANNEL_LAYERS", None) or {}
    if isinstance(layers, Mapping):
        for alias, config in layers.items():
            if not isinstance(config, Mapping):
                continue
            options = config.get("CONFIG")
            hosts = options.get("hosts") if isinstance(options, Mapping) else None
            if hosts:
                yield f"CHANNEL_LAYERS[{alias!r}]", hosts
            elif str(config.get("BACKEND", "")).startswith("channels_redis.") or is_a(
                config.get("BACKEND"), CHANNELS_REDIS_LAYERS
            ):
                # No hosts, or an empty list: channels_redis (or a subclass of its layers)
                # connects to its default, this host's Redis.
                yield f"CHANNEL_LAYERS[{alias!r}]", CHANNELS_REDIS_DEFAULT_HOST
    for name in celery:
        value = getattr(settings, name, None)
        if isinstance(value, str | list | tuple):
            yield name, value
    yield from _huey_addresses(getattr(settings, "HUEY", None))
    yield from _django_q_addresses(getattr(settings, "Q_CLUSTER", None))
    queues = getattr(settings, "RQ_QUEUES", None)
    if isinstance(queues, Mapping):
        for alias, config in queues.items():
            if isinstance(config, Mapping) and "USE_REDIS_CACHE" not in config:
                yield f"RQ_QUEUES[{alias!r}]", config


# redis-py's default server: what a Redis-backed queue given no address connects to.
REDIS_DEFAULT = "redis://localhost:6379"
# MemoryHuey: the queue is a structure in this process; kombu's spelling of the same.
IN_PROCESS_QUEUE = "memory://"
# djhuey's settings that are not the storage's connection.
# What names a Redis server in a connection's options (a pool: the pool's own address).
REDIS_ADDRESS_KEYS = frozenset({"url", "host", "unix_socket_path", "connection_pool"})
HUEY_OPTIONS = frozenset(
    {"name", "huey_class", "immediate", "consumer", "results", "store_none", "utc"}
)
# django-q's brokers other than Redis: with one of them, Q_CLUSTER["redis"] is unused.
DJANGO_Q_BROKERS = ("orm", "sqs", "mongo", "iron_mq", "disque", "broker_class", "django_redis")


def _huey_addresses(huey: object) -> Iterable[tuple[str, object]]:
    """Where a Huey queue lives: the address djhuey builds from ``HUEY`` (its
    ``connection``, or top-level ``url``/``host``, which djhuey merges into it; redis-py's
    localhost when neither is given), a ``huey.RedisHuey`` instance's pool, or a SQLite
    or file queue's path (a file on this host). Inline (``immediate``) queues are W049's."""
    if huey is None:
        return
    if isinstance(huey, Mapping):
        if huey_immediate(huey):
            return
        connection = {k: v for k, v in huey.items() if k not in HUEY_OPTIONS}
        if isinstance(huey.get("connection"), Mapping):
            connection = {**connection, **huey["connection"]}
        connection.pop("connection", None)
        huey_class = str(huey.get("huey_class", "huey.RedisHuey"))
        if "Sqlite" in huey_class or "File" in huey_class:
            path = connection.get("filename", connection.get("path", f"{huey.get('name')}.db"))
            yield "HUEY", os.path.abspath(str(path))  # a file: this host's
        elif "Redis" in huey_class:
            # Options with no address (``blocking``, ``port``, ``db``): redis-py's localhost.
            addressed = connection.keys() & REDIS_ADDRESS_KEYS
            yield "HUEY['connection']", connection if addressed else REDIS_DEFAULT
        elif "Memory" in huey_class:
            yield "HUEY", IN_PROCESS_QUEUE
        return
    if getattr(huey, "immediate", False):
        return
    storage = getattr(huey, "storage", None)
    if type(storage).__name__ == "MemoryStorage":
        yield "HUEY", IN_PROCESS_QUEUE
    if isinstance(getattr(storage, "filename", None), str):
        yield "HUEY", os.path.abspath(storage.filename)  # type: ignore[union-attr]
    pool_options = getattr(getattr(storage, "pool", None), "connection_kwargs", None)
    if isinstance(pool_options, Mapping):
        socket_path = pool_options.get("path")
        host = pool_options.get("host", "localhost")
        yield "HUEY", f"unix:{socket_path}" if socket_path else {"host": host}


def huey_immediate(huey: Mapping[str, Any]) -> bool:
    """Whether djhuey runs this ``HUEY`` dict's tasks inline: its ``immediate``, which
    defaults to ``DEBUG``."""
    return bool(huey.get("immediate", getattr(settings, "DEBUG", False)))


def _django_q_addresses(cluster: object) -> Iterable[tuple[str, object]]:
    """django-q's broker: ``Q_CLUSTER["redis"]`` (redis-py's localhost if unset), or its
    MongoDB broker's ``Q_CLUSTER["mongo"]`` (pymongo's options: ``host``, a URI)."""
    if not isinstance(cluster, Mapping) or cluster.get("sync"):
        return
    mongo = cluster.get("mongo")
    if isinstance(mongo, Mapping):
        yield "Q_CLUSTER['mongo']", mongo.get("host", "localhost")
    if any(broker in cluster for broker in DJANGO_Q_BROKERS):
        return
    yield "Q_CLUSTER['redis']", cluster.get("redis") or REDIS_DEFAULT
