"""Find single-instance assumptions in a Django project's code, settings and images.

``scan_paths`` walks a tree and returns an ``AuditResult``; ``horizontal.audit.formats``
renders it as text, TSV, JSON or SARIF 2.1.0; ``horizontal.audit.suppress`` handles
``# horizontal: ignore[category]`` and baselines. ``manage.py audit`` and the
``horizontal.W1xx`` deploy check are thin layers over these.
"""

from __future__ import annotations

from horizontal.audit.findings import CATEGORIES, Finding
from horizontal.audit.runner import AuditResult, scan_paths

__all__ = ["CATEGORIES", "AuditResult", "Finding", "scan_paths"]
