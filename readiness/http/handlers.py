"""Tornado handlers: each turns an HTTP request into one call and the result back into HTTP."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import parse_qsl

import orjson
from tornado.httputil import HTTPServerRequest

from loaders import Snapshot, SnapshotStore
from readiness.domain.answer import Answer
from readiness.domain.citation import (
    Citation,
    CitationFormat,
    CitationRequest,
    Retrieval,
    access_date,
    citation_answer,
    request_base,
    until_next_day,
)
from readiness.domain.errors import NotFound, NotReady, SnapshotNotFound, UnknownParameter
from readiness.domain.explain import explain_body, explained_route
from readiness.domain.query import Query
from readiness.domain.route import DOWNLOAD_TYPE, Download, Route
from readiness.http.base import BaseHandler
from readiness.http.clients import ClientPrefixes
from readiness.http.representation import LEGACY_HEADERS, CachePolicy
from readiness.metrics import CONTENT_TYPE, Metrics
from readiness.service import CacheOutcome, ReadinessService

RELEASE_CACHE_CONTROL = "public, max-age=3600"
"""``Cache-Control`` of an answer that depends on the service's release alone, never on a snapshot
(the OpenAPI document, the route index, what a query means): an hour, as a release rolls out."""

INCOMPLETE_CACHE_CONTROL = "no-store"
"""``Cache-Control`` of an answer computed without a snapshot that could not be read
(``CacheOutcome.INCOMPLETE``): no client or edge may keep it past the outage."""


class CheckedRequests:
    """The requests whose answer the hit lane asked Redis for and missed
    (``readiness/http/hits.py``), so that their handler computes without asking again
    (``ReadinessService.answer(..., redis_checked=True)``). Held weakly: a request leaves when
    it is done."""

    def __init__(self) -> None:
        self._requests: weakref.WeakSet[HTTPServerRequest] = weakref.WeakSet()

    def add(self, request: HTTPServerRequest) -> None:
        """Note that Redis was asked for ``request``'s answer and missed."""
        self._requests.add(request)

    def __contains__(self, request: HTTPServerRequest) -> bool:
        return request in self._requests


def archival(query: Query, answer: Answer, current: Snapshot | None) -> bool:
    """Whether ``answer`` is kept as long as an archive's: it never changes. One pinned to the
    current snapshot says "current": true, and ``year=`` names another snapshot once its December
    is out: both as long as the current ones."""
    return query.pinned and (current is None or answer.meta.snapshot != current.id)


class DataHandler(BaseHandler):
    """A data route of the table (``readiness/domain/routes.py``), answered by
    ``ReadinessService`` from a parsed query: through both cache tiers, single-flight, the hit
    lane in front (``readiness/http/hits.py``), ETag/304 and gzip. Which route it serves, and
    so how the query is parsed and answered, is the ``route`` it is given
    (``readiness.domain.route.Route``); the deprecated route has a handler of its own only for
    its headers (``DeprecatedDataHandler``)."""

    def initialize(
        self,
        route: Route,
        service: ReadinessService,
        policy: CachePolicy,
        checked: CheckedRequests,
        clients: ClientPrefixes,
    ) -> None:
        self.route = route
        self.route_label = route.name
        self.service = service
        self.policy = policy
        self.checked = checked
        self.clients = clients

    async def get(self, *path: str) -> None:
        """Parse, answer through the service's tiers, send. Misses, archives and bad input
        come here; the hit lane (``readiness/http/hits.py``) has already sent current-snapshot
        tier-1 and tier-2 hits, before any handler was built. ``path``: the arguments of the
        route's path (a change report's snapshot id)."""
        query = self.route.parse(self.request.query)
        answer, outcome = await self.service.answer(
            query, self.route, path, redis_checked=self.request in self.checked,
            client=self.clients.of(self.request.remote_ip),
        )
        self.cache_outcome = outcome.value
        self.write_answer(answer, INCOMPLETE_CACHE_CONTROL if outcome is CacheOutcome.INCOMPLETE
                          else self.policy.chosen(archival(query, answer, self.service.store.current)))

    head = get


class DeprecatedDataHandler(DataHandler):
    """A deprecated data route (``Route.deprecated``: ``/api/readiness``, from 2027-01-01): every
    response announces its deprecation and successor (docs/DECISIONS.md#routes-and-errors)."""

    default_headers = LEGACY_HEADERS


class DownloadHandler(BaseHandler):
    """A route's answer as a file (``readiness.domain.route.Download``: ``/api/v1/readiness.csv``):
    the route's answer to the query in the path's format, from the same cache entries as
    ``format=`` (one key), sent as ``application/octet-stream`` with its file name. Not on the
    hit lane: a download is a miss of the lane's, answered from tier 1 by the service."""

    def initialize(self, download: Download, service: ReadinessService, policy: CachePolicy,
                   clients: ClientPrefixes) -> None:
        self.download = download
        self.route_label = download.route.name
        self.service = service
        self.policy = policy
        self.clients = clients

    async def get(self, *path: str) -> None:
        """Parse (``format`` is the path's), answer through the service, send as a file."""
        query = self.download.parse(self.request.query)
        answer, outcome = await self.service.answer(query, self.download.route, path,
                                                    client=self.clients.of(self.request.remote_ip))
        self.cache_outcome = outcome.value
        self.write_answer(replace(answer, download=(DOWNLOAD_TYPE, answer.meta.filename)),
                          INCOMPLETE_CACHE_CONTROL if outcome is CacheOutcome.INCOMPLETE
                          else self.policy.chosen(archival(query, answer, self.service.store.current)))

    head = get


