"""A middleware that reads the user outside any view, as "last seen" middlewares do.

A store error it triggers is turned into a 500 by Django before any
``process_exception`` can see it; the session middleware must still answer 503.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class ReadsUserMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.user.is_authenticated  # noqa: B018 - loads the session
        return self.get_response(request)
