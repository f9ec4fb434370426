"""The path of earlier releases, kept working: ``horizontal.middleware.SessionMiddleware``
is ``horizontal.sessions.middleware.SessionMiddleware``, the documented path now.
"""

from __future__ import annotations

from horizontal.sessions.middleware import (
    RETRY_AFTER_SECONDS,
    SessionMiddleware,
    session_unavailable_response,
)

__all__ = ["RETRY_AFTER_SECONDS", "SessionMiddleware", "session_unavailable_response"]
