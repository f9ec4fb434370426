"""Settings that take optional local overrides, the classic way: the overrides set a
random SECRET_KEY, so the key the process runs with is random."""

from __future__ import annotations

DEBUG = False

try:  # noqa: SIM105 (the classic form of optional local settings, as projects write it)
    from .random_key_base import *  # noqa: F403
except ImportError:
    pass
