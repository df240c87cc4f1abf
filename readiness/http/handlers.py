"""Tornado handlers: each turns an HTTP request into one call and the result back into HTTP."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from urllib.parse import parse_qsl
from typing import TYPE_CHECKING, Any

import orjson
from loaders import SnapshotStore
from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPConnection
from tornado.web import HTTPError, RequestHandler

from readiness.cache.answers import Answer
from readiness.domain.envelope import error_body
from readiness.domain.errors import (
    ALLOWED_METHODS,
    MethodNotAllowed,
    NotFound,
    NotReady,
    ProtocolError,
    ReadinessError,
    UnknownParameter,
    UriTooLong,
)
from readiness.metrics import CONTENT_TYPE, Metrics
from readiness.domain.query import Route, parse_query_string
from readiness.http.representation import JSON_HEADERS, LEGACY_HEADERS, answer_head, represent
from readiness.service import ReadinessService

if TYPE_CHECKING:  # defined by the app module, which imports this one
    from readiness.http.app import CachePolicy

MAX_URL_BYTES = 8192
"""Longer request URLs get 414 before any parsing (docs/DECISIONS.md bad input)."""


CLOSE = ("Connection", "close")
"""The header of every response sent while draining (``Lifecycle``)."""


def close_when_sent(connection: HTTPConnection | None, sent: asyncio.Future[None]) -> None:
    """Close ``connection`` once the response whose write is ``sent`` is written: the response
    said ``Connection: close``, and RFC 9112 has the server then close it."""
    if isinstance(connection, HTTP1Connection):
        sent.add_done_callback(lambda _: connection.close())


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
        self.set_header("Access-Control-Allow-Headers", "If-None-Match, Accept-Encoding")
        self.set_header("Access-Control-Max-Age", "86400")
        self.finish()

    def write_answer(self, answer: Answer, cache_control: str) -> None:
        """Send a cached answer: gzip copy if accepted, its own ETag, 304 if the client has it.

        Setting the ETag ourselves keeps Tornado from hashing every body again (docs/CACHING.md).
        """
        headers = self.request.headers
        chosen = represent(
            answer,
            headers.get("Accept-Encoding", ""),
            headers.get("If-None-Match", ""),
            headers.get("If-Modified-Since", ""),
        )
        start_line, head = answer_head(
            self.default_headers, chosen, cache_control, self.application.settings["dates"].at(time.time())
        )
        self.set_status(start_line.code)
        # Every header is answer_head's, as the hit lane's are; RequestHandler has no public
        # call that replaces its header set (``clear`` assigns this attribute the same way).
        self._headers = head
        self.finish(chosen.body if chosen.status == 200 else None)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Render every error, ours or the framework's, as the error envelope (docs/API.md, The response)."""
        error = _client_error(status_code, kwargs.get("exc_info"), self.request.method or "")
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


REDIS_CHECKED = "readiness_redis_checked"
"""Set (True) on a request by the hit lane when it asked Redis for the answer and missed, so
the handler computes without asking again (``ReadinessService.answer``)."""


class QueryHandler(BaseHandler):
    """A route answered by ``ReadinessService`` from a parsed query: through both cache tiers,
    single-flight, the hit lane in front (``readiness/http/hits.py``), ETag/304 and gzip.

    A subclass names its ``route`` (``readiness.domain.query.Route``, whose accepted parameters the
    parser checks) and ``route_label``; the service computes its answers with the route's
    compute function (``readiness.service.COMPUTE``), or from every snapshot's summary for
    history and the catalogue.
    """

    route: Route
    route_label = "query"

    def initialize(self, service: ReadinessService, policy: CachePolicy) -> None:
        self.service = service
        self.policy = policy

    async def get(self) -> None:
        """Parse, answer through the service's tiers, send. Misses, archives and bad input
        come here; the hit lane (``readiness/http/hits.py``) has already sent current-snapshot
        tier-1 and tier-2 hits, before any handler was built."""
        query = parse_query_string(self.request.query, self.route)
        checked = getattr(self.request, REDIS_CHECKED, False)
        answer, outcome = await self.service.answer(query, self.route, redis_checked=checked)
        self.cache_outcome = outcome.value
        self.write_answer(answer, self.policy.current if query.year is None else self.policy.archive)

    head = get


class ReadinessHandler(QueryHandler):
    """``/api/v1/readiness``: the query operation (docs/API.md)."""

    route = Route.V1
    route_label = "v1"


