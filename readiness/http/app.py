"""The application: the route table built from a store, settings and cache tiers, and the
process-wide pieces the handlers and the hit lane share (``CachePolicy``, ``Lifecycle``,
``ReadinessApplication``). Handlers and the lane import these for their types only."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import Any

import orjson
from config import Settings
from loaders import SnapshotStore
from tornado.httputil import HTTPMessageDelegate, HTTPServerRequest, split_host_and_port
from tornado.web import Application, RequestHandler

from readiness.cache.breaker import CircuitBreaker
from readiness.cache.answers import Answer, AnswerCache
from readiness.http.handlers import (
    ChangesHandler,
    HistoryHandler,
    IndicatorsHandler,
    SnapshotsHandler,
    DocumentHandler,
    HealthHandler,
    LegacyReadinessHandler,
    MetricsHandler,
    NotFoundHandler,
    QueryHandler,
    ReadinessHandler,
    ReadyHandler,
)
from readiness.http.hits import HitDelegate, HitLane
from readiness.http.logs import AccessLog, RequestLog
from readiness.metrics import Metrics, StoreCollector
from readiness.http.openapi import api_index, openapi_document
from readiness.pages import page_routes
from readiness.cache.redis_tier import RedisTier
from readiness.http.representation import HttpDate
from readiness.service import ReadinessService, RedisTtl
from readiness.work import ComputeLimits, ComputePool


def new_metrics(
    store: SnapshotStore, breaker: CircuitBreaker | None = None, memory: AnswerCache | None = None
) -> Metrics:
    """Metrics reading the store's snapshots, the Redis breaker and the size of the in-process
    tier (``memory``) at scrape time."""
    metrics = Metrics(
        snapshot_id=lambda: None if store.current is None else store.current.id,
        breaker_open=lambda: breaker is not None and breaker.is_open,
    )
    if memory is not None:
        metrics.watch_tier("memory", memory)
    metrics.registry.register(StoreCollector(store))
    return metrics


def make_app(
    settings: Settings,
    store: SnapshotStore,
    *,
    metrics: Metrics | None = None,
    redis: RedisTier | None = None,
    lifecycle: Lifecycle | None = None,
    memory: AnswerCache | None = None,
    access: AccessLog | None = None,
) -> ReadinessApplication:
    """Wire the handlers, and the hit lane in front of the query routes, to one
    ReadinessService over ``store``.

    Without ``redis`` the service runs on the in-process tier alone: the embedded default.
    Without ``access`` the access lines go to standard error; whoever owns the log flushes it.
    """
    access = access or AccessLog(sys.stderr.buffer, settings.log_level)
    memory = AnswerCache(settings.cache_bytes) if memory is None else memory  # an empty cache is falsy
    metrics = metrics or new_metrics(store, None if redis is None else redis.breaker, memory)
    service = ReadinessService(
        store,
        memory,
        metrics,
        redis,
        RedisTtl(settings.redis_ttl_seconds, settings.archive_redis_ttl_seconds),
        ComputePool(
            ComputeLimits(settings.compute_threads, settings.compute_inline_bytes, settings.compute_queue_bytes),
            metrics,
        ),
    )
    policy = CachePolicy.of(
        settings.max_age_seconds,
        settings.archive_max_age_seconds,
        settings.stale_while_revalidate_seconds,
        settings.stale_if_error_seconds,
    )
    query_api = {"service": service, "policy": policy}
    request_log = RequestLog(metrics, access)
    lifecycle = lifecycle or Lifecycle()
    dates = HttpDate()
    return ReadinessApplication(
        HitLane(service, policy, request_log, lifecycle, dates),
        [
            (r"/api/v1/readiness/?", ReadinessHandler, query_api),
            (r"/api/readiness/?", LegacyReadinessHandler, query_api),
            (r"/api/v1/indicators/?", IndicatorsHandler, query_api),
            (r"/api/v1/history/?", HistoryHandler, query_api),
            (r"/api/v1/snapshots/?", SnapshotsHandler, query_api),
            (r"/api/v1/snapshots/([^/]+)/changes/?", ChangesHandler, query_api),
            (r"/api/v1/openapi.json", DocumentHandler, {"document": Answer.of(orjson.dumps(openapi_document()))}),
            (r"/api/v1/?", DocumentHandler, {"document": Answer.of(orjson.dumps(api_index()))}),
            (r"/healthz", HealthHandler),
            (r"/readyz", ReadyHandler, {"store": store, "max_skipped_percent": settings.max_skipped_percent}),
            *page_routes(store),
        ],
        default_handler_class=NotFoundHandler,
        log_function=request_log,
        access_log=access,
        lifecycle=lifecycle,
        dates=dates,
    )


def make_admin_app(
    store: SnapshotStore,
    metrics: Metrics,
    lifecycle: Lifecycle,
    access: AccessLog,
    max_skipped_percent: int,
) -> Application:
    """The operations port's routes: ``/metrics``, ``/healthz`` and ``/readyz``.

    A port of their own, so that a NetworkPolicy can admit Prometheus to it and nobody else
    (docs/DECISIONS.md). ``metrics``, ``lifecycle`` and ``access`` are the public app's, so
    one scrape describes the whole process and ``/readyz`` fails on both ports at SIGTERM.
    """
    return Application(
        [
            (r"/metrics", MetricsHandler, {"metrics": metrics}),
            (r"/healthz", HealthHandler),
            (r"/readyz", ReadyHandler, {"store": store, "max_skipped_percent": max_skipped_percent}),
        ],
        default_handler_class=NotFoundHandler,
        log_function=RequestLog(metrics, access),
        access_log=access,
        lifecycle=lifecycle,
    )


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """``Cache-Control`` values: answers from the current snapshot change monthly, archives never.

    Both carry ``stale-while-revalidate`` and ``stale-if-error`` (RFC 5861), which the edge
    (nginx) and CDNs honour: the service, not each cache's configuration, says how stale an
    answer may get. While revalidating: short (30 s by default), as it adds to how long the
    previous month is served after a refresh; on error (the API down, or shedding with 503):
    a day by default, as last-known answers beat an error (docs/OPERATIONS.md, "The edge").
    """

    current: str
    archive: str

    @classmethod
    def of(cls, max_age: int, archive_max_age: int, while_revalidate: int = 30, if_error: int = 86400) -> CachePolicy:
        """Public caching for ``max_age`` seconds (current) and ``archive_max_age`` (archives),
        stale for ``while_revalidate`` seconds while revalidating and ``if_error`` on error."""
        stale = f"stale-while-revalidate={while_revalidate}, stale-if-error={if_error}"
        return cls(f"public, max-age={max_age}, {stale}", f"public, max-age={archive_max_age}, {stale}")


class Lifecycle:
    """Process state shared by the handlers, the hit lane and the shutdown sequence.

    ``draining`` is set when SIGTERM arrives: readyz then fails, and every response says
    ``Connection: close`` and closes its connection (``close_when_sent``), so keep-alive
    clients open new connections, which the load balancer sends elsewhere, instead of
    sending a request on a connection the process is about to drop. ``in_flight`` counts
    requests being handled, so shutdown can wait for them.
    """

    def __init__(self) -> None:
        self.draining = False
        self.in_flight = 0

    async def drained(self, deadline_seconds: float, step: float = 0.02) -> bool:
        """Wait until no request is in flight, at most ``deadline_seconds``; True if none is."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + deadline_seconds
        while self.in_flight and loop.time() < deadline:
            await asyncio.sleep(step)
        return not self.in_flight


