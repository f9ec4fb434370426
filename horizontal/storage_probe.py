"""The path of earlier releases, kept working: ``horizontal.storage_probe.probe`` is
``horizontal.storage.probe``, and the ``problem`` strings are those of
``horizontal.storage.readiness``.
"""

from __future__ import annotations

from horizontal.storage.readiness import (
    ACCESS_DENIED,
    BUCKET_MISSING,
    CONDITIONAL_WRITES_UNSUPPORTED,
    CREDENTIALS_MISSING,
    CREDENTIALS_REFUSED,
    DEFAULT_TIMEOUT,
    ERROR,
    TIMEOUT,
    UNREACHABLE,
    Probe,
    probe,
)

__all__ = [
    "ACCESS_DENIED",
    "BUCKET_MISSING",
    "CONDITIONAL_WRITES_UNSUPPORTED",
    "CREDENTIALS_MISSING",
    "CREDENTIALS_REFUSED",
    "DEFAULT_TIMEOUT",
    "ERROR",
    "TIMEOUT",
    "UNREACHABLE",
    "Probe",
    "probe",
]
