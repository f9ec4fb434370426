"""A bounded client for the balancer tests: a fixed rate, a request cap, loopback only.

A few threads share one schedule (request ``i`` is sent at ``start + i / rate``, never
more than ``limit`` in all) and one logged-in session cookie. Each request checks what it
got back, so "failed" means what a user would call failed: a non-200, a connection
error, a session that no longer knows the user, a download whose bytes differ.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

Check = Callable[[int, bytes], str | None]  # status, body -> failure reason or None


@dataclass
class Outcome:
    sent_at: float  # monotonic
    seconds: float
    kind: str
    ok: bool
    status: int | None
    reason: str = ""


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass
class Summary:
    sent: int
    failed: int
    p50_ms: float
    p99_ms: float
    reasons: list[str] = field(default_factory=list)

    def line(self, label: str) -> str:
        return (
            f"{label}: sent {self.sent}, failed {self.failed}, "
            f"p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms"
        )


def summarize(outcomes: list[Outcome]) -> Summary:
    latencies = [o.seconds * 1000 for o in outcomes if o.ok]
    failed = [o for o in outcomes if not o.ok]
    return Summary(
        len(outcomes),
        len(failed),
        percentile(latencies, 0.5),
        percentile(latencies, 0.99),
        [f"{o.kind}: {o.status} {o.reason}" for o in failed[:10]],
    )


def multipart(name: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    content_type = f"multipart/form-data; boundary={boundary}"
    return head + data + f"\r\n--{boundary}--\r\n".encode(), content_type


class Session:
    """One user's cookie jar against one base URL (the balancer)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.cookie = ""

    def request(
        self,
        path: str,
        data: bytes | None = None,
        content_type: str | None = None,
        base_url: str | None = None,
        timeout: float = 30,
    ) -> tuple[int, bytes]:
        request = urllib.request.Request((base_url or self.base_url) + path, data=data)
        if content_type:
            request.add_header("Content-Type", content_type)
        if self.cookie:
            request.add_header("Cookie", self.cookie)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                status, body, headers = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as error:
            status, body, headers = error.code, error.read(), error.headers
        for header in headers.get_all("Set-Cookie") or []:
            pair = header.split(";", 1)[0]
            if pair.startswith("sessionid="):
                self.cookie = pair
        return status, body

    def log_in(self, username: str, password: str = "pw") -> None:
        form = urllib.parse.urlencode({"username": username, "password": password}).encode()
        status, body = self.request("/accounts/login/", form, "application/x-www-form-urlencoded")
        assert status == 200 and self.cookie, (status, body)

    def whoami(self, base_url: str | None = None) -> str | None:
        status, body = self.request("/accounts/whoami/", base_url=base_url)
        assert status == 200, (status, body)
        return json.loads(body)["user"]  # type: ignore[no-any-return]

    def upload(self, name: str, data: bytes) -> str:
        body, content_type = multipart(name, data)
        status, answer = self.request("/files/upload/", body, content_type)
        assert status == 200, (status, answer)
        return str(json.loads(answer)["name"])

    def download(self, name: str, base_url: str | None = None) -> bytes:
        status, body = self.request(
            f"/files/download/{urllib.parse.quote(name)}", base_url=base_url
        )
        assert status == 200, (status, body[:200])
        return body


class LoadClient:
    """Send a mix of whoami, download, session write and upload at ``rate`` per second."""

    def __init__(
        self,
        session: Session,
        username: str,
        files: dict[str, bytes],
        *,
        rate: float = 30.0,
        workers: int = 4,
        limit: int = 5000,
        slow_ms: int = 0,
    ) -> None:
        self.session, self.username, self.files = session, username, files
        self.rate, self.workers, self.limit, self.slow_ms = rate, workers, limit, slow_ms
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._next = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._start = 0.0

    def start(self) -> LoadClient:
        self._start = time.monotonic()
        self._threads = [
            threading.Thread(target=self._work, name=f"load-{i}", daemon=True)
            for i in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        return self.outcomes

    def since(self, instant: float) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if o.sent_at >= instant]

    def between(self, start: float, end: float) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if start <= o.sent_at < end]

    def _take(self) -> int | None:
        with self._lock:
            if self._next >= self.limit:
                return None
            index, self._next = self._next, self._next + 1
        delay = self._start + index / self.rate - time.monotonic()
        if delay > 0 and self._stop.wait(delay):
            return None
        return None if self._stop.is_set() else index

    def _work(self) -> None:
        while (index := self._take()) is not None:
            kind, call = self._pick(index)
            sent = time.monotonic()
            try:
                status, body = call()
                reason = self._judge(kind, status, body)
            except Exception as error:  # a reset, a refused connection, a timeout
                status, reason = None, f"{type(error).__name__}: {error}"
            outcome = Outcome(sent, time.monotonic() - sent, kind, not reason, status, reason or "")
            with self._lock:
                self.outcomes.append(outcome)

    def _pick(self, index: int) -> tuple[str, Callable[[], tuple[int, bytes]]]:
        with self._lock:
            names = list(self.files)
        if index % 10 == 9:
            name = f"load-{index}.bin"
            data = uuid.uuid4().bytes * 64
            body, content_type = multipart(name, data)
            return "upload", lambda: self._upload(body, content_type, data)
        if self.slow_ms and index % 5 == 4:
            return "slow", lambda: self.session.request(f"/accounts/slow/?ms={self.slow_ms}")
        if index % 3 == 0 and names:
            name = names[index % len(names)]
            return f"download {name}", lambda: self.session.request(
                f"/files/download/{urllib.parse.quote(name)}"
            )
        if index % 3 == 1:
            return "visit", lambda: self.session.request("/accounts/visit/", b"")
        return "whoami", lambda: self.session.request("/accounts/whoami/")

    def _upload(self, body: bytes, content_type: str, data: bytes) -> tuple[int, bytes]:
        status, answer = self.session.request("/files/upload/", body, content_type)
        if status == 200:
            with self._lock:
                self.files[str(json.loads(answer)["name"])] = data
        return status, answer

    def _judge(self, kind: str, status: int, body: bytes) -> str | None:
        if status != 200:
            return f"HTTP {status}: {body[:120]!r}"
        if kind == "whoami" and json.loads(body)["user"] != self.username:
            return f"logged out: {body!r}"
        if kind.startswith("download "):
            name = kind.removeprefix("download ")
            if body != self.files[name]:
                return f"{name}: {len(body)} bytes differ from the upload"
        return None