class ReadinessApplication(Application):
    """Tornado's Application, with GET and HEAD requests to the query routes sent through the
    hit lane first."""

    def __init__(self, lane: HitLane, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lane = lane

    def find_handler(self, request: HTTPServerRequest, **kwargs: Any) -> Any:
        """Route ``request``, an absolute-form target first rewritten to origin form
        (``to_origin_form``): the one place before routing, the lane and the handlers."""
        if not request.path.startswith("/"):
            to_origin_form(request)
        return super().find_handler(request, **kwargs)

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
        if request.method in ("GET", "HEAD") and issubclass(target_class, QueryHandler):
            return HitDelegate(self.lane, target_class, request, delegate)
        return delegate


def to_origin_form(request: HTTPServerRequest) -> None:
    """Rewrite an absolute-form request target (``GET http://host/path?query``) to origin form
    (``/path?query``), and take the host from it.

    RFC 9112 (section 3.2.2) has a server accept the absolute form, which proxies send, and
    use its authority instead of the Host header. Tornado keeps the whole URL as the path, so
    no route would match. Other forms (``*``, ``host:port``) are left to be refused (404).
    """
    scheme, separator, rest = request.path.partition("://")
    if not separator or scheme.lower() not in ("http", "https"):
        return
    authority, _, path = rest.partition("/")
    after_path = (request.uri or "")[len(request.path) :]  # "?query", or nothing
    request.path = "/" + path
    request.uri = request.path + after_path
    host = authority.rpartition("@")[2]  # without any user information
    if host:
        request.host = host
        request.host_name = split_host_and_port(host.lower())[0]
