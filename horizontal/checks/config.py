"""``horizontal.E001``-``E009``: ``HORIZONTAL_*`` settings that cannot work as written.

``E007`` alone is a deploy check (``check --deploy``): an ``HORIZONTAL_INSTANCE_ID`` that
is the same on every instance, which a development machine running one instance cannot
tell from a good one.

These run on every ``check`` (and so when ``runserver``, ``migrate`` and ``runjob``
start): a lease TTL of ``"30"`` or a lease database that does not exist is a broken
deploy, not a style issue. They read settings only; ``horizontal.conf`` applies the
defaults and these checks say what is wrong before a property would fail.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import router
from django.utils.module_loading import import_string

from horizontal.checks._base import TAG, register, relative_place
from horizontal.conf import Settings
from horizontal.jobs.slots import MAX_SLOT_LENGTH
from horizontal.leases import name_problem
from horizontal.sessions.names import FAILURE_POLICIES

# JobRun.owner / Lease.owner are CharField(max_length=200).
INSTANCE_ID_MAX_LENGTH = 200


def E001(name: str, expected: str, value: object) -> checks.Error:
    return checks.Error(
        f"{name} must be {expected}, not {type(value).__name__}.",
        hint=f"Set {name} to {expected}, or remove it to use the default.",
        obj=name,
        id="horizontal.E001",
    )


def E002(name: str, expected: str, value: object) -> checks.Error:
    return checks.Error(
        f"{name} is {value!r}; it must be {expected}.",
        hint=f"Set {name} to {expected}, or remove it to use the default.",
        obj=name,
        id="horizontal.E002",
    )


def E003(alias: str) -> checks.Error:
    return checks.Error(
        f"HORIZONTAL_DATABASE is {alias!r}, which is not in DATABASES.",
        hint="Name the DATABASES alias every instance shares for leases and job runs.",
        obj="HORIZONTAL_DATABASE",
        id="horizontal.E003",
    )


def E004(alias: str) -> checks.Error:
    return checks.Error(
        f"DATABASE_ROUTERS keep horizontal's tables off {alias!r}.",
        hint="Let allow_migrate() return True for app 'horizontal' on HORIZONTAL_DATABASE.",
        obj="HORIZONTAL_DATABASE",
        id="horizontal.E004",
    )


def E005(engine: str) -> checks.Error:
    return checks.Error(
        f"HORIZONTAL_SESSION_FALLBACK_ENGINE {engine!r} cannot be imported.",
        hint="Name a session engine module, e.g. 'django.contrib.sessions.backends.db'.",
        obj="HORIZONTAL_SESSION_FALLBACK_ENGINE",
        id="horizontal.E005",
    )


def E006(alias: str) -> checks.Error:
    return checks.Error(
        f"HORIZONTAL_LOCAL_CACHES names {alias!r}, which is not in CACHES.",
        hint="List only CACHES aliases that are per-instance on purpose.",
        obj="HORIZONTAL_LOCAL_CACHES",
        id="horizontal.E006",
    )


def E009(name: str, known: str) -> checks.Error:
    return checks.Error(
        f"{name} is not a horizontal setting; did you mean {known}?",
        hint=f"Rename it to {known}: as spelt, it is ignored.",
        obj=name,
        id="horizontal.E009",
    )


# -- one rule per setting --------------------------------------------------------------------


def E007(value: str, where: str) -> checks.Error:
    return checks.Error(
        f"HORIZONTAL_INSTANCE_ID is {value!r}, the same on every instance ({where}).",
        hint=(
            "Leave it unset (hostname:pid:boot-id) or make it unique per process, e.g. "
            "from the pod name plus os.getpid()."
        ),
        obj="HORIZONTAL_INSTANCE_ID",
        id="horizontal.E007",
    )


# Values that name a role or an environment, not one instance.
GENERIC_INSTANCE_IDS = frozenset(
    {
        "web", "app", "api", "worker", "server", "django", "main", "default", "prod",
        "production", "staging", "stage", "dev", "instance", "node", "primary", "backend",
        "frontend", "site", "local", "localhost", "horizontal", "1", "0",
    }
)  # fmt: skip


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Rule(NamedTuple):
    """What one ``HORIZONTAL_*`` setting accepts: a type test, then a value test."""

    type_ok: Callable[[Any], bool]
    type_name: str
    value_ok: Callable[[Any], bool] = lambda value: True
    value_name: str = ""
    allow_none: bool = False


RULES: dict[str, Rule] = {
    "HORIZONTAL_DATABASE": Rule(_is_str, "a string", bool, "a DATABASES alias"),
    "HORIZONTAL_INSTANCE_ID": Rule(
        _is_str,
        "a string",
        lambda v: 0 < len(v) <= INSTANCE_ID_MAX_LENGTH and not any(c.isspace() for c in v),
        f"1 to {INSTANCE_ID_MAX_LENGTH} characters without whitespace",
        allow_none=True,
    ),
    "HORIZONTAL_LEASE_TTL": Rule(
        _is_number, "a number of seconds", lambda v: v > 0, "greater than 0"
    ),
    # The slot under which each release hook runs once (manage.py release).
    "HORIZONTAL_RELEASE": Rule(
        _is_str,
        "a string",
        lambda v: name_problem(v, MAX_SLOT_LENGTH) is None,
        f"1 to {MAX_SLOT_LENGTH} characters without control characters",
        allow_none=True,
    ),
    "HORIZONTAL_SESSION_FAILURE": Rule(
        _is_str,
        "a string",
        lambda v: v in FAILURE_POLICIES,
        " or ".join(repr(mode) for mode in FAILURE_POLICIES),
    ),
    "HORIZONTAL_SESSION_FALLBACK_ENGINE": Rule(
        _is_str, "a module path", bool, "a module path", allow_none=True
    ),
    "HORIZONTAL_SESSION_END_ON_PASSWORD_CHANGE": Rule(_is_bool, "True or False"),
    "HORIZONTAL_EXPECTED_INSTANCES": Rule(
        _is_count, "an integer", lambda v: v >= 1, "at least 1", allow_none=True
    ),
    "HORIZONTAL_PROCESSES_PER_INSTANCE": Rule(
        _is_count, "an integer", lambda v: v >= 1, "at least 1", allow_none=True
    ),
    "HORIZONTAL_LOCAL_CACHES": Rule(
        lambda v: isinstance(v, list | tuple) and all(isinstance(a, str) for a in v),
        "a list of cache aliases",
    ),
    "HORIZONTAL_ROLLING_SAFE_MIGRATIONS": Rule(
        lambda v: (
            isinstance(v, list | tuple | set | frozenset) and all(isinstance(n, str) for n in v)
        ),
        "a list of 'app_label.migration_name' strings",
        lambda v: all(n.count(".") == 1 and all(n.split(".")) for n in v),
        "'app_label.migration_name' entries",
    ),
    "HORIZONTAL_SCHEDULER_CONCURRENCY": Rule(
        _is_count, "an integer", lambda v: v >= 1, "at least 1"
    ),
    "HORIZONTAL_TRIGGER_SECRET": Rule(_is_str, "a string", allow_none=True),
    "HORIZONTAL_TRIGGER_MAX_SKEW": Rule(
        _is_number, "a number of seconds", lambda v: v > 0, "greater than 0"
    ),
    "HORIZONTAL_TRIGGER_MODE": Rule(
        _is_str, "a string", lambda v: v in ("run", "background"), "'run' or 'background'"
    ),
    "HORIZONTAL_TRIGGER_REQUIRE_HTTPS": Rule(_is_bool, "True or False", allow_none=True),
    # Readiness and drain (horizontal/health/): a bad value would make every probe a 500.
    "HORIZONTAL_HEALTH_TIMEOUT": Rule(
        _is_number, "a number of seconds", lambda v: v > 0, "greater than 0"
    ),
    "HORIZONTAL_HEALTH_TIMEOUTS": Rule(
        lambda v: isinstance(v, dict) and all(_is_number(t) for t in v.values()),
        "a dict of dependency name to seconds",
        lambda v: all(t > 0 for t in v.values()),
        "timeouts greater than 0",
    ),
    "HORIZONTAL_HEALTH_CACHE_SECONDS": Rule(
        _is_number, "a number of seconds", lambda v: v >= 0, "0 or more"
    ),
    "HORIZONTAL_HEALTH_DATABASES": Rule(
        lambda v: isinstance(v, list | tuple) and all(isinstance(a, str) for a in v),
        "a list of database aliases",
        allow_none=True,
    ),
    "HORIZONTAL_HEALTH_CACHES": Rule(
        lambda v: isinstance(v, list | tuple) and all(isinstance(a, str) for a in v),
        "a list of cache aliases",
    ),
    "HORIZONTAL_DRAIN_SECONDS": Rule(
        _is_number, "a number of seconds", lambda v: v >= 0, "0 or more"
    ),
    "HORIZONTAL_DRAIN_FILE": Rule(_is_str, "a path", bool, "a path", allow_none=True),
    # Monitoring (horizontal/metrics.py, horizontal/fleet.py).
    "HORIZONTAL_FLEET_INTERVAL": Rule(
        _is_number, "a number of seconds", lambda v: v >= 0, "0 (off) or more"
    ),
    "HORIZONTAL_METRICS": Rule(_is_bool, "True or False"),
    "HORIZONTAL_METRICS_PORT": Rule(
        _is_count, "a port number", lambda v: 0 < v < 65536, "1 to 65535", allow_none=True
    ),
    "HORIZONTAL_DEBUG_FAILPOINTS": Rule(_is_bool, "True or False"),
    "HORIZONTAL_FAILPOINTS": Rule(_is_str, "a string"),
}


def _setting_errors(name: str, rule: Rule) -> list[checks.Error]:
    if not hasattr(settings, name):
        return []
    value = getattr(settings, name)
    if value is None and rule.allow_none:
        return []
    if not rule.type_ok(value):
        return [E001(name, rule.type_name, value)]
    if not rule.value_ok(value):
        return [E002(name, rule.value_name, value)]
    return []


@register(TAG)
def check_setting_values(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    errors: list[checks.Error] = []
    for name, rule in RULES.items():
        errors.extend(_setting_errors(name, rule))
    return errors


def _lease_database() -> str | None:
    """``HORIZONTAL_DATABASE`` if it is a usable string (E001/E002 report otherwise)."""
    alias = getattr(settings, "HORIZONTAL_DATABASE", "default")
    return alias if isinstance(alias, str) and alias else None


@register(TAG)
def check_lease_database_exists(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    alias = _lease_database()
    passed = alias is None or alias in settings.DATABASES
    return [] if passed else [E003(str(alias))]


@register(TAG)
def check_lease_database_routed(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    alias = _lease_database()
    if alias is None or alias not in settings.DATABASES:
        return []
    # Routers answer from code, not the database: asking them is not I/O. Ask per model,
    # as migrate does, so routers that look at the model hint answer as they will there.
    models = apps.get_app_config("horizontal").get_models()
    passed = all(router.allow_migrate_model(alias, model) for model in models)
    return [] if passed else [E004(alias)]


@register(TAG)
def check_session_fallback_engine(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    engine = getattr(settings, "HORIZONTAL_SESSION_FALLBACK_ENGINE", None)
    if not isinstance(engine, str) or not engine:
        return []
    try:
        import_string(f"{engine}.SessionStore")
    except ImportError:
        return [E005(engine)]
    return []


@register(TAG)
def check_local_caches_exist(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    aliases = getattr(settings, "HORIZONTAL_LOCAL_CACHES", ())
    if not RULES["HORIZONTAL_LOCAL_CACHES"].type_ok(aliases):
        return []  # E001 already says what is wrong with it
    return [E006(alias) for alias in aliases if alias not in settings.CACHES]


def _known_setting_names() -> Sequence[str]:
    # Every property of horizontal.conf is a setting, including ones added after RULES.
    properties = (
        f"HORIZONTAL_{name}"
        for name, value in vars(Settings).items()
        if isinstance(value, property)
    )
    return tuple(sorted({*RULES, *properties}))


@register(TAG)
def check_misspelt_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    known = _known_setting_names()
    errors = []
    for name in dir(settings._wrapped):  # type: ignore[misc]  # the project's own names only
        if not name.startswith("HORIZONTAL_") or name in known:
            continue
        # Only a near miss is an error: an unrelated HORIZONTAL_* name may be the
        # project's own, and a new setting in horizontal.conf must not break anyone.
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.85)
        if close:
            errors.append(E009(name, close[0]))
    return errors


def _relative_site(where: str) -> str:
    """``/srv/app/shop/settings.py:12`` as the other checks give places: from this folder."""
    path, _, line = where.rpartition(":")
    return relative_place(path, line) if path and line.isdigit() else where


@register(TAG, deploy=True)
def check_instance_id_is_per_instance(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.Error]:
    value = getattr(settings, "HORIZONTAL_INSTANCE_ID", None)
    if not isinstance(value, str) or not value:
        return []  # unset: hostname:pid:boot-id; a wrong type is E001's
    module_name = getattr(settings, "SETTINGS_MODULE", None)
    if module_name:
        from horizontal.audit.instance_ids import (
            constant_instance_id_sites,
            release_instance_id_sites,
        )

        for where, literal in constant_instance_id_sites(module_name):
            if literal == value:  # the literal itself, or the fallback that was used
                return [E007(value, _relative_site(where))]
        releases = release_instance_id_sites(module_name)
        if releases:
            where, variable = releases[0]
            site = _relative_site(where)
            return [E007(value, f"{site}, from {variable}: the same on every instance")]
    if value.strip().lower() in GENERIC_INSTANCE_IDS:
        return [E007(value, "a role name, not an instance's")]
    return []
