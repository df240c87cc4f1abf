"""The composition root: the public application and the operations application, wired from a
store, the settings and the cache tiers. Everything below is built here and nowhere else, so a
reader finds what serves a request by reading ``make_app`` (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable

import orjson
from tornado.web import Application

from config import Settings
from loaders import SnapshotStore
from readiness.budget import BudgetLimits
from readiness.cache.admission import RedisAdmission
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import RedisTier
from readiness.domain.answer import Answer
from readiness.domain.citation import CitationFormat, citation_file_path
from readiness.domain.routes import ROUTES
from readiness.http.application import ReadinessApplication
from readiness.http.clients import ClientPrefixes
from readiness.http.handlers import (
    CheckedRequests,
    CitationHandler,
    DocumentHandler,
    DownloadHandler,
    HealthHandler,
    MetricsHandler,
    NotFoundHandler,
    QueryMeaningHandler,
    ReadyHandler,
    data_handler,
)
from readiness.http.hits import HitLane
from readiness.http.lifecycle import Lifecycle
from readiness.http.logs import AccessLog, RequestLog
from readiness.http.openapi import api_index, openapi_document
from readiness.http.representation import CachePolicy, HttpDate
from readiness.metrics import Metrics, StoreCollector
from readiness.pages import UnknownPathHandler, page_routes, site_of
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
    clock: Callable[[], float] = time.time,
) -> ReadinessApplication:
    """Wire the handlers, and the hit lane in front of the data routes, to one
    ReadinessService over ``store``: a URL per route of the table (``readiness/domain/routes.py``).

    Without ``redis`` the service runs on the in-process tier alone: the embedded default.
    Without ``access`` the access lines go to standard error; whoever owns the log flushes it.
    ``clock`` (seconds since the epoch) dates the citation downloads.
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
        ComputePool(compute_limits(settings), metrics),
        RedisAdmission(settings.redis_admit_window_seconds),
        max_answer_bytes=settings.max_answer_bytes,
    )
    policy = CachePolicy.of(
        settings.max_age_seconds,
        settings.archive_max_age_seconds,
        settings.stale_while_revalidate_seconds,
        settings.stale_if_error_seconds,
    )
    checked = CheckedRequests()
    clients = ClientPrefixes(settings.client_ipv4_prefix, settings.client_ipv6_prefix)
    request_log = RequestLog(metrics, access)
    lifecycle = lifecycle or Lifecycle()
    dates = HttpDate()
    site = site_of(store, settings.public_url)
    return ReadinessApplication(
        HitLane(service, policy, request_log, lifecycle, dates, checked, clients),
        [
            *((route.pattern, data_handler(route),
               {"route": route, "service": service, "policy": policy, "checked": checked, "clients": clients})
              for route in ROUTES),
            *((download.pattern, DownloadHandler,
               {"download": download, "service": service, "policy": policy, "clients": clients})
              for route in ROUTES for download in route.downloads),
            (r"/api/v1/citation/?", CitationHandler,
             {"store": store, "policy": policy, "base_url": settings.public_url, "clock": clock}),
            *((re.escape(citation_file_path(chosen)), CitationHandler,
               {"store": store, "policy": policy, "base_url": settings.public_url, "clock": clock, "chosen": chosen})
              for chosen in CitationFormat),
            (r"/api/v1/query/(.+?)/?", QueryMeaningHandler),
            (r"/api/v1/openapi.json", DocumentHandler, {"document": Answer.of(orjson.dumps(openapi_document()))}),
            (r"/api/v1/?", DocumentHandler, {"document": Answer.of(orjson.dumps(api_index()))}),
            (r"/healthz", HealthHandler),
            (r"/readyz", ReadyHandler, {"store": store, "max_skipped_percent": settings.max_skipped_percent}),
            *page_routes(site, service, clients),
        ],
        default_handler_class=UnknownPathHandler,
        default_handler_args={"site": site},
        log_function=request_log,
        access_log=access,
        lifecycle=lifecycle,
        dates=dates,
    )


def compute_limits(settings: Settings) -> ComputeLimits:
    """The compute pool's limits and its budget (none at 0 bytes a second) from ``settings``."""
    rate = settings.compute_bytes_per_second
    budget = None if not rate else BudgetLimits(
        rate,
        overdraft=rate * settings.compute_overdraft_ms // 1000,
        max_wait=settings.compute_max_wait_ms / 1000,
        queue_per_client=settings.compute_queue_per_client,
    )
    return ComputeLimits(settings.compute_threads, settings.compute_inline_bytes, settings.compute_queue_bytes,
                         budget, settings.compute_shed_pause_ms / 1000)


def make_admin_app(
    store: SnapshotStore,
    metrics: Metrics,
    lifecycle: Lifecycle,
    access: AccessLog,
    max_skipped_percent: int,
) -> Application:
    """The operations port's routes: ``/metrics``, ``/healthz`` and ``/readyz``.

    A port of their own, so that a NetworkPolicy can admit Prometheus to it and nobody else
    (docs/DECISIONS.md#operations). ``metrics``, ``lifecycle`` and ``access`` are the public app's, so
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
