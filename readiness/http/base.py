"""``BaseHandler``: what every response of the service has in common, API and pages alike:
the route's default headers, the URL limit, requests counted in flight, the drain, the CORS
preflight, cached answers sent with ETag, 304 and gzip, and errors as the JSON envelope."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any

from tornado.httputil import HTTPHeaders
from tornado.web import HTTPError, RequestHandler

from readiness.domain.answer import Answer
from readiness.domain.envelope import error_body
from readiness.domain.errors import ALLOWED_METHODS, MethodNotAllowed, ProtocolError, ReadinessError, UriTooLong
from readiness.http.lifecycle import CLOSE, close_when_sent
from readiness.http.representation import JSON_HEADERS, KeptHeads, represent_request

ALLOWED_HEADERS = "If-None-Match, If-Modified-Since, Accept-Encoding, Range, If-Range"
"""The request headers a browser script may send (CORS preflight; docs/API.md#headers): the two
validators of a conditional request, and Accept-Encoding."""

MAX_URL_BYTES = 8192
"""Longer request URLs get 414 before any parsing (docs/DECISIONS.md#requests-and-connections)."""


class BaseHandler(RequestHandler):
    """Headers every response carries, the URL limit, CORS preflight and the error envelope."""

    route_label = "other"
    """The ``route`` label of this handler's metrics: a fixed set, never the client's path."""

    cache_outcome: str | None = None
    """Set by handlers that consult the cache; read by the access log."""

    default_headers = JSON_HEADERS
    """Sent on every response of this handler's route, errors included. The one place a
    route's headers are set: answers take them from here (``answer_head``), for the hit lane
    as for the handler, so do not add headers by overriding ``set_default_headers``."""

    def set_default_headers(self) -> None:
        """The route's default headers; no Server header (docs/CACHING.md)."""
        self.clear_header("Server")
        for name, value in self.default_headers:
            self.set_header(name, value)

    def finish(self, chunk: str | bytes | dict[str, Any] | None = None) -> asyncio.Future[None]:
        """Send the response; while draining, with ``Connection: close``, then close (``Lifecycle``)."""
        draining = self.application.settings["lifecycle"].draining
        if draining:
            self.set_header(*CLOSE)
        sent = super().finish(chunk)
        if draining:
            close_when_sent(self.request.connection, sent)
        return sent

    def prepare(self) -> None:
        """Count the request as in flight; refuse an over-long URL before anything reads it."""
        self._lifecycle = self.application.settings["lifecycle"]
        self._lifecycle.in_flight += 1
        if len(self.request.uri or "") > MAX_URL_BYTES:
            raise UriTooLong(MAX_URL_BYTES)

    def on_finish(self) -> None:
        """The request is answered: no longer in flight."""
        lifecycle = getattr(self, "_lifecycle", None)  # absent if refused before prepare (405)
        if lifecycle is not None:
            lifecycle.in_flight -= 1

    def compute_etag(self) -> str | None:
        """No per-request hashing: answers carry the ETag computed once when cached (docs/CACHING.md);
        probes, metrics and errors need none."""
        return None

    def options(self, *args: str) -> None:
        """Answer a CORS preflight: 204 with the methods and headers a browser may use."""
        self.set_status(204)
        self.set_header("Access-Control-Allow-Methods", ALLOWED_METHODS)
        self.set_header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
        self.set_header("Access-Control-Max-Age", "86400")
        self.finish()

    def write_answer(self, answer: Answer, cache_control: str) -> None:
        """Send a cached answer: gzip copy if accepted, its own ETag, 304 if the client has it.

        Setting the ETag ourselves keeps Tornado from hashing every body again (docs/CACHING.md).
        """
        date = self.application.settings["dates"].at(time.time())
        start_line, head, body = represent_request(
            self.request.headers, answer, self.default_headers, cache_control, date
        )
        self.send_response(start_line.code, head, body)

    def send_response(self, status: int, head: HTTPHeaders, body: bytes) -> None:
        """Send ``status`` with exactly the headers ``head`` and ``body`` (none for a 304 or 416).

        Every header is ``answer_head``'s, as the hit lane's are; RequestHandler has no public
        call that replaces its header set (``clear`` assigns this attribute the same way).
        A body over ``KeptHeads.WHOLE_BYTES`` goes as the hit lane sends it (``KeptHeads.wire``):
        the head with the first ``LEAD_BYTES``, then a view of the rest, never a copy."""
        self.set_status(status)
        self._headers = head
        if status == 200 and len(body) > KeptHeads.WHOLE_BYTES and self.request.method == "GET" \
                and not self.application.settings["lifecycle"].draining:
            self._send_large(body)
            return
        self.finish(body if status in (200, 206) else None)

    def _send_large(self, body: bytes) -> None:
        """``body`` sent without a copy of it. Tornado's ``write_headers`` joins the head and
        the body it is given into one new bytes object: for the readers of one computation,
        a copy each, which stays in the process while a reader does not read
        (docs/OPERATIONS.md#slow-readers). Here it is given the first ``LEAD_BYTES`` only, and
        the connection a view of the rest (the answer's own body, shared by every reader)."""
        connection = self.request.connection
        assert connection is not None  # a server request always has one
        self.write(body[:KeptHeads.LEAD_BYTES])
        self.flush()
        connection.write(memoryview(body)[KeptHeads.LEAD_BYTES:])  # type: ignore[arg-type]  # Tornado writes any bytes-like
        self.finish()

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Render every error, ours or the framework's, as the error envelope (docs/API.md#the-response)."""
        error = client_error(status_code, kwargs.get("exc_info"), self.request.method or "")
        self.set_status(error.status)
        self.set_header("Cache-Control", "no-store")
        for name, value in error.headers:
            self.set_header(name, value)
        self.finish(error_body(error))

    def log_exception(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Log only unexpected exceptions; client errors are in the access log already."""
        if not isinstance(value, ReadinessError):
            super().log_exception(typ, value, tb)


def client_error(
    status_code: int,
    exc_info: tuple[type[BaseException], BaseException, TracebackType] | None,
    method: str,
) -> ReadinessError:
    """The error a response of ``status_code`` reports: ours as raised, the framework's as a
    ProtocolError (the pages' HTML error pages say the same words as the envelope)."""
    error = exc_info[1] if exc_info else None
    if isinstance(error, ReadinessError):
        return error
    if status_code == 405:
        return MethodNotAllowed(method)
    if isinstance(error, HTTPError) and status_code < 500:
        return ProtocolError(status_code, f"Invalid request. {error.reason or 'Bad request'}.")
    return ProtocolError(500, "Internal error. It has been logged; please try again later.")
