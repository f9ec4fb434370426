"""The path of earlier releases, kept working: ``horizontal.storage_probe.probe`` is
``horizontal.storage.probe``, and the ``problem`` strings are those of
``horizontal.storage.readiness``.
"""

from __future__ import annotations

from horizontal.storage import readiness
from horizontal.storage.readiness import *  # noqa: F403

__all__ = readiness.__all__
