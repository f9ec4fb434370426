"""A minimal cookie-keeping HTTP client for the multi-instance tests.

Cookies are kept by name only, not by port: a browser sends the cookie of
``127.0.0.1`` to every port, which is what a load balancer in front of several
instances looks like.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode


@dataclass
class Response:
    status: int
    body: bytes
    headers: Message
    elapsed: float

    def json(self) -> Any:
        return json.loads(self.body)

    def set_cookies(self) -> list[str]:
        return self.headers.get_all("Set-Cookie") or []


class Browser:
    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def get(self, url: str) -> Response:
        return self._send(urllib.request.Request(url))

    def post(self, url: str, data: dict[str, str] | None = None) -> Response:
        return self._send(urllib.request.Request(url, data=urlencode(data or {}).encode()))

    def _send(self, request: urllib.request.Request) -> Response:
        if self.cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                response = Response(answer.status, answer.read(), answer.headers, 0.0)
        except urllib.error.HTTPError as error:
            response = Response(error.code, error.read(), error.headers, 0.0)
        response.elapsed = time.monotonic() - started
        self._remember(response)
        return response

    def _remember(self, response: Response) -> None:
        for header in response.set_cookies():
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
