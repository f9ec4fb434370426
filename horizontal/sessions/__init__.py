"""``SESSION_ENGINE = "horizontal.sessions"``: sessions in Redis that every instance sees.

The engine's public face. Django imports this module and takes its ``SessionStore``;
projects import ``end_user_sessions`` and ``SessionStoreUnavailable`` from here. Inside:

- ``store``: ``SessionStore`` and the failure policy, with ``write_plan`` (what a save
  sends, decided without I/O);
- ``revocation``: ending every session of a user, and the password-change receiver;
- ``redis``: the client per cache alias, key names and stored format (internal), with
  ``redis_async`` (the ``redis.asyncio`` side, one client per event loop) and
  ``redis_common`` (the Lua scripts and redis-py's errors both sides use);
- ``middleware``: ``SessionMiddleware``, which turns a store failure into a 503 or lets
  the request go on without its session.

See docs/sessions.md.
"""

from __future__ import annotations

from horizontal.sessions.revocation import aend_user_sessions, connect_signals, end_user_sessions
from horizontal.sessions.store import (
    ENGINE,
    FAILURE_POLICIES,
    SessionStore,
    SessionStoreUnavailable,
)

__all__ = [
    "ENGINE",
    "FAILURE_POLICIES",
    "SessionStore",
    "SessionStoreUnavailable",
    "aend_user_sessions",
    "connect_signals",
    "end_user_sessions",
]
