"""The hit lane: cached answers sent before Tornado builds a RequestHandler.

Most requests after a release ask for a current-snapshot answer that tier 1 already holds,
or revalidate one (304). For them the RequestHandler is the largest cost the service can
avoid: building it (headers reset, defaults set one by one, ``initialize``), the ``_execute``
coroutine, ``finish`` and ``flush``, a good part of what a bare handler takes (the rest
is Tornado's connection and the socket; docs/PERFORMANCE.md#where-the-time-went-and-what-changed).
The lane's delegate sees the request once its headers and body are in, answers it itself when tier 1
has the answer, and otherwise hands it to Tornado's handler delegate, which runs the handler
as usual: misses, archives, bad input (400), over-long URLs (414), every error.

A tier-1 miss that Redis may hold (``ReadinessService.shares``) is looked up by the lane too,
in a task of its own: a Redis hit is sent like a tier-1 hit; a miss goes to the handler,
noted in ``CheckedRequests`` so that it computes without asking Redis again. The lookup shares
the service's single-flight map, so concurrent requests for one key still make one lookup.
While it is awaited the request counts in ``Lifecycle.in_flight``.

What it sends is what ``DataHandler.write_answer`` sends, built by the same function
(``readiness.http.representation.answer_head``; tests compare the two on the wire), with the full
``Content-Length`` but no body for ``HEAD``, and ``Connection: close`` while draining. The lane
keeps each head it builds for the second its ``Date`` holds (``KeptHeads``), and the bytes it
writes it as to a keep-alive client (``readiness/http/wire.py``). The
request is counted in the metrics and the access log like any other. A tier-1 answer is not
counted in ``Lifecycle.in_flight``: it is sent within one call, so a drain can never find it
half done.

An exception in the lane never costs the client its answer: it is logged and counted
(``readiness_hit_lane_failures_total``), and if nothing was sent yet the handler answers
the request instead (with the error envelope, if it fails too); if the response was already
being sent, the connection is closed, the only signal left.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from tornado.http1connection import HTTP1Connection
from tornado.httputil import (
    HTTPHeaders,
    HTTPMessageDelegate,
    HTTPServerRequest,
    RequestStartLine,
    ResponseStartLine,
)

from readiness.domain.answer import Answer
from readiness.domain.errors import ReadinessError
from readiness.domain.query import Query
from readiness.domain.route import Route
from readiness.http.base import MAX_URL_BYTES
from readiness.http.clients import ClientPrefixes
from readiness.http.handlers import CheckedRequests, DataHandler
from readiness.http.lifecycle import CLOSE, Lifecycle, close_when_sent
from readiness.http.logs import RequestLog
from readiness.http.representation import CachePolicy, HttpDate, KeptHeads, Response, represent_request
from readiness.http.wire import prepared_connection
from readiness.service import CacheOutcome, ReadinessService

log = logging.getLogger("readiness.hits")

_TASKS: set[asyncio.Task[None]] = set()
"""Tier-2 lookups under way, held until done (the event loop keeps only weak references)."""


class HitLane:
    """Answers a data-route request from tier 1 when it can."""

    def __init__(
        self,
        service: ReadinessService,
        policy: CachePolicy,
        log: RequestLog,
        lifecycle: Lifecycle,
        dates: HttpDate,
        checked: CheckedRequests,
        clients: ClientPrefixes,
    ) -> None:
        self.service = service
        self.policy = policy
        self.log = log
        self.lifecycle = lifecycle
        self.dates = dates
        self.checked = checked
        """Where a Redis miss is noted for the handler (``DataHandler`` reads it)."""
        self.clients = clients
        self.heads = KeptHeads()

    def response(self, request: HTTPServerRequest, target: LaneTarget, query: Query) -> Response | None:
        """The tier-1 answer to a GET or HEAD ``request`` (its parsed ``query``), ready to
        send; None when tier 1 does not have it. Sends nothing."""
        client = self.clients.of(request.remote_ip)
        cached = self.service.from_memory(query, target.route, target.path, client)
        return None if cached is None else self._response(request, target, cached)

    async def shared_response(self, request: HTTPServerRequest, target: LaneTarget, query: Query) -> Response | None:
        """The tier-2 answer to a request whose query the service ``shares``, ready to send;
        None when Redis does not have it (the request is then noted in ``checked``, so the
        handler computes without asking again). Sends nothing."""
        found = await self.service.from_redis(query, target.route)
        if found is None:
            self.checked.add(request)
            return None
        return self._response(request, target, found[0])

    def _response(self, request: HTTPServerRequest, target: LaneTarget, cached: Answer) -> Response:
        date = self.dates.at(time.time())
        start_line, head, body = represent_request(
            request.headers, cached, target.handler.default_headers, self.policy.current, date, self.heads
        )
        return start_line, head, b"" if request.method == "HEAD" else body

    def send(self, request: HTTPServerRequest, route_label: str, response: Response,
             outcome: CacheOutcome = CacheOutcome.HIT) -> None:
        """Write ``response`` (with ``Connection: close`` while draining), finish the request,
        count and log it with ``outcome``.

        Its headers may be a head other responses share (``KeptHeads``). To a keep-alive
        HTTP/1.1 client (nearly every one) the response goes as one write of the bytes
        ``KeptHeads.wire`` makes (and keeps for the second), past Tornado's ``write_headers``
        (``readiness/http/wire.py``); to any other, and to every client while draining, through
        ``write_headers``, with a copy of the head, since a ``Connection`` header is then added
        to it."""
        start_line, headers, body = response
        draining = self.lifecycle.draining
        prepared = None if draining else prepared_connection(request)
        if prepared is not None:
            for piece in self.heads.wire(start_line, headers, body):
                prepared.write(piece)  # type: ignore[arg-type]  # Tornado writes any bytes-like
            prepared.finish()
        else:
            connection = request.connection
            assert connection is not None  # a server request always has one
            headers = headers.copy()
            if draining:
                headers[CLOSE[0]] = CLOSE[1]
            sent = connection.write_headers(start_line, headers, body)
            connection.finish()
            if draining:
                close_when_sent(connection, sent)
        self.log.record(request, route_label, start_line.code, outcome.value)

    def failed(self, request: HTTPServerRequest, stage: str) -> None:
        """Log and count an exception the lane raised (call from an ``except`` block)."""
        self.service.metrics.lane_failures.labels(stage).inc()
        log.exception("hit lane failed, stage %s: %s %s", stage, request.method, (request.uri or "")[:200])


@dataclass(frozen=True, slots=True)
class LaneTarget:
    """What the lane knows of a request's route: the data route, its handler class (whose
    default headers every answer of the route carries) and the arguments of its path."""

    route: Route
    handler: type[DataHandler]
    path: tuple[str, ...] = ()


def _query(request: HTTPServerRequest, target: LaneTarget) -> Query | None:
    """The request's parsed query; None when the lane leaves it to the handler (over-long
    URL, bad input: the handler parses it again and renders the error)."""
    if len(request.uri or "") > MAX_URL_BYTES:
        return None
    try:
        return target.route.parse(request.query)
    except ReadinessError:
        return None


class HitDelegate(HTTPMessageDelegate):
    """Receives a data-route request for the lane; passes every event on to Tornado's own
    delegate, except ``finish`` when the lane answers."""

    def __init__(
        self,
        lane: HitLane,
        target: LaneTarget,
        request: HTTPServerRequest,
        fallback: HTTPMessageDelegate,
    ) -> None:
        self.lane = lane
        self.target = target
        self.request = request
        self.fallback = fallback

    def headers_received(self, start_line: RequestStartLine | ResponseStartLine, headers: HTTPHeaders) -> Any:
        return self.fallback.headers_received(start_line, headers)

    def data_received(self, chunk: bytes) -> Any:
        return self.fallback.data_received(chunk)

    def finish(self) -> None:
        # The lane's one boundary: whatever it raises is logged and counted here, and the
        # client still gets an answer (the handler's) when nothing was sent.
        try:
            query = _query(self.request, self.target)
            response = None if query is None else self.lane.response(self.request, self.target, query)
            shared = None if response is not None or query is None or not self.lane.service.shares(
                query, self.target.route) else query  # the query to look up in Redis
        except Exception:
            self.lane.failed(self.request, "before_sending")
            response, shared = None, None
        if response is not None:
            self._send(response, CacheOutcome.HIT)
        elif shared is not None:
            self.lane.lifecycle.in_flight += 1  # awaited: a drain must wait for it
            task = asyncio.ensure_future(self._from_redis(shared))
            _TASKS.add(task)
            task.add_done_callback(_TASKS.discard)
        else:
            self.fallback.finish()

    async def _from_redis(self, query: Query) -> None:
        """Answer from tier 2 or hand the request to the handler, as ``finish`` does for tier 1."""
        try:
            try:
                response = await self.lane.shared_response(self.request, self.target, query)
            except Exception:
                self.lane.failed(self.request, "before_sending")
                response = None
        finally:
            self.lane.lifecycle.in_flight -= 1
        if response is None:
            self.fallback.finish()
        else:
            self._send(response, CacheOutcome.REDIS)

    def _send(self, response: Response, outcome: CacheOutcome) -> None:
        try:
            self.lane.send(self.request, self.target.route.name, response, outcome)
        except Exception:
            self.lane.failed(self.request, "while_sending")
            if isinstance(self.request.connection, HTTP1Connection):
                self.request.connection.close()

    def on_connection_close(self) -> None:
        self.fallback.on_connection_close()