class IndicatorsHandler(QueryHandler):
    """``/api/v1/indicators``: the indicator values as one long table (docs/API.md)."""

    route = Route.INDICATORS
    route_label = "indicators"


class HistoryHandler(QueryHandler):
    """``/api/v1/history``: scores and ranks over the Decembers and the current snapshot
    (docs/API.md), from the snapshots' summaries."""

    route = Route.HISTORY
    route_label = "history"


class SnapshotsHandler(QueryHandler):
    """``/api/v1/snapshots``: the catalogue of snapshots, indicators and the citation (docs/API.md)."""

    route = Route.SNAPSHOTS
    route_label = "snapshots"


class ChangesHandler(QueryHandler):
    """``/api/v1/snapshots/{id}/changes``: a snapshot's change report (docs/API.md)."""

    route = Route.CHANGES
    route_label = "changes"

    async def get(self, snapshot_id: str) -> None:  # type: ignore[override]  # the path's id
        """Parse, answer the report of ``snapshot_id`` (validated by the service), send."""
        query = parse_query_string(self.request.query, self.route)
        answer, outcome = await self.service.answer_changes(snapshot_id, query)
        self.cache_outcome = outcome.value
        self.write_answer(answer, self.policy.current)

    head = get  # type: ignore[assignment]  # as get: the path's id


class LegacyReadinessHandler(ReadinessHandler):
    """``/api/readiness``: v1 compatibility route, deprecated from 2027-01-01 (docs/API.md)."""

    route = Route.LEGACY
    route_label = "legacy"
    default_headers = LEGACY_HEADERS
    """Every legacy response announces its deprecation and successor (docs/DECISIONS.md)."""


class DocumentHandler(BaseHandler):
    """A fixed JSON document built at start-up: the OpenAPI description, the route index.

    It takes no parameters: like every v1 route, it answers 400 to a name it does not take
    (names beginning with ``_`` are ignored, docs/DECISIONS.md, unknown parameter names).
    """

    route_label = "openapi"

    def initialize(self, document: Answer) -> None:
        self.document = document

    def get(self) -> None:
        for name, _ in parse_qsl(self.request.query, keep_blank_values=True):
            if not name.startswith("_"):
                raise UnknownParameter(name, None, ())
        self.write_answer(self.document, "public, max-age=3600")

    head = get


class HealthHandler(BaseHandler):
    """``/healthz``: the process is alive and its event loop answers."""

    route_label = "healthz"

    def get(self) -> None:
        self.finish(b'{"status":"ok"}')

    head = get


class ReadyHandler(BaseHandler):
    """``/readyz``: a snapshot is loaded and the process is not shutting down (docs/OPERATIONS.md).

    Still 200 when CURRENT names a snapshot this process cannot serve, or the one served lost
    too many country files: every pod reads the same volume, so a 503 would take them all out
    of the Service at once. ``warnings`` says what is wrong (docs/DECISIONS.md, readiness).
    """

    route_label = "readyz"

    def initialize(self, store: SnapshotStore, max_skipped_percent: int) -> None:
        self.store = store
        self.max_skipped_percent = max_skipped_percent

    def get(self) -> None:
        current = self.store.current
        if current is None or self.application.settings["lifecycle"].draining:
            raise NotReady()
        warnings = self.store.warnings(self.max_skipped_percent)
        body = {"status": "ready", "snapshot": current.id}
        self.finish(orjson.dumps({**body, "warnings": warnings} if warnings else body))

    head = get


class MetricsHandler(BaseHandler):
    """``/metrics``: Prometheus text format."""

    route_label = "metrics"

    def initialize(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def get(self) -> None:
        self.set_header("Content-Type", CONTENT_TYPE)
        self.set_header("Cache-Control", "no-store")
        self.finish(self.metrics.render())

    head = get


class NotFoundHandler(BaseHandler):
    """Every path no route serves: 404 in the error envelope."""

    route_label = "unknown"

    def prepare(self) -> None:
        super().prepare()
        raise NotFound(self.request.path)


def _client_error(
    status_code: int,
    exc_info: tuple[type[BaseException], BaseException, TracebackType] | None,
    method: str,
) -> ReadinessError:
    error = exc_info[1] if exc_info else None
    if isinstance(error, ReadinessError):
        return error
    if status_code == 405:
        return MethodNotAllowed(method)
    if isinstance(error, HTTPError) and status_code < 500:
        return ProtocolError(status_code, f"Invalid request. {error.reason or 'Bad request'}.")
    return ProtocolError(500, "Internal error. It has been logged; please try again later.")
