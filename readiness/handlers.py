"""Tornado handlers: each turns an HTTP request into one call and the result back into HTTP."""

from __future__ import annotations

from types import TracebackType
from typing import Any

import orjson
from loaders import SnapshotStore
from tornado.web import HTTPError, RequestHandler

from readiness.cache import Answer
from readiness.envelope import error_body
from readiness.errors import (
    MethodNotAllowed,
    NotFound,
    NotReady,
    ProtocolError,
    ReadinessError,
    UriTooLong,
)
from readiness.query import Query
from readiness.service import ReadinessService, Route

MAX_URL_BYTES = 8192
"""Longer request URLs get 414 before any parsing (DESIGN §3 bad input)."""

ALLOWED_METHODS = "GET, HEAD, OPTIONS"

DEPRECATION = "@1798761600"
"""RFC 9745 date of the legacy route's deprecation: 2027-01-01T00:00:00Z (SPEC 9)."""


class BaseHandler(RequestHandler):
    """Headers every response carries, the URL limit, CORS preflight and the error envelope."""

    cache_outcome: str | None = None
    """Set by handlers that consult the cache; read by the access log."""

    def set_default_headers(self) -> None:
        """JSON, CORS and nosniff on every response; no Server header (DESIGN §4)."""
        self.clear_header("Server")
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Access-Control-Allow-Origin", "*")
        self.set_header("X-Content-Type-Options", "nosniff")

    def prepare(self) -> None:
        """Refuse an over-long URL before anything reads its parameters."""
        if len(self.request.uri or "") > MAX_URL_BYTES:
            raise UriTooLong(MAX_URL_BYTES)

    def options(self, *args: str) -> None:
        """Answer a CORS preflight: 204 with the methods and headers a browser may use."""
        self.set_status(204)
        self.set_header("Access-Control-Allow-Methods", ALLOWED_METHODS)
        self.set_header("Access-Control-Allow-Headers", "If-None-Match, Accept-Encoding")
        self.set_header("Access-Control-Max-Age", "86400")
        self.finish()

    def query_params(self) -> dict[str, str]:
        """One value per parameter, the last one given (DESIGN §3, repeated parameter).

        Bytes that are not UTF-8 become U+FFFD, which no parameter accepts, so they end in
        a 400 naming the parameter, or are ignored with an unknown parameter.
        """
        return {
            name: values[-1].decode("utf-8", "replace")
            for name, values in self.request.query_arguments.items()
        }

    def write_answer(self, answer: Answer) -> None:
        """Send a cached or computed answer with its ETag, or 304 if the client has it."""
        self.set_header("Etag", answer.etag)
        if self.check_etag_header():
            self.set_status(304)
            self.finish()
        else:
            self.finish(answer.body)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Render every error, ours or the framework's, as the error envelope (SPEC 2.1)."""
        error = _client_error(status_code, kwargs.get("exc_info"), self.request.method or "")
        self.set_status(error.status)
        if error.status == 405:
            self.set_header("Allow", ALLOWED_METHODS)
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


class ReadinessHandler(BaseHandler):
    """``/api/v1/readiness``: the query operation (SPEC 4)."""

    route = Route.V1

    def initialize(self, service: ReadinessService) -> None:
        self.service = service

    async def get(self) -> None:
        query = Query.parse(self.query_params())
        answer, outcome = await self.service.answer(query, self.route)
        self.cache_outcome = outcome.value
        self.write_answer(answer)

    head = get


class LegacyReadinessHandler(ReadinessHandler):
    """``/api/readiness``: v1 compatibility route, deprecated from 2027-01-01 (SPEC 9)."""

    route = Route.LEGACY

    def set_default_headers(self) -> None:
        """Every legacy response announces its deprecation and successor (DESIGN §3)."""
        super().set_default_headers()
        self.set_header("Deprecation", DEPRECATION)
        self.set_header("Link", '</api/v1/readiness>; rel="successor-version"')


class DocumentHandler(BaseHandler):
    """A fixed JSON document built at start-up, such as the OpenAPI description."""

    def initialize(self, document: Answer) -> None:
        self.document = document

    def get(self) -> None:
        self.write_answer(self.document)

    head = get


class HealthHandler(BaseHandler):
    """``/healthz``: the process is alive and its event loop answers."""

    def get(self) -> None:
        self.finish(b'{"status":"ok"}')

    head = get


class ReadyHandler(BaseHandler):
    """``/readyz``: a current snapshot is loaded, so the service can answer (DESIGN §5)."""

    def initialize(self, store: SnapshotStore) -> None:
        self.store = store

    def get(self) -> None:
        if self.store.current is None:
            raise NotReady()
        self.finish(orjson.dumps({"status": "ready", "snapshot": self.store.current.id}))

    head = get


class NotFoundHandler(BaseHandler):
    """Every path no route serves: 404 in the error envelope."""

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
