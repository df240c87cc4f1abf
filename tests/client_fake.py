"""A scripted HTTP server on 127.0.0.1 for the official client's tests (tests/test_client_*.py):
each path answers the replies queued for it, in order (the last one again once the queue is
down to it), and every request's path and headers are recorded.

What the real service never does on demand (a 503 or 429 with ``Retry-After``, a snapshot
published between two pages, a ``Link`` that leads back) is scripted here; everything else is
tested against a real ``server.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def json(cls, value: Any, status: int = 200, **headers: str) -> Reply:
        """A JSON answer; header names with ``_`` for ``-`` (``Retry_After="1"``)."""
        named = {name.replace("_", "-"): text for name, text in headers.items()}
        return cls(status, {"Content-Type": "application/json", **named}, json.dumps(value).encode())


@dataclass(frozen=True)
class Request:
    """A request the fake received: its path with the query, and its headers."""

    path: str
    headers: dict[str, str]


class Fake:
    """The replies queued by path (with the query), and the requests received."""

    def __init__(self) -> None:
        self.replies: dict[str, list[Reply]] = {}
        self.requests: list[Request] = []
        self.url = ""
        self._lock = threading.Lock()

    def script(self, path: str, *replies: Reply) -> None:
        """Queue ``replies`` for ``path`` (the path and query as the client sends them)."""
        self.replies.setdefault(path, []).extend(replies)

    def answer(self, path: str, headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(Request(path, headers))
            queue = self.replies.get(path)
            if not queue:
                return Reply.json({"error": f"nothing scripted for {path}"}, 404)
            return queue.pop(0) if len(queue) > 1 else queue[0]


@contextmanager
def scripted() -> Iterator[Fake]:
    """A started fake (its ``url`` set, no trailing /), shut down when the block ends."""
    fake = Fake()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reply = fake.answer(self.path, {name.lower(): value for name, value in self.headers.items()})
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the requests are recorded in ``fake.requests``."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="client-fake", daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
