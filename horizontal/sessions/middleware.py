"""``horizontal.sessions.middleware.SessionMiddleware``: Django's ``SessionMiddleware``
plus the session store's failure policy (a 503 with ``Retry-After``, or going on
without the session).

``horizontal.middleware.SessionMiddleware``, the path of earlier releases, is the same
class.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from horizontal.sessions.store import SessionStoreUnavailable, failure_log, failure_policy

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

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, SessionStoreUnavailable):
            failure_log.failure("view", exception)
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
            failure_log.failure("request", session.store_error)
            return session_unavailable_response()
        try:
            return super().process_response(request, response)  # type: ignore[arg-type]
        except SessionStoreUnavailable as error:
            failure_log.failure("save", error)
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
