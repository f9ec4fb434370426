"""The path of earlier releases, kept working for settings modules that import it:
``horizontal.storage_env.storages_from_env`` is ``horizontal.storage.storages_from_env``.

Stdlib only, like ``horizontal.storage.env`` itself.
"""

from __future__ import annotations

from horizontal.storage.env import (
    DJANGO_STATICFILES,
    ENDPOINT_VARIABLES,
    LOCAL_BACKEND,
    NUMBER_VARIABLES,
    OPTION_VARIABLES,
    REGION_VARIABLES,
    S3_BACKEND,
    endpoint_from_env,
    first_set,
    region_from_env,
    s3_options_from_env,
    storages_from_env,
)

__all__ = [
    "DJANGO_STATICFILES",
    "ENDPOINT_VARIABLES",
    "LOCAL_BACKEND",
    "NUMBER_VARIABLES",
    "OPTION_VARIABLES",
    "REGION_VARIABLES",
    "S3_BACKEND",
    "endpoint_from_env",
    "first_set",
    "region_from_env",
    "s3_options_from_env",
    "storages_from_env",
]
