"""Find single-instance assumptions in a Django project's code, settings and images.

``scan_paths`` walks a tree and returns an ``AuditResult``; ``horizontal.audit.formats``
renders it as text, TSV, JSON or SARIF 2.1.0; ``horizontal.audit.suppress`` handles
``# horizontal: ignore[category]`` and baselines. ``manage.py audit`` and the
``horizontal.W1xx`` deploy check are thin layers over these. ``horizontal.audit.known``
is the catalogue of single-box backends that the deploy checks read too.

The names below load on first use: importing ``horizontal.audit.known`` (every web
worker does, through the checks) must not load the scanner and its detectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from horizontal.audit.findings import CATEGORIES, AuditResult, Finding
    from horizontal.audit.runner import scan_paths

__all__ = ["CATEGORIES", "AuditResult", "Finding", "scan_paths"]

_HOMES = {
    "CATEGORIES": "horizontal.audit.findings",
    "Finding": "horizontal.audit.findings",
    "AuditResult": "horizontal.audit.findings",
    "scan_paths": "horizontal.audit.runner",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(home), name)
