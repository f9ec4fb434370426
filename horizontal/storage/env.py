"""Build ``STORAGES`` from the environment, for a settings module.

Stdlib only on purpose: a settings module imports this before Django is set up, and a
project without the ``s3`` extra must still be able to run on local files.

    from horizontal.storage import storages_from_env

    STORAGES = storages_from_env()

(``horizontal.storage_env.storages_from_env``, the path of earlier releases, is the
same function.)

With ``AWS_STORAGE_BUCKET_NAME`` set, ``default`` is ``horizontal.storage.S3Storage``;
without it, ``default`` stays on the local file system (development), and
``check --deploy`` says so (``horizontal.W060``). ``staticfiles`` is kept as given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = [
    "BOTOCORE_ENDPOINT_VARIABLES",
    "BOTOCORE_REGION_VARIABLES",
    "endpoint_from_env",
    "first_set",
    "region_from_env",
    "s3_options_from_env",
    "storages_from_env",
]

S3_BACKEND = "horizontal.storage.S3Storage"
LOCAL_BACKEND = "django.core.files.storage.FileSystemStorage"
DJANGO_STATICFILES = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}

# Each option and the environment variables it is read from, first one set wins. The
# AWS_* names are django-storages' setting names; the others are boto3's own, so a
# platform that already exports them (AWS_REGION on Lambda and ECS, AWS_ENDPOINT_URL_S3
# for MinIO/R2 setups) needs nothing new.
# What botocore itself reads when a client is given no region or endpoint; the AWS_S3_*
# names are django-storages' settings, which botocore never reads.
BOTOCORE_REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")
BOTOCORE_ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
REGION_VARIABLES = ("AWS_S3_REGION_NAME", *BOTOCORE_REGION_VARIABLES)
ENDPOINT_VARIABLES = ("AWS_S3_ENDPOINT_URL", *BOTOCORE_ENDPOINT_VARIABLES)
OPTION_VARIABLES: dict[str, tuple[str, ...]] = {
    "bucket_name": ("AWS_STORAGE_BUCKET_NAME",),
    "region_name": REGION_VARIABLES,
    "endpoint_url": ENDPOINT_VARIABLES,
    "custom_domain": ("AWS_S3_CUSTOM_DOMAIN",),
    "location": ("AWS_LOCATION",),
    "addressing_style": ("AWS_S3_ADDRESSING_STYLE",),
}
# Numeric options: seconds, and attempts per call.
NUMBER_VARIABLES: dict[str, tuple[str, type[float] | type[int]]] = {
    "connect_timeout": ("HORIZONTAL_S3_CONNECT_TIMEOUT", float),
    "read_timeout": ("HORIZONTAL_S3_READ_TIMEOUT", float),
    "max_attempts": ("HORIZONTAL_S3_MAX_ATTEMPTS", int),
}


def first_set(names: tuple[str, ...], env: Mapping[str, str] | None = None) -> str | None:
    """The value of the first variable in ``names`` that is set and not empty."""
    source = os.environ if env is None else env
    for name in names:
        value = source.get(name, "").strip()
        if value:
            return value
    return None


def region_from_env(env: Mapping[str, str] | None = None) -> str | None:
    return first_set(REGION_VARIABLES, env)


def endpoint_from_env(env: Mapping[str, str] | None = None) -> str | None:
    return first_set(ENDPOINT_VARIABLES, env)


def s3_options_from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``OPTIONS`` for ``horizontal.storage.S3Storage``: only what the environment sets.

    Credentials are deliberately not read here: boto3 finds them itself (environment,
    shared config, instance or task role), and they never end up in ``settings``.
    """
    options: dict[str, Any] = {}
    for option, names in OPTION_VARIABLES.items():
        value = first_set(names, env)
        if value is not None:
            options[option] = value
    for option, (name, kind) in NUMBER_VARIABLES.items():
        value = first_set((name,), env)
        if value is None:
            continue
        try:
            options[option] = kind(value)
        except ValueError:
            raise ValueError(f"{name}={value!r} is not a {kind.__name__}") from None
    return options


def storages_from_env(
    env: Mapping[str, str] | None = None,
    *,
    staticfiles: Mapping[str, Any] | None = None,
    local: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """A ``STORAGES`` dict: S3 for ``default`` when a bucket is configured.

    ``staticfiles`` is returned unchanged (Django's default when omitted): static files
    ship inside every identical image and need no shared store. ``local`` is the
    ``default`` entry to use without a bucket (``FileSystemStorage`` when omitted).
    """
    options = s3_options_from_env(env)
    if "bucket_name" in options:
        default: dict[str, Any] = {"BACKEND": S3_BACKEND, "OPTIONS": options}
    else:
        default = dict(local or {"BACKEND": LOCAL_BACKEND})
    return {"default": default, "staticfiles": dict(staticfiles or DJANGO_STATICFILES)}
