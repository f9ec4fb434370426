"""``horizontal.sessions.middleware.SessionMiddleware``: Django's ``SessionMiddleware``
plus the session store's failure policy (a 503 with ``Retry-After``, or going on
without the session).

``horizontal.middleware.SessionMiddleware``, the path of earlier releases, is the same
class.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.http import HttpRequest, HttpResponse, HttpResponseBase

# Not the store: it brings redis-py, which this module must not (see ``failures``).
from horizontal.sessions.failures import SessionStoreUnavailable, failure_policy

if TYPE_CHECKING:
    from horizontal.sessions.store import SessionStore

__all__ = ["RETRY_AFTER_SECONDS", "SessionMiddleware", "session_unavailable_response"]

# Seconds a client is asked to wait before retrying after a 503. Short: a store
# outage that outlasts it keeps answering 503 cheaply, thanks to the timeouts.
RETRY_AFTER_SECONDS = 5


UNAVAILABLE_MARK = "session_store_unavailable"


def session_unavailable_response() -> HttpResponse:
    response = HttpResponse(
        "Service unavailable: the session store cannot be reached. Please retry.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    # Marks our own 503, so process_response does not replace it with another.
    setattr(response, UNAVAILABLE_MARK, True)
    return response


class SessionMiddleware(DjangoSessionMiddleware):
    """Use in place of ``django.contrib.sessions.middleware.SessionMiddleware``.

    With ``HORIZONTAL_SESSION_FAILURE = "closed"`` a request whose session cannot be
    read or written gets a 503 with ``Retry-After`` (and keeps its cookie). With
    ``"open"`` a session that cannot be read is empty for the request (the store
    does that) and a session that cannot be written is not: the response goes out
    without refreshing the cookie. A view that cannot go on without a write (login,
    logout) still gets a 503: there is nothing sensible to "proceed" with.
    """

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        """Under ASGI: the session is read and written on redis.asyncio, not in the sync
        thread Django's ``process_response`` would otherwise run in.

        The decisions stay Django's: the save this path makes ahead is the one
        ``process_response`` would make (same conditions), and ``process_response``
        then runs as usual without I/O, taking that save's outcome for its own.
        """
        self.process_request(request)  # a store for the cookie's key: no I/O
        response: HttpResponseBase = await self.get_response(request)  # type: ignore[misc]
        session: Any = getattr(request, "session", None)
        if isinstance(session, _redis_store()) and self._will_save(request, session, response):
            await session.asave_for_response()
        return self.process_response(request, response)

    @staticmethod
    def _will_save(request: HttpRequest, session: SessionStore, response: HttpResponseBase) -> bool:
        """Whether Django's process_response will call ``session.save()``."""
        empty = session.is_empty()
        if settings.SESSION_COOKIE_NAME in request.COOKIES and empty:
            return False  # the cookie is deleted, nothing saved
        wanted = session.modified or settings.SESSION_SAVE_EVERY_REQUEST
        return bool(wanted and not empty and response.status_code < 500)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, SessionStoreUnavailable):
            _log_failure("view", exception)
            return session_unavailable_response()
        return None

    def process_response(  # type: ignore[override]
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        # Django's own takes any HttpResponseBase (a streaming or file response too);
        # the stubs say HttpResponse.
        if self._store_failed_in_closed_mode(request, response):
            # The error was raised somewhere that turned it into a 500 (another
            # middleware, a template) before process_exception could see it.
            session: Any = request.session  # our SessionStore: _store_failed_in_closed_mode
            _log_failure("request", session.store_error)
            return session_unavailable_response()
        try:
            return super().process_response(request, response)  # type: ignore[arg-type]
        except SessionStoreUnavailable as error:
            _log_failure("save", error)
            if failure_policy() == "open":
                return response
            return session_unavailable_response()

    @staticmethod
    def _store_failed_in_closed_mode(request: HttpRequest, response: HttpResponseBase) -> bool:
        # Only a server error is replaced: a view that caught the store error and
        # answered on purpose keeps its answer.
        session: Any = getattr(request, "session", None)
        return (
            response.status_code >= 500
            and getattr(session, "store_error", None) is not None
            and not getattr(response, UNAVAILABLE_MARK, False)
            and failure_policy() == "closed"
        )


@cache
def _redis_store() -> type[SessionStore]:
    """The Redis engine's store class, loaded on the first request that needs it."""
    from horizontal.sessions.store import SessionStore

    return SessionStore


def _log_failure(action: str, error: BaseException) -> None:
    # Only the store raises its errors, so it is loaded by now.
    from horizontal.sessions.store import failure_log

    failure_log.failure(action, error)
