"""Deploy warnings ``horizontal.W001``-``W005``: caches that are not shared between instances.

``LocMemCache``, ``FileBasedCache`` and ``DummyCache`` (``horizontal.audit.known``) are
matched by class, subclasses included, and so is Django's implicit ``LocMemCache`` when
``CACHES`` is not set. An alias in ``HORIZONTAL_LOCAL_CACHES`` is per-instance on purpose
and is left alone, and so is a ``LocMemCache`` alias named for the process's own memory
(``"local-memory"``, ``"locmem"``: ``known.is_process_cache_alias``). The session and
django_cron checks ask ``cache_is`` about their own cache alias.

A shared backend can still be private: ``W004`` when its ``LOCATION`` is this host
(``localhost``, loopback, a unix socket), so each instance talks to its own server (the
sessions alias is ``W026``'s); ``W005`` when ``KEY_PREFIX``, ``VERSION`` or
``KEY_FUNCTION`` differ per instance (the hostname, the pid, a random value), so the
instances share a server but never a key.
"""

from __future__ import annotations

import functools
import os
import re
import socket
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.checks import CheckMessage, Tags
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from horizontal.audit import known
from horizontal.checks._base import TAG, register
from horizontal.checks._classes import backends, is_a, is_overridden
from horizontal.conf import conf
from horizontal.sessions.names import DJANGO_REDIS_CACHE, STORE_CLASSES

