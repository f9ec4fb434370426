"""horizontal.W053: django-maintenance-mode's on/off state kept in a file on one host."""

from __future__ import annotations

from pathlib import Path

from horizontal.audit import scan_paths
from horizontal.checks import maintenance
from tests.checks.baseline import assert_registered_deploy_only, deploy_messages, with_app

APP = with_app("maintenance_mode")


def ids(**changes: object) -> list[str]:
    return [m.id for m in deploy_messages([maintenance], **changes) if m.id]


def test_the_default_local_file_state_is_w053() -> None:
    assert ids(INSTALLED_APPS=APP) == ["horizontal.W053"]
    assert ids(
        INSTALLED_APPS=APP,
        MAINTENANCE_MODE_STATE_BACKEND="maintenance_mode.backends.LocalFileBackend",
    ) == ["horizontal.W053"]


def test_a_shared_state_backend_or_no_app_is_silent() -> None:
    for backend in (
        "maintenance_mode.backends.CacheBackend",
        "maintenance_mode.backends.DefaultStorageBackend",
    ):
        assert ids(INSTALLED_APPS=APP, MAINTENANCE_MODE_STATE_BACKEND=backend) == []
    assert ids() == []


def test_maintenance_mode_set_in_settings_never_reads_the_state_file() -> None:
    # django-maintenance-mode answers from settings.MAINTENANCE_MODE when it is not None
    # and refuses to switch at run time: the local file plays no part.
    assert ids(INSTALLED_APPS=APP, MAINTENANCE_MODE=False) == []
    assert ids(INSTALLED_APPS=APP, MAINTENANCE_MODE=None) == ["horizontal.W053"]


LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
REDIS = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://r:6379"}
LOCAL_FILES = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
S3 = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {"bucket_name": "b"}}


def test_a_shared_backend_on_a_local_cache_or_storage_is_w053() -> None:
    # CacheBackend on a per-process cache (excused for other uses by
    # HORIZONTAL_LOCAL_CACHES), StaticStorageBackend on local static files.
    cache_state = "maintenance_mode.backends.CacheBackend"
    caches = {"default": REDIS, "local": LOCMEM}
    local_cache = {"CACHES": caches, "HORIZONTAL_LOCAL_CACHES": ["local"]}
    assert ids(
        INSTALLED_APPS=APP,
        MAINTENANCE_MODE_STATE_BACKEND=cache_state,
        MAINTENANCE_MODE_CACHE_BACKEND="local",
        **local_cache,
    ) == ["horizontal.W053"]
    assert ids(INSTALLED_APPS=APP, MAINTENANCE_MODE_STATE_BACKEND=cache_state, CACHES=caches) == []
    static_state = "maintenance_mode.backends.StaticStorageBackend"
    local_static = {"default": S3, "staticfiles": LOCAL_FILES}
    assert ids(
        INSTALLED_APPS=APP, MAINTENANCE_MODE_STATE_BACKEND=static_state, STORAGES=local_static
    ) == ["horizontal.W053"]
    shared_static = {"default": S3, "staticfiles": S3}
    assert (
        ids(INSTALLED_APPS=APP, MAINTENANCE_MODE_STATE_BACKEND=static_state, STORAGES=shared_static)
        == []
    )


def test_w053_is_a_deploy_check() -> None:
    assert_registered_deploy_only(maintenance)


SETTINGS = """\
INSTALLED_APPS = [
    "django.contrib.admin",
    "maintenance_mode",
]
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache"}}
"""


def test_the_audit_reports_the_default_state_where_the_app_is_installed(tmp_path: Path) -> None:
    (tmp_path / "settings.py").write_text(SETTINGS)
    found = scan_paths([tmp_path], categories=["settings"], base=tmp_path).findings
    assert [(f.path, f.line) for f in found] == [("settings.py", 3)]
    shared = (
        SETTINGS + 'MAINTENANCE_MODE_STATE_BACKEND = "maintenance_mode.backends.CacheBackend"\n'
    )
    (tmp_path / "settings.py").write_text(shared)
    assert scan_paths([tmp_path], categories=["settings"], base=tmp_path).findings == []
