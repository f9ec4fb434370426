"""``SESSION_ENGINE = "horizontal.sessions"``: sessions in Redis that every instance sees.

The engine's public face. Django imports this module and takes its ``SessionStore``;
projects import ``end_user_sessions`` and ``SessionStoreUnavailable`` from here. Inside:

- ``store``: ``SessionStore`` and its rate-limited failure log, with ``write_plan`` (what a
  save sends, decided without I/O); ``failures``: ``SessionStoreUnavailable`` and the
  failure policy, which need no Redis client;
- ``revocation``: ending every session of a user; ``password_change``: the receiver that
  does it when a password changes;
- ``redis``: the client per cache alias, key names and stored format (internal), with
  ``redis_async`` (the ``redis.asyncio`` side, one client per event loop) and
  ``redis_common`` (the Lua scripts and redis-py's errors both sides use);
- ``names``: the engine's paths and the django-redis backend, for the checks;
- ``middleware``: ``SessionMiddleware``, which turns a store failure into a 503 or lets
  the request go on without its session.

The store and revocation load on first use: every process imports this package (the
app's ``ready()`` connects the password-change receiver), and only a project whose
sessions are in Redis needs redis-py. See docs/sessions.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from horizontal.sessions.names import ENGINE, FAILURE_POLICIES
from horizontal.sessions.password_change import connect_signals

if TYPE_CHECKING:
    from horizontal.sessions.failures import SessionStoreUnavailable
    from horizontal.sessions.revocation import aend_user_sessions, end_user_sessions
    from horizontal.sessions.store import SessionStore

__all__ = [
    "ENGINE",
    "FAILURE_POLICIES",
    "SessionStore",
    "SessionStoreUnavailable",
    "aend_user_sessions",
    "connect_signals",
    "end_user_sessions",
]

_LAZY = {
    "SessionStore": "horizontal.sessions.store",
    "SessionStoreUnavailable": "horizontal.sessions.failures",
    "aend_user_sessions": "horizontal.sessions.revocation",
    "end_user_sessions": "horizontal.sessions.revocation",
}


def __getattr__(name: str) -> object:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(home), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
