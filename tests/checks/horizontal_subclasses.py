"""Project subclasses of horizontal's own session store and middleware, each named by the
module that defines its base (not the facade that re-exports it lazily).

``SESSION_ENGINE = "tests.checks.horizontal_subclasses"`` makes this module an engine.
"""

from __future__ import annotations

from horizontal.sessions.middleware import SessionMiddleware as HorizontalSessionMiddleware
from horizontal.sessions.store import SessionStore as HorizontalSessionStore


class SessionStore(HorizontalSessionStore):
    pass


class AuditedSessionMiddleware(HorizontalSessionMiddleware):
    pass
