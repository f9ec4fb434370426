"""The path of earlier releases, kept working: ``horizontal.middleware.SessionMiddleware``
is ``horizontal.sessions.middleware.SessionMiddleware``, the documented path now.
"""

from __future__ import annotations

from horizontal.sessions import middleware
from horizontal.sessions.middleware import *  # noqa: F403

__all__ = middleware.__all__