def data_handler(route: Route) -> type[DataHandler]:
    """The handler class of ``route``: its default headers are set before ``initialize``."""
    return DeprecatedDataHandler if route.deprecated else DataHandler


class CitationHandler(BaseHandler):
    """``/api/v1/citation``: a listed snapshot's citation as a BibTeX, RIS or CSL-JSON file
    (docs/API.md#get-apiv1citation-the-citation-as-a-file), from its manifest's words, its URL
    absolute (``base_url``, else the request's scheme and ``Host``) and dated (``clock``'s UTC
    day). A few hundred bytes formatted per request from the summaries in memory: no cache tier
    (so no answer made for one host is served to another), but an ETag, 304 and the cache policy
    of the data routes, kept until midnight UTC at most, when the access date changes."""

    route_label = "citation"

    def initialize(
        self,
        store: SnapshotStore,
        policy: CachePolicy,
        base_url: str | None,
        clock: Callable[[], float] = time.time,
        chosen: CitationFormat | None = None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.base_url = base_url
        self.clock = clock
        self.chosen = chosen
        """The format a download path names (``/api/v1/citation.bib``): the file is then sent as
        ``application/octet-stream``, and ``format`` is not taken (docs/API.md#answers-as-files)."""

    async def get(self) -> None:
        """Parse ``format`` and ``snapshot``, format the citation, send it as an attachment.
        Raises NotReady without a current snapshot, SnapshotNotFound for an id not listed."""
        request = CitationRequest.parse(self.request.query, self.chosen)
        current = self.store.current
        if current is None:
            raise NotReady()
        wanted = request.snapshot
        series = current if wanted is None or wanted == current.id else await self._listed(wanted)
        now = self.clock()
        base = self.base_url if self.base_url is not None else request_base(self.request.protocol, self.request.host)
        answer = citation_answer(Citation.of(series), request.format, Retrieval(base, access_date(now)))
        if self.chosen is not None and answer.download is not None:
            answer = replace(answer, download=(DOWNLOAD_TYPE, answer.download[1]))
        self.write_answer(answer, self.policy.within(request.snapshot is not None, until_next_day(now)))

    head = get

    async def _listed(self, snapshot_id: str) -> Snapshot:
        """The series of a snapshot the catalogue lists (its summary: no archive is loaded)."""
        summaries = self.store.summaries_now()
        if summaries is None:
            summaries = await self.store.summaries()
        found = next((summary.series for summary in summaries if summary.id == snapshot_id), None)
        if found is None:
            raise SnapshotNotFound(snapshot_id)
        return found


class DocumentHandler(BaseHandler):
    """A fixed JSON document built at start-up: the OpenAPI description, the route index.

    It takes no parameters: like every v1 route, it answers 400 to a name it does not take
    (names beginning with ``_`` are ignored, docs/DECISIONS.md#parameter-rules).
    """

    route_label = "openapi"

    def initialize(self, document: Answer) -> None:
        self.document = document

    def get(self) -> None:
        for name, _ in parse_qsl(self.request.query, keep_blank_values=True):
            if not name.startswith("_"):
                raise UnknownParameter(name, None, ())
        self.write_answer(self.document, RELEASE_CACHE_CONTROL)

    head = get


class QueryMeaningHandler(BaseHandler):
    """``/api/v1/query/{route}``: what the request's query means to the data route ``route``
    (docs/API.md#get-apiv1queryroute-what-a-query-means), parsed by that route's own parser, so
    bad input is the 400 the data route gives. Reads no snapshot: it checks form, not existence."""

    route_label = "query-meaning"

    def get(self, name: str) -> None:
        route = explained_route(name)
        self.write_answer(Answer.of(explain_body(route.parse(self.request.query), route.path)), RELEASE_CACHE_CONTROL)

    head = get


class HealthHandler(BaseHandler):
    """``/healthz``: the process is alive and its event loop answers."""

    route_label = "healthz"

    def get(self) -> None:
        self.finish(b'{"status":"ok"}')

    head = get


class ReadyHandler(BaseHandler):
    """``/readyz``: a snapshot is loaded and the process is not shutting down
    (docs/OPERATIONS.md#what-readyz-warns-about).

    Still 200 when CURRENT names a snapshot this process cannot serve, the one served lost
    too many country files, or listed snapshots cannot be read (history and the catalogue are
    then answered without them, uncached): every pod reads the same volume, so a 503 would take
    them all out of the Service at once. ``warnings`` says what is wrong
    (``SnapshotStore.warnings``; docs/DECISIONS.md#snapshots-and-archives).
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
