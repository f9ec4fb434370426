"""``storages_from_env``: STORAGES from the environment, local files without a bucket."""

from __future__ import annotations

import pytest

from horizontal.storage import storages_from_env

STATIC = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


def test_without_a_bucket_default_stays_on_local_files() -> None:
    assert storages_from_env({}) == {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": STATIC,
    }


def test_an_empty_bucket_variable_counts_as_unset() -> None:
    storages = storages_from_env({"AWS_STORAGE_BUCKET_NAME": "  "})
    assert storages["default"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"


def test_a_bucket_switches_default_to_s3_with_every_option_given() -> None:
    env = {
        "AWS_STORAGE_BUCKET_NAME": "media",
        "AWS_S3_REGION_NAME": "eu-west-1",
        "AWS_S3_ENDPOINT_URL": "https://minio.internal:9000",
        "AWS_S3_CUSTOM_DOMAIN": "files.example.com",
        "AWS_LOCATION": "tenant-a",
        "AWS_S3_ADDRESSING_STYLE": "path",
        "HORIZONTAL_S3_CONNECT_TIMEOUT": "1.5",
        "HORIZONTAL_S3_READ_TIMEOUT": "8",
        "HORIZONTAL_S3_MAX_ATTEMPTS": "4",
    }
    assert storages_from_env(env)["default"] == {
        "BACKEND": "horizontal.storage.S3Storage",
        "OPTIONS": {
            "bucket_name": "media",
            "region_name": "eu-west-1",
            "endpoint_url": "https://minio.internal:9000",
            "custom_domain": "files.example.com",
            "location": "tenant-a",
            "addressing_style": "path",
            "connect_timeout": 1.5,
            "read_timeout": 8.0,
            "max_attempts": 4,
        },
    }


def test_boto3_variable_names_are_understood() -> None:
    env = {
        "AWS_STORAGE_BUCKET_NAME": "media",
        "AWS_DEFAULT_REGION": "us-east-2",
        "AWS_REGION": "eu-north-1",
        "AWS_ENDPOINT_URL": "http://generic:1",
        "AWS_ENDPOINT_URL_S3": "http://s3-specific:2",
    }
    options = storages_from_env(env)["default"]["OPTIONS"]
    # The more specific name wins: AWS_REGION over AWS_DEFAULT_REGION, _S3 over generic.
    assert options["region_name"] == "eu-north-1"
    assert options["endpoint_url"] == "http://s3-specific:2"


def test_credentials_never_land_in_settings() -> None:
    env = {
        "AWS_STORAGE_BUCKET_NAME": "media",
        "AWS_ACCESS_KEY_ID": "AKIA...",
        "AWS_SECRET_ACCESS_KEY": "secret",
    }
    options = storages_from_env(env)["default"]["OPTIONS"]
    assert "secret" not in repr(options) and "AKIA" not in repr(options)


def test_staticfiles_and_local_default_are_kept_as_given() -> None:
    static = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    local = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": "/x"},
    }
    storages = storages_from_env({}, staticfiles=static, local=local)
    assert storages == {"default": local, "staticfiles": static}
    with_bucket = storages_from_env({"AWS_STORAGE_BUCKET_NAME": "b"}, staticfiles=static)
    assert with_bucket["staticfiles"] == static


def test_a_timeout_that_is_not_a_number_is_a_clear_error() -> None:
    env = {"AWS_STORAGE_BUCKET_NAME": "b", "HORIZONTAL_S3_READ_TIMEOUT": "5s"}
    with pytest.raises(ValueError, match="HORIZONTAL_S3_READ_TIMEOUT='5s' is not a float"):
        storages_from_env(env)


def test_reads_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_STORAGE_BUCKET_NAME", "from-env")
    assert storages_from_env()["default"]["OPTIONS"] == {"bucket_name": "from-env"}


def test_hardening_18_docs_files_documents_every_argument_and_the_thumbnail_recipe() -> None:
    # storages_from_env(staticfiles=...) was not documented; docs/files.md did not say that
    # thumbnail libraries writing deterministic names fight "names are never reused".
    import inspect
    from pathlib import Path

    files_md = (Path(__file__).resolve().parents[2] / "docs" / "files.md").read_text()
    keyword_only = [
        name
        for name, parameter in inspect.signature(storages_from_env).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert keyword_only == ["staticfiles", "local"]
    assert all(f"`{name}=`" in files_md for name in keyword_only), keyword_only
    for library in ("django-imagekit", "sorl-thumbnail", "easy-thumbnails"):
        assert library in files_md, library
    assert '"deterministic_names": True' in files_md  # the recipe's alias
