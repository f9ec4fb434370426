"""``s3_options.resolve`` against the storage objects it stands in for.

The deploy checks read S3 options without building the storage (no boto3 at start-up);
these tests build the real ``storages[alias]`` object for every known class and a
matrix of ``OPTIONS``, ``AWS_*`` settings and the environment, and require the resolved
options to equal its attributes. A new django-storages (an option, a default, a class
attribute) or a change to ``S3Storage`` fails here before the checks can drift.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from botocore.config import Config
from django.core.files.storage import storages
from django.test import override_settings

from horizontal.storage import s3_options
from horizontal.storage.s3_deadline import worst_case_seconds
from horizontal.storage.s3_options import RESOLVABLE_BACKENDS, resolve

BACKENDS = sorted(RESOLVABLE_BACKENDS)
OURS = [path for path in BACKENDS if RESOLVABLE_BACKENDS[path] == s3_options.OURS]
BUCKET = {"bucket_name": "media"}


def _case(
    options: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    return {**BUCKET, **(options or {})}, settings or {}, env or {}


# (OPTIONS, settings, environment): each option the checks read, from each source.
CASES = {
    "defaults": _case(),
    "options-overwrite-on": _case({"file_overwrite": True}),
    "options-overwrite-off": _case({"file_overwrite": False}),
    "options-endpoint-no-region": _case({"endpoint_url": "http://minio:9000"}),
    "options-region": _case({"region_name": "eu-west-1", "endpoint_url": "http://m:9000"}),
    "options-acls": _case({"default_acl": "public-read", "object_parameters": {"ACL": "x"}}),
    "options-client-config": _case(
        {"client_config": Config(read_timeout=90, retries={"max_attempts": 2})}
    ),
    "options-client-config-connect": _case({"client_config": Config(connect_timeout=1)}),
    "settings-overwrite-on": _case(settings={"AWS_S3_FILE_OVERWRITE": True}),
    "settings-overwrite-off": _case(settings={"AWS_S3_FILE_OVERWRITE": False}),
    "settings-endpoint-region": _case(
        settings={"AWS_S3_ENDPOINT_URL": "http://minio:9000", "AWS_S3_REGION_NAME": "r1"}
    ),
    "settings-acls": _case(
        settings={
            "AWS_DEFAULT_ACL": "authenticated-read",
            "AWS_S3_OBJECT_PARAMETERS": {"ACL": "public-read-write"},
        }
    ),
    "settings-client-config": _case(
        settings={"AWS_S3_CLIENT_CONFIG": Config(retries={"mode": "standard"})}
    ),
    "settings-addressing-style": _case(settings={"AWS_S3_ADDRESSING_STYLE": "path"}),
    "env-region-endpoint": _case(
        env={"AWS_REGION": "eu-central-1", "AWS_ENDPOINT_URL_S3": "http://r2:9000"}
    ),
    "env-keys": _case(env={"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}),
    "both-overwrite": _case({"file_overwrite": False}, {"AWS_S3_FILE_OVERWRITE": True}),
    "both-region": _case(
        {"region_name": "", "endpoint_url": "http://minio:9000"},
        {"AWS_S3_REGION_NAME": "r1"},
        {"AWS_REGION": "r2"},
    ),
    "both-endpoint": _case(
        {"endpoint_url": "http://a:9000"},
        {"AWS_S3_ENDPOINT_URL": "http://b:9000"},
        {"AWS_ENDPOINT_URL_S3": "http://c:9000"},
    ),
    "both-acl": _case({"default_acl": None}, {"AWS_DEFAULT_ACL": "public-read"}),
    "both-client-config": _case(
        {"client_config": Config(connect_timeout=3)},
        {"AWS_S3_CLIENT_CONFIG": Config(connect_timeout=30)},
    ),
}
# horizontal's own options, alone and with settings and the environment.
OWN_CASES = {
    "own-bounds": _case({"connect_timeout": 1, "read_timeout": 30, "max_attempts": 7}),
    "own-no-deadline": _case({"deadline": None, "max_attempts": 4}),
    "own-long-attempt": _case(
        {"deadline": 4, "client_config": Config(read_timeout=20, connect_timeout=2)}
    ),
    "own-float-attempts": _case({"max_attempts": 2.7}),
    "own-deterministic": _case({"deterministic_names": True, "file_overwrite": False}),
    "own-not-conditional": _case({"conditional_writes": False}),
    "own-with-settings": _case(
        {"deterministic_names": True}, {"AWS_S3_FILE_OVERWRITE": False}, {"AWS_REGION": "r"}
    ),
}
# Configurations that building refuses: the resolver must give no options for them.
REFUSED = {
    "unknown-option": {"no_such_option": 1},
    "absolute-location": {"location": "/media"},
    "profile-and-keys": {"session_profile": "p", "access_key": "k"},
    "half-a-cloudfront-pair": {"cloudfront_key_id": "id"},
    "bad-addressing-style": {"addressing_style": "sideways"},
}
OWN_REFUSED = {
    "zero-connect": {"connect_timeout": 0},
    "bool-attempts": {"max_attempts": True},
    "short-deadline": {"deadline": 1},
    "attempts-below-one": {"max_attempts": 0.5},
}


def _built(backend: str, options: dict[str, Any]) -> Any:
    return storages.create_storage({"BACKEND": backend, "OPTIONS": options})


def _attributes(storage: Any) -> dict[str, Any]:
    """What the checks read of a built storage."""
    return {
        "file_overwrite": storage.file_overwrite,
        "endpoint_url": storage.endpoint_url,
        "region_name": storage.region_name,
        "object_parameters": storage.object_parameters,
        "default_acl": storage.default_acl,
        "deterministic_names": getattr(storage, "deterministic_names", False),
        "refuses_overwrite": getattr(storage, "refuses_overwrite", False),
        "deadline": getattr(storage, "deadline", None),
        "worst_case_seconds": worst_case_seconds(
            storage.client_config, getattr(storage, "deadline", None)
        ),
    }


def _resolved(backend: str, options: dict[str, Any]) -> dict[str, Any]:
    found = resolve(backend, options)
    assert found is not None, f"{backend} {options} was not resolved"
    return {name: getattr(found, name) for name in _attributes_names()}


def _attributes_names() -> list[str]:
    return [
        "file_overwrite",
        "endpoint_url",
        "region_name",
        "object_parameters",
        "default_acl",
        "deterministic_names",
        "refuses_overwrite",
        "deadline",
        "worst_case_seconds",
    ]


def _params(cases: dict[str, Any], backends: list[str]) -> list[Any]:
    return [
        pytest.param(backend, *case, id=f"{name}-{backend}")
        for name, case in cases.items()
        for backend in backends
    ]


@pytest.mark.parametrize(
    ("backend", "options", "settings", "env"),
    _params(CASES, BACKENDS) + _params(OWN_CASES, OURS),
)
def test_resolved_options_are_the_built_storages(
    backend: str,
    options: dict[str, Any],
    settings: dict[str, Any],
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with override_settings(**settings):
        assert _resolved(backend, options) == _attributes(_built(backend, options))


@pytest.mark.parametrize(
    ("backend", "options"),
    [
        pytest.param(backend, {**BUCKET, **options}, id=f"{name}-{backend}")
        for cases, backends in ((REFUSED, BACKENDS), (OWN_REFUSED, OURS))
        for name, options in cases.items()
        for backend in backends
    ],
)
def test_what_building_refuses_is_not_resolved(backend: str, options: dict[str, Any]) -> None:
    with pytest.raises(Exception):  # noqa: B017  (whatever the library raises)
        _built(backend, options)
    assert resolve(backend, options) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_only_building_tells_is_left_to_building(backend: str) -> None:
    # A client_config that is no botocore Config: upstream keeps it, and the checks'
    # arithmetic on it is the built object's to fail.
    assert resolve(backend, {**BUCKET, "client_config": {"read_timeout": 5}}) is None
    # A CloudFront key pair is loaded by cryptography when the storage is built.
    pair = {"cloudfront_key_id": "id", "cloudfront_key": "pem"}
    assert resolve(backend, {**BUCKET, **pair}) is None
    # A deprecation warning, which -W error turns into a failure to build.
    assert resolve(backend, {**BUCKET, "use_threads": False}) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_known_options_are_the_installed_classes(backend: str) -> None:
    storage = _built(backend, BUCKET)
    ours = RESOLVABLE_BACKENDS[backend] == s3_options.OURS
    expected = s3_options.UPSTREAM_OPTIONS | (s3_options.OWN_OPTIONS if ours else frozenset())
    assert set(storage.get_default_settings()) == expected
    # django-storages lets a class attribute beat the default: none may shadow one.
    shadowing = [name for name in expected if hasattr(type(storage), name)]
    assert shadowing == []


def test_other_backends_are_not_resolved() -> None:
    assert resolve("tests.storage.MyS3Storage", BUCKET) is None
    assert resolve("storages.backends.s3.S3StaticStorage", BUCKET) is None
    assert resolve(object, BUCKET) is None


@pytest.mark.parametrize("package", s3_options.S3_EXTRA_PACKAGES)
def test_without_the_s3_extra_nothing_is_resolved(
    package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if not installed: the backend cannot be built, and the checks treat it as
    # they always did (an unimportable class is no S3 storage).
    monkeypatch.setitem(sys.modules, package, None)
    assert resolve("horizontal.storage.S3Storage", BUCKET) is None
