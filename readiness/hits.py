"""The hit lane: in-memory answers sent before Tornado builds a RequestHandler.

Most requests after a release ask for a current-snapshot answer that tier 1 already holds,
or revalidate one (304). For them the RequestHandler is the largest cost the service can
avoid: building it (headers reset, defaults set one by one, ``initialize``), the ``_execute``
coroutine, ``finish`` and ``flush``, about 30 µs of the 140 µs a bare handler takes (the rest
is Tornado's connection and the socket; docs/PERFORMANCE.md). The lane's
delegate sees the request once its headers and body are in, answers it itself when tier 1
has the answer, and otherwise hands it to Tornado's handler delegate, which runs the handler
as usual: misses, archives, bad input (400), over-long URLs (414), every error.

What it sends is what ``ReadinessHandler.write_answer`` sends (tests compare them header by
header): the route's ``default_headers``, ``Date``, the representation chosen by
``readiness.representation``, and, like Tornado, no ``Content-Type`` or ``Content-Encoding``
on a 304 and the full ``Content-Length`` but no body for ``HEAD``. The request is counted in
the metrics and the access log like any other. It is not counted in ``Lifecycle.in_flight``:
it is answered within one call, so a drain can never find it half done.
"""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

from tornado.httputil import (
    HTTPHeaders,
    HTTPMessageDelegate,
    HTTPServerRequest,
    RequestStartLine,
    ResponseStartLine,
)
from tornado.web import Application, RequestHandler

from readiness.errors import ReadinessError
from readiness.handlers import MAX_URL_BYTES, CachePolicy, ReadinessHandler
from readiness.logs import RequestLog
from readiness.query import parse_query_string
from readiness.representation import VARY, Representation, represent
from readiness.service import CacheOutcome, ReadinessService

_STATUS_LINES = {200: ResponseStartLine("", 200, "OK"), 304: ResponseStartLine("", 304, "Not Modified")}


class HitLane:
    """Answers a query-route request from tier 1 when it can; says whether it did."""

    def __init__(self, service: ReadinessService, policy: CachePolicy, log: RequestLog) -> None:
        self.service = service
        self.policy = policy
        self.log = log
        self._second = -1
        self._date = ""

    def answer(self, request: HTTPServerRequest, handler_class: type[ReadinessHandler]) -> bool:
        """Send the tier-1 answer to a GET or HEAD ``request``; False (nothing sent) when tier 1
        does not have it or the request is not one the lane answers."""
        if len(request.uri or "") > MAX_URL_BYTES:
            return False
        try:
            query = parse_query_string(request.query)
        except ReadinessError:  # the handler parses it again and renders the error
            return False
        cached = self.service.from_memory(query, handler_class.route)
        if cached is None:
            return False
        chosen = represent(cached, request.headers.get("Accept-Encoding", ""), request.headers.get("If-None-Match", ""))
        connection = request.connection
        assert connection is not None  # a server request always has one
        connection.write_headers(
            _STATUS_LINES[chosen.status],
            self._headers(handler_class, chosen),
            b"" if request.method == "HEAD" else chosen.body,
        )
        connection.finish()
        self.log.record(request, handler_class.route_label, chosen.status, CacheOutcome.HIT.value)
        return True

    def _headers(self, handler_class: type[ReadinessHandler], chosen: Representation) -> HTTPHeaders:
        """The headers RequestHandler would send: defaults, Date, then write_answer's."""
        headers = HTTPHeaders(dict(handler_class.default_headers))
        headers["Date"] = self._http_date()
        headers["Cache-Control"] = self.policy.current
        headers["Vary"] = VARY
        headers["Etag"] = chosen.etag
        if chosen.status == 304:
            del headers["Content-Type"]  # as RequestHandler.finish: no representation headers
            return headers
        if chosen.gzipped:
            headers["Content-Encoding"] = "gzip"
        headers["Content-Length"] = str(len(chosen.body))
        return headers

    def _http_date(self) -> str:
        """The ``Date`` header, formatted once a second rather than once a request."""
        now = int(time.time())
        if now != self._second:
            self._second, self._date = now, formatdate(now, usegmt=True)
        return self._date


class HitDelegate(HTTPMessageDelegate):
    """Receives a query-route request for the lane; passes every event on to Tornado's own
    delegate, except ``finish`` when the lane answers."""

    def __init__(
        self,
        lane: HitLane,
        handler_class: type[ReadinessHandler],
        request: HTTPServerRequest,
        fallback: HTTPMessageDelegate,
    ) -> None:
        self.lane = lane
        self.handler_class = handler_class
        self.request = request
        self.fallback = fallback

    def headers_received(self, start_line: RequestStartLine | ResponseStartLine, headers: HTTPHeaders) -> Any:
        return self.fallback.headers_received(start_line, headers)

    def data_received(self, chunk: bytes) -> Any:
        return self.fallback.data_received(chunk)

    def finish(self) -> None:
        if not self.lane.answer(self.request, self.handler_class):
            self.fallback.finish()

    def on_connection_close(self) -> None:
        self.fallback.on_connection_close()


class ReadinessApplication(Application):
    """Tornado's Application, with GET and HEAD requests to the query routes sent through the
    hit lane first."""

    def __init__(self, lane: HitLane, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lane = lane

    # Tornado annotates the return as its private _HandlerDelegate; its docs promise only an
    # HTTPMessageDelegate, which is what the server needs.
    def get_handler_delegate(  # type: ignore[override]
        self,
        request: HTTPServerRequest,
        target_class: type[RequestHandler],
        target_kwargs: dict[str, Any] | None = None,
        path_args: list[bytes] | None = None,
        path_kwargs: dict[str, bytes] | None = None,
    ) -> HTTPMessageDelegate:
        """The handler's delegate, wrapped in a HitDelegate for the lane's requests."""
        delegate = super().get_handler_delegate(request, target_class, target_kwargs, path_args, path_kwargs)
        if request.method in ("GET", "HEAD") and issubclass(target_class, ReadinessHandler):
            return HitDelegate(self.lane, target_class, request, delegate)
        return delegate
