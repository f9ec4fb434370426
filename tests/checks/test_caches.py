"""Deploy warnings W001-W003 (horizontal/checks/caches.py), from the SHARED baseline."""

from __future__ import annotations

import pytest
from django.conf import global_settings
from django.core import checks
from django.test import override_settings

from horizontal.checks import caches as cache_checks
from tests.checks.baseline import (
    LOCMEM,
    REDIS,
    assert_follows_the_contract,
    assert_registered_deploy_only,
    deploy_ids,
)


def test_the_shared_baseline_is_clean() -> None:
    assert deploy_ids() == []


def test_locmem_cache_is_w001() -> None:
    assert deploy_ids(CACHES={"default": LOCMEM}) == ["horizontal.W001"]


def test_one_warning_per_offending_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM, "pages": LOCMEM}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001", "horizontal.W001"]


def test_locmem_subclass_is_w001() -> None:
    caches = {"default": {"BACKEND": "tests.checks.backends.MeteredLocMemCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W001"]


def test_file_cache_is_w002() -> None:
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": "/var/tmp/cache",
        }
    }
    assert deploy_ids(CACHES=caches) == ["horizontal.W002"]


def test_dummy_cache_is_w003() -> None:
    caches = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert deploy_ids(CACHES=caches) == ["horizontal.W003"]


def test_local_caches_setting_excuses_a_deliberate_per_instance_alias() -> None:
    caches = {"default": REDIS, "l1": LOCMEM}
    assert deploy_ids(CACHES=caches, HORIZONTAL_LOCAL_CACHES=["l1"]) == []


def test_database_and_memcached_caches_are_shared() -> None:
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache"},
        "memcached": {"BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache"},
        "redis": {"BACKEND": "django.core.cache.backends.redis.RedisCache"},
    }
    assert deploy_ids(CACHES=caches) == []


def test_unimportable_backend_is_not_a_crash_and_not_a_guess() -> None:
    caches = {"default": {"BACKEND": "not_installed_anywhere.cache.FastCache"}}
    assert deploy_ids(CACHES=caches) == []


def test_explicit_locmem_hint_offers_the_opt_out() -> None:
    # override_settings cannot unset a setting, so Django's implicit default (no CACHES
    # at all) is covered end to end by test_project.py on testproject's dev settings.
    with override_settings(CACHES=global_settings.CACHES):
        [warning] = cache_checks.check_locmem_caches()
    assert warning.id == "horizontal.W001"
    assert "HORIZONTAL_LOCAL_CACHES" in (warning.hint or "")


def test_every_check_is_registered_deploy_only() -> None:
    assert_registered_deploy_only(cache_checks)


@pytest.mark.parametrize(
    "message",
    [
        cache_checks.W001("default", implicit=True),
        cache_checks.W001("default", implicit=False),
        cache_checks.W002("default"),
        cache_checks.W003("default"),
    ],
    ids=lambda m: m.id,
)
def test_message_follows_the_contract(message: checks.CheckMessage) -> None:
    assert_follows_the_contract(message)
