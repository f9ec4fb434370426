"""What a failure of the session store is, without the store itself: the error, and the
validated ``HORIZONTAL_SESSION_FAILURE`` policy.

Kept apart from ``store`` so that ``SessionMiddleware`` loads without redis-py: Django
imports every middleware class when it runs its checks, and a project may use the
middleware with another ``SESSION_ENGINE``.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from horizontal.conf import conf
from horizontal.exceptions import HorizontalError
from horizontal.sessions.names import FAILURE_POLICIES

__all__ = ["SessionStoreUnavailable", "failure_policy"]


class SessionStoreUnavailable(HorizontalError):
    """The session store could not be read or written; the session is not missing."""


def failure_policy() -> str:
    """``HORIZONTAL_SESSION_FAILURE``, validated."""
    policy = conf.SESSION_FAILURE
    if policy not in FAILURE_POLICIES:
        raise ImproperlyConfigured(
            f"HORIZONTAL_SESSION_FAILURE must be 'closed' or 'open', not {policy!r}."
        )
    return policy
