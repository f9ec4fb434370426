"""Settings that try optional local overrides which are not there: nothing is read."""

from __future__ import annotations

SECRET_KEY = "a-stable-key-from-the-environment-in-real-life-0123456789"

try:  # noqa: SIM105 (the classic form of optional local settings, as projects write it)
    from .no_such_local_settings import *  # type: ignore[import-not-found]  # noqa: F403
except ImportError:
    pass
