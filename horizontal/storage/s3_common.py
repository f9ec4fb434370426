"""What the S3 backend shares with the modules that must import without boto3.

``generated`` and ``probe`` work on any storage, so they cannot import boto3,
botocore or django-storages at module level; ``s3`` can. The few facts about S3 all
three need live here: whether a storage is django-storages' ``S3Storage``, and how to
read a botocore ``ClientError`` (a plain ``response`` dict, so no botocore import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from botocore.exceptions import ClientError

__all__ = ["NAME_TAKEN_STATUSES", "error_code", "http_status", "is_s3"]

# S3 answers 412 when If-None-Match: * finds the key, 409 when another conditional
# write to the same key is still in flight.
NAME_TAKEN_STATUSES = frozenset({409, 412})


def is_s3(storage: object) -> bool:
    """Whether ``storage`` is django-storages' ``S3Storage`` (ours is one)."""
    try:
        from storages.backends.s3 import S3Storage
    except ImportError:  # no "s3" extra installed: nothing here can be S3
        return False
    return isinstance(storage, S3Storage)


def error_code(error: ClientError) -> str:
    """The S3 error code of ``error`` (``NoSuchBucket``, ``AccessDenied``...), or ""."""
    return str(error.response.get("Error", {}).get("Code", ""))


def http_status(error: ClientError) -> int | None:
    """The HTTP status S3 answered ``error`` with, if it answered at all."""
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return int(status) if status is not None else None
