"""SHARED, a configuration with nothing single-instance in it, and the deploy checks run
over it with one thing changed.

The settings-check tests (``test_caches.py``, ``test_sessions.py``, ``test_databases.py``,
``test_background.py``, ``test_secret_key.py``, ``test_logging_email.py``) and the
catalogue test (``tests/audit/test_known.py``) start from SHARED, change one thing, and
assert the exact ids that come back: a rule that fires too often, or cascades into a
neighbour's id, fails there too.

``stub_apps/`` holds empty packages named like the scheduler apps the checks look for
(django_apscheduler, django_crontab, django_cron), which are not installed here: the
checks only read ``INSTALLED_APPS``, and ``override_settings(INSTALLED_APPS=...)`` needs
something importable. They go at the end of ``sys.path`` so a real install wins.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from django.core import checks
from django.core.checks.registry import registry
from django.test import override_settings

from horizontal.checks import (
    background,
    caches,
    databases,
    import_files,
    logging_email,
    maintenance,
    search,
    secret_key,
    sessions,
    storage,
)

STUB_APPS = str(Path(__file__).parent / "stub_apps")
if STUB_APPS not in sys.path:
    sys.path.append(STUB_APPS)

# The check modules that judge settings (the W0xx ids), and storage (W06x).
SETTINGS_CHECK_MODULES: tuple[ModuleType, ...] = (
    caches,
    sessions,
    databases,
    background,
    secret_key,
    logging_email,
    maintenance,
    search,
    import_files,
)
ALL_SETTINGS_CHECK_MODULES = (*SETTINGS_CHECK_MODULES, storage)

POSTGRES = {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": "app",
    "HOST": "db.internal",
    "OPTIONS": {"connect_timeout": 5},
}
REDIS = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://cache.internal:6379/0",
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
}
LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
CONSOLE_LOGGING = {
    "version": 1,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"]},
}
SHARED_STORAGES = {
    "default": {"BACKEND": "tests.checks.backends.SharedStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
SHARED: dict[str, Any] = {
    "CACHES": {"default": REDIS},
    "SESSION_ENGINE": "django.contrib.sessions.backends.db",
    "DATABASES": {"default": POSTGRES},
    "TASKS": {},
    "LOGGING": CONSOLE_LOGGING,
    "STORAGES": SHARED_STORAGES,
    "SETTINGS_MODULE": "tests.checks.settings_modules.stable_key",
}
SHARED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "horizontal",
]


def with_app(app: str) -> list[str]:
    return [*SHARED_APPS, app]


def deploy_checks(modules: Iterable[ModuleType]) -> list[Any]:
    """The registered deploy checks of ``modules``, as Django would run them."""
    names = {module.__name__ for module in modules}
    return [
        check
        for check in registry.get_checks(include_deployment_checks=True)
        if check.__module__ in names
    ]


def deploy_messages(
    modules: Iterable[ModuleType] = SETTINGS_CHECK_MODULES, **changes: Any
) -> list[checks.CheckMessage]:
    """Messages from the deploy checks of ``modules`` under SHARED plus ``changes``."""
    own = deploy_checks(modules)
    with shared_settings(**changes):
        return [message for check in own for message in check(app_configs=None)]


@contextmanager
def shared_settings(**changes: Any) -> Iterator[None]:
    """SHARED plus ``changes`` in force."""
    with warnings.catch_warnings():
        # Django warns that replacing DATABASES may surprise a test; no check here connects.
        warnings.filterwarnings("ignore", "Overriding setting DATABASES")
        with override_settings(**{**SHARED, **changes}):
            yield


def deploy_ids(**changes: Any) -> list[str]:
    """Ids from the settings checks under SHARED plus ``changes``, without the I033 note
    every network database gets."""
    return sorted(m.id for m in deploy_messages(**changes) if m.id != "horizontal.I033")


def assert_follows_the_contract(message: checks.CheckMessage) -> None:
    """Django's topic guide: a message under 80 characters, no newline, a one-line hint."""
    assert len(message.msg) < 80, message.msg
    assert "\n" not in message.msg
    assert message.hint and "\n" not in message.hint
    assert message.id.startswith("horizontal.")


def assert_registered_deploy_only(module: ModuleType) -> None:
    """Every ``check_*`` function of ``module`` is registered, as a deploy check only,
    tagged ``horizontal``."""
    functions = {
        name: value
        for name, value in vars(module).items()
        if name.startswith("check_") and callable(value)
    }
    deploy = {c for c in registry.deployment_checks if c.__module__ == module.__name__}
    plain = {c for c in registry.registered_checks if c.__module__ == module.__name__}
    assert functions and set(functions.values()) == deploy
    assert plain == set()
    assert all("horizontal" in check.tags for check in deploy)
