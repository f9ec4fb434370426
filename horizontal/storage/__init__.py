"""Files every instance can read: the one import surface of ``horizontal.storage``.

- ``S3Storage`` (``STORAGES`` backend ``"horizontal.storage.S3Storage"``) and
  ``worst_case_seconds``: in ``s3``, which needs the ``s3`` extra. They are loaded on
  first access (PEP 562), so importing this package needs no boto3: a project on
  ``FileSystemStorage`` uses the helpers below without the extra.
- ``save_generated``, ``generated_file``, ``shared_url``, ``SavedFile``: reports and
  exports in shared storage, on any backend (``generated``).
- ``storages_from_env``: ``STORAGES`` from the environment, stdlib only (``env``).
- ``probe``, ``Probe``: a bounded readiness probe of the storage (``readiness``).

See docs/files.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from horizontal.storage.env import storages_from_env
from horizontal.storage.generated import (
    GeneratedFile,
    SavedFile,
    generated_file,
    save_generated,
    shared_url,
)
from horizontal.storage.readiness import Probe, probe

if TYPE_CHECKING:
    from horizontal.storage.s3 import S3Storage, worst_case_seconds

__all__ = [
    "GeneratedFile",
    "Probe",
    "S3Storage",
    "SavedFile",
    "generated_file",
    "probe",
    "save_generated",
    "shared_url",
    "storages_from_env",
    "worst_case_seconds",
]

# Names this package had before the split that live in ``s3`` now: the public two,
# and the constants earlier releases exposed here.
_FROM_S3 = frozenset(
    {
        "S3Storage",
        "worst_case_seconds",
        "DEFAULT_CONNECT_TIMEOUT",
        "DEFAULT_READ_TIMEOUT",
        "DEFAULT_MAX_ATTEMPTS",
        "EXPECT_CONTINUE_WAIT",
        "MULTIPART_CHUNK",
        "MULTIPART_THRESHOLD",
        "NAME_ATTEMPTS",
        "NAME_TAKEN_STATUSES",
        "SPOOL_MEMORY",
    }
)
# The top-level packages of the s3 extra: an ImportError naming another is a bug to
# show as it is, not a missing extra.
_S3_EXTRA = frozenset({"boto3", "botocore", "s3transfer", "storages"})


def __getattr__(name: str) -> Any:
    if name not in _FROM_S3:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        s3 = import_module("horizontal.storage.s3")
    except ImportError as error:
        if (error.name or "").partition(".")[0] not in _S3_EXTRA:
            raise
        raise ImportError(
            f"horizontal.storage.{name} needs the s3 extra: "
            f"pip install 'django-horizontal[s3]' ({error})",
            name=error.name,
        ) from error
    value = getattr(s3, name)
    globals()[name] = value  # later lookups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _FROM_S3)