__all__ = [
    "DUMMY_CACHE",
    "FILE_CACHE",
    "I001",
    "LOCMEM_CACHE",
    "NOT_SHARED_CACHES",
    "SHARED_CACHES",
    "W001",
    "W002",
    "W003",
    "W004",
    "W005",
    "cache_is",
    "check_cache_namespaces",
    "check_caches_on_this_host",
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
        DJANGO_REDIS_CACHE,
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


def I001(alias: str) -> checks.Info:
    return checks.Info(
        f"Cache {alias!r} is Django's implicit LocMemCache; nothing keeps state in it.",
        hint=(
            "Nothing to do while the cache only holds memos; before code keeps locks, "
            "counters, rate limits or sessions in it, set CACHES['default'] to Redis."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.I001",
    )


def W002(alias: str, backend: object = "FileBasedCache") -> checks.Warning:
    name = str(getattr(backend, "__name__", backend)).rsplit(".", 1)[-1]
    return checks.Warning(
        f"Cache {alias!r} is {name}: each host keeps its own cache in files.",
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


def W004(alias: str, address: str, where: str = "LOCATION") -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} is on this host: each instance talks to its own server.",
        hint=(
            f"{where} {address} is this host: point it at the shared server. For a sidecar "
            "proxy to it, silence horizontal.W004 or list the alias in HORIZONTAL_LOCAL_CACHES."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W004",
    )


def W005(alias: str, option: str, source: str) -> checks.Warning:
    return checks.Warning(
        f"Cache {alias!r} {option} comes from {source}: no key is shared.",
        hint=(
            "Build every key from what every instance shares (the key, the prefix, the "
            "version), not from this host, its process or the time it started."
            if option == "KEY_FUNCTION"
            else f"Give {option} the same value on every instance (e.g. the release id)."
        ),
        obj=f"CACHES[{alias!r}]",
        id="horizontal.W005",
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


def _cache_backends_using(known_paths: Collection[str]) -> list[tuple[str, object]]:
    local = _local_caches()
    return [
        (alias, backend)
        for alias, backend in backends(settings.CACHES)
        if alias not in local and cache_is(backend, known_paths)
    ]


def _cache_aliases_using(known_paths: Collection[str]) -> list[str]:
    return [alias for alias, _ in _cache_backends_using(known_paths)]


@register(Tags.caches, TAG, deploy=True)
def check_locmem_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    implicit = not is_overridden("CACHES")
    aliases = [
        alias
        for alias in _cache_aliases_using(LOCMEM_CACHE)
        if not known.is_process_cache_alias(alias)  # "local-memory": per process on purpose
    ]
    if aliases and implicit and not _state_kept_in_the_cache(app_configs):
        # A default the project never leans on, as the audit judges it: a note (I041's kin).
        return [I001(alias) for alias in aliases]
    return [W001(alias, implicit) for alias in aliases]


def _state_kept_in_the_cache(app_configs: Iterable[AppConfig] | None) -> bool:
    """Whether anything keeps shared state in the default cache: sessions, DRF throttles,
    allauth's or axes' limits set in settings, or the project's own code (gates, counters,
    invalidations, rate limits); with no project code to read, assume it does."""
    if session_cache_alias() is not None:
        return True
    rest = getattr(settings, "REST_FRAMEWORK", None)
    if isinstance(rest, Mapping) and rest.get("DEFAULT_THROTTLE_CLASSES"):
        return True
    if getattr(settings, "ACCOUNT_RATE_LIMITS", None) or getattr(
        settings, "ACCOUNT_LOGIN_ATTEMPTS_LIMIT", None
    ):
        return True
    if "Cache" in str(getattr(settings, "AXES_HANDLER", "")):
        return True
    from horizontal.checks.code import project_code_uses

    uses = project_code_uses(app_configs)
    return uses is None or uses.keeps_state_in_cache


@register(Tags.caches, TAG, deploy=True)
def check_file_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W002(alias, backend) for alias, backend in _cache_backends_using(FILE_CACHE)]


@register(Tags.caches, TAG, deploy=True)
def check_dummy_caches(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    return [W003(alias) for alias in _cache_aliases_using(DUMMY_CACHE)]


# -- a shared backend made private: this host, or a per-instance namespace ---------------


def shared_cache_configs() -> list[tuple[str, Mapping[str, Any]]]:
    """(alias, config) of every cache whose backend is shared by design (or a subclass)."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    caches: Mapping[str, object] = settings.CACHES
    for alias, config in caches.items():
        if not isinstance(config, Mapping):
            continue
        backend = config.get("BACKEND")
        if backend in SHARED_CACHES or (
            not cache_is(backend, NOT_SHARED_CACHES) and is_a(backend, sorted(SHARED_CACHES))
        ):
            found.append((str(alias), config))
    return found


def cache_address_on_this_host(config: Mapping[str, Any]) -> str | None:
    """The first ``LOCATION`` address of a shared cache that is this host, if any."""
    if "DatabaseCache" in str(config.get("BACKEND")):
        return None  # LOCATION is a table name; the database is W030's
    options = config.get("OPTIONS")
    sentinels = options.get("SENTINELS") if isinstance(options, Mapping) else None
    from horizontal.audit.this_host import this_host_addresses  # not at start-up

    return next(this_host_addresses([config.get("LOCATION"), sentinels], live=True), None)


# Session engines that keep sessions in SESSION_CACHE_ALIAS (subclasses count).
CACHE_SESSION_STORES = (
    "django.contrib.sessions.backends.cache.SessionStore",
    "django.contrib.sessions.backends.cached_db.SessionStore",
    *sorted(STORE_CLASSES),
)


def session_cache_alias() -> str | None:
    """The cache alias sessions live in, when the session engine keeps them in a cache."""
    store = f"{getattr(settings, 'SESSION_ENGINE', '')}.SessionStore"
    if is_a(store, CACHE_SESSION_STORES):
        return str(getattr(settings, "SESSION_CACHE_ALIAS", "default"))
    return None


@register(Tags.caches, TAG, deploy=True)
def check_caches_on_this_host(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    local = _local_caches()
    sessions = session_cache_alias()
    found: list[CheckMessage] = []
    for alias, config in shared_cache_configs():
        if alias in local or alias == sessions:  # sessions: W026, one finding per cause
            continue
        address = cache_address_on_this_host(config)
        if address is not None:
            found.append(W004(alias, address, cache_address_place(config, address)))
    return found


def cache_address_place(config: Mapping[str, Any], address: str) -> str:
    """Where a cache's address on this host is written: its ``LOCATION``, or django-redis's
    ``OPTIONS["SENTINELS"]``."""
    from horizontal.audit.this_host import this_host_addresses  # not at start-up

    if address in this_host_addresses(config.get("LOCATION"), live=True):
        return "LOCATION"
    return "OPTIONS['SENTINELS']"


def _contains_token(text: str, token: str) -> bool:
    return bool(re.search(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])", text))


MEANINGFUL_PID = 1000


def _per_instance_value(value: object) -> str | None:
    """What makes a live KEY_PREFIX/VERSION value this instance's own, if anything: the
    hostname or the pid in it as a whole word (``shop-web-7f9c`` has ``web-7f9c``)."""
    text = str(value)
    hostname = socket.gethostname()
    if _names_one_host(hostname) and _contains_token(text, hostname):
        return "the hostname"
    # A pid of a few digits (PID 1 in a container) is too likely a plain number: a
    # ``VERSION`` of 1 is not the process id. Code that calls getpid() is read instead.
    pid = os.getpid()
    if pid >= MEANINGFUL_PID and _contains_token(text, str(pid)):
        return "the process id"
    return None


def _names_one_host(hostname: str) -> bool:
    """A host name that only this instance has: a container id, a pod's hashed name, an
    address (``3f9c2a7b1d0e``, ``web-7f9c6d-x2k4p``, ``ip-10-0-1-5``). A plain word
    (``web``, ``api``: compose's ``hostname:``, shared by every replica) is a role, and a
    prefix that names it says nothing of the instance."""
    return any(c.isdigit() for c in hostname) or len(hostname) >= 12


def _key_function_source(key_function: object) -> str | None:
    """Whether a KEY_FUNCTION's own code calls a per-instance value (hostname, pid...)."""
    if isinstance(key_function, str):
        try:
            key_function = import_string(key_function)
        except (ImportError, ImproperlyConfigured):
            return None
    if not callable(key_function):
        return None
    # A partial's bound arguments are values made before the call: judged as live values.
    while isinstance(key_function, functools.partial):
        bound = [*key_function.args, *key_function.keywords.values()]
        for value in bound:
            if isinstance(value, str | int) and (why := _per_instance_value(value)):
                return why
        key_function = key_function.func
    from horizontal.audit.key_functions import per_instance_calls_in

    call = per_instance_calls_in(key_function)
    if call:
        return f"{call}()"
    return _settings_read_per_instance(key_function)


def _settings_read_per_instance(function: object) -> str | None:
    """A key function that builds keys from a setting whose live value is this instance's
    own (``settings.SERVER_ID``, bound to ``socket.gethostname()``): that setting."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))  # type: ignore[arg-type]
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "settings"
            and node.attr.isupper()
        ):
            value = getattr(settings, node.attr, None)
            if isinstance(value, str | int) and (why := _per_instance_value(value)):
                return f"settings.{node.attr} ({why})"
    return None


@register(Tags.caches, TAG, deploy=True)
def check_cache_namespaces(
    app_configs: Iterable[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    local = _local_caches()
    found: list[CheckMessage] = []
    from_source: dict[tuple[str, str], str] = {}
    module_name = getattr(settings, "SETTINGS_MODULE", None)
    namespaced = any(
        option in config
        for alias, config in shared_cache_configs()
        if alias not in local
        for option in ("KEY_PREFIX", "VERSION")
    )
    if module_name and namespaced:
        # Random values cannot be told from a live string: read the settings source.
        from horizontal.audit.cache_namespaces import per_instance_cache_options

        from_source = per_instance_cache_options(module_name)
    for alias, config in shared_cache_configs():
        if alias in local:
            continue
        for option in ("KEY_PREFIX", "VERSION"):
            if option not in config:
                continue
            source = (
                _per_instance_value(config[option])
                or from_source.get((alias, option))
                # A dict not written as an alias (built apart, then put in CACHES).
                or from_source.get(("*", option))
            )
            if source is not None:
                found.append(W005(alias, option, source))
                break
        else:
            if config.get("KEY_FUNCTION") is not None:
                source = _key_function_source(config["KEY_FUNCTION"])
                if source is not None:
                    found.append(W005(alias, "KEY_FUNCTION", source))
    return found
