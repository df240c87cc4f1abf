"""Prometheus metrics, in a registry per application (so tests can build many apps)."""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from loaders import SnapshotStore

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"})
"""Methods counted by name; any other a client invents is counted as "other" (bounded labels)."""

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_LE = (*(repr(bound) for bound in _LATENCY_BUCKETS), "+Inf")
"""The ``le`` label of each latency bucket, as prometheus_client's Histogram writes these bounds
(tests/test_admin.py compares the two expositions)."""

_CREATED = os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False").lower() not in ("true", "1", "t")
"""Whether ``_created`` series are exposed: prometheus_client's own switch, read as it reads it."""


class Metrics:
    """Request counts and latency by route and status, cache lookups by tier and outcome,
    computations, the Redis breaker and the served snapshot (docs/OPERATIONS.md).
    """

    def __init__(self, snapshot_id: Callable[[], str | None], breaker_open: Callable[[], bool]) -> None:
        self.registry = CollectorRegistry()
        self._answered = _AnsweredRequests()
        self.registry.register(self._answered)
        self.cache = Counter(
            "readiness_cache_lookups", "Answer cache lookups by tier (memory, redis) and outcome.",
            ["tier", "outcome"], registry=self.registry,
        )
        self.redis_writes = Counter(
            "readiness_redis_writes", "Answers offered to Redis: written, or too_large (not written).",
            ["outcome"], registry=self.registry,
        )
        self.computations = Counter(
            "readiness_answers_computed", "Answers computed from a snapshot (cache misses).",
            registry=self.registry,
        )
        self.lane_failures = Counter(
            "readiness_hit_lane_failures",
            "Exceptions in the hit lane, logged; stage before_sending: the handler answered instead.",
            ["stage"], registry=self.registry,
        )
        breaker = Gauge(
            "readiness_redis_breaker_open", "1 while the Redis circuit breaker is open.",
            registry=self.registry,
        )
        breaker.set_function(lambda: 1.0 if breaker_open() else 0.0)
        self.registry.register(_SnapshotCollector(snapshot_id))
        # The compute pool (readiness/work.py): misses refused, and the work admitted.
        self.compute_shed = Counter(
            "readiness_compute_shed", "Uncached answers refused (503) because the compute pool was full.",
            registry=self.registry,
        )
        self.compute_queue = Gauge(
            "readiness_compute_queue", "Computations admitted to the compute pool: running or waiting.",
            registry=self.registry,
        )
        self.compute_queue_bytes = Gauge(
            "readiness_compute_queue_bytes", "Estimated bytes of the answers admitted to the compute pool.",
            registry=self.registry,
        )
        self.compute_waiting = Gauge(
            "readiness_compute_waiting",
            "Uncached answers waiting for their client's turn in the compute budget (readiness/budget.py).",
            registry=self.registry,
        )
        # --- process, cache tier sizes and connections: read at scrape time (server) ---
        ProcessCollector(registry=self.registry)
        self._tiers = _TierCollector()
        self.registry.register(self._tiers)
        self._connections = _ConnectionCollector()
        self.registry.register(self._connections)
        # --- end of that block ---
        self.memory_hit = self.cache.labels("memory", "hit")
        self.memory_miss = self.cache.labels("memory", "miss")
        self._series: dict[tuple[str, str, int], tuple[_Count, _Latency]] = {}
        # The compute budget (readiness/work.py) and Redis admission (readiness/service.py):
        self.compute_over_budget = Counter(
            "readiness_compute_over_budget",
            "Uncached answers refused (503) because the compute budget was spent (counted in compute_shed too).",
            registry=self.registry,
        )
        self.redis_deferred = Counter(
            "readiness_redis_deferred",
            "Computed answers kept out of Redis until asked for again within the admission window.",
            registry=self.registry,
        )

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """Count one answered request and its latency.

        The series are looked up once per (route, method, status) and kept: looking them up
        by their labels on every request would be a visible share of a cache hit's cost
        (docs/PERFORMANCE.md#where-the-time-went-and-what-changed).
        """
        series = self._series.get((route, method, status))
        if series is None:
            counted = method if method in _METHODS else "other"
            series = self._answered.series(route, counted, str(status))
            if method in _METHODS:
                self._series[(route, method, status)] = series
        series[0].value += 1
        series[1].observe(seconds)

    def watch_tier(self, tier: str, cache: SizedTier) -> None:
        """Report ``cache``'s entries, bytes, capacity and evictions under ``tier`` at each scrape."""
        self._tiers.tiers[tier] = cache

    def watch_connections(self, listener: str, counts: ConnectionCounts) -> None:
        """Report a listener's open, capped, idle-closed and refused connections at each scrape."""
        self._connections.listeners[listener] = counts

    def render(self) -> bytes:
        """The text exposition format, for ``/metrics``."""
        return generate_latest(self.registry)


class _Count:
    """One request counter series: its count, and when it was first counted (``_created``)."""

    __slots__ = ("value", "created")

    def __init__(self) -> None:
        self.value = 0
        self.created = time.time()


class _Latency:
    """One route's latency histogram: requests per bucket (the last is +Inf), their sum, and
    when it was first observed (``_created``)."""

    __slots__ = ("buckets", "sum", "created")

    def __init__(self) -> None:
        self.buckets = [0] * len(_LE)
        self.sum = 0.0
        self.created = time.time()

    def observe(self, seconds: float) -> None:
        """Count one request: in the first bucket whose bound is at least ``seconds``."""
        self.buckets[bisect_left(_LATENCY_BUCKETS, seconds)] += 1
        self.sum += seconds


class _AnsweredRequests(Collector):
    """``readiness_http_requests_total{route,method,status}`` and the histogram
    ``readiness_http_request_duration_seconds{route}``: counted in plain numbers as requests
    are answered, turned into samples at each scrape.

    prometheus_client's ``Counter.inc`` and ``Histogram.observe`` take a lock each, and the
    histogram looks for its bucket in a Python loop: most of what counting a cache hit cost
    (docs/PERFORMANCE.md#hit-path-against-a-bare-handler-content-type-only-2026-11-25). Requests
    are answered and scraped on the event loop alone, so plain numbers need no lock. The samples
    are the ones those two metrics gave (names, labels, values, ``_created`` series, order).
    """

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str], _Count] = {}
        self._latency: dict[str, _Latency] = {}

    def series(self, route: str, method: str, status: str) -> tuple[_Count, _Latency]:
        """The count of (``route``, ``method``, ``status``) and the latency of ``route``,
        created on first use."""
        count = self._counts.get((route, method, status))
        if count is None:
            count = self._counts[(route, method, status)] = _Count()
        latency = self._latency.get(route)
        if latency is None:
            latency = self._latency[route] = _Latency()
        return count, latency

    def collect(self) -> Iterator[Metric]:
        requests = Metric("readiness_http_requests", "HTTP requests answered.", "counter")
        for (route, method, status), count in self._counts.items():
            labels = {"route": route, "method": method, "status": status}
            requests.add_sample("readiness_http_requests_total", labels, float(count.value))
            if _CREATED:
                requests.add_sample("readiness_http_requests_created", labels, count.created)
        yield requests
        name = "readiness_http_request_duration_seconds"
        latency = Metric(name, "Time to answer a request.", "histogram")
        for route, seen in self._latency.items():
            cumulative = 0.0
            for le, number in zip(_LE, seen.buckets, strict=True):
                cumulative += number
                latency.add_sample(name + "_bucket", {"route": route, "le": le}, cumulative)
            latency.add_sample(name + "_count", {"route": route}, cumulative)
            latency.add_sample(name + "_sum", {"route": route}, seen.sum)
            if _CREATED:
                latency.add_sample(name + "_created", {"route": route}, seen.created)
        yield latency


class _SnapshotCollector(Collector):
    """``readiness_snapshot{snapshot="2026-11"} 1``: read at scrape time, so a swap shows at once."""

    def __init__(self, snapshot_id: Callable[[], str | None]) -> None:
        self._snapshot_id = snapshot_id

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "readiness_snapshot", "The current snapshot served (value 1).", labels=["snapshot"]
        )
        snapshot_id = self._snapshot_id()
        if snapshot_id is not None:
            family.add_metric([snapshot_id], 1.0)
        yield family


class SizedTier(Protocol):
    """What a cache tier tells ``/metrics`` (``AnswerCache`` is one)."""

    max_bytes: int
    size: int
    evictions: int

    def __len__(self) -> int: ...


class ConnectionCounts(Protocol):
    """What a listener tells ``/metrics`` (``readiness.http.connections.LimitedHTTPServer`` is one)."""

    @property
    def open_connections(self) -> int: ...

    @property
    def max_connections(self) -> int: ...

    @property
    def closed_idle(self) -> int: ...

    @property
    def refused(self) -> int: ...


class _TierCollector(Collector):
    """``readiness_cache_{entries,bytes,max_bytes,evictions_total}{tier}``, read at scrape time
    rather than updated on every put: the hit path pays nothing for them."""

    def __init__(self) -> None:
        self.tiers: dict[str, SizedTier] = {}

    def collect(self) -> Iterator[Metric]:
        entries = GaugeMetricFamily("readiness_cache_entries", "Answers a cache tier holds.", labels=["tier"])
        size = GaugeMetricFamily(
            "readiness_cache_bytes", "Bytes a cache tier holds (bodies, gzip copies, keys).", labels=["tier"]
        )
        capacity = GaugeMetricFamily("readiness_cache_max_bytes", "Bytes a cache tier may hold.", labels=["tier"])
        evictions = CounterMetricFamily(
            "readiness_cache_evictions", "Answers dropped to make room (least recently used first).", labels=["tier"]
        )
        for tier, cache in self.tiers.items():
            entries.add_metric([tier], len(cache))
            size.add_metric([tier], cache.size)
            capacity.add_metric([tier], cache.max_bytes)
            evictions.add_metric([tier], cache.evictions)
        yield from (entries, size, capacity, evictions)


class _ConnectionCollector(Collector):
    """``readiness_connections_*{listener}``: the connection cap at work (docs/OPERATIONS.md)."""

    def __init__(self) -> None:
        self.listeners: dict[str, ConnectionCounts] = {}

    def collect(self) -> Iterator[Metric]:
        open_now = GaugeMetricFamily("readiness_connections_open", "Client connections open.", labels=["listener"])
        cap = GaugeMetricFamily("readiness_connections_max", "Client connections allowed at once.", labels=["listener"])
        closed = CounterMetricFamily(
            "readiness_connections_closed_idle", "Idle connections closed to make room for a new one.",
            labels=["listener"],
        )
        refused = CounterMetricFamily(
            "readiness_connections_refused", "New connections closed at once: the cap was reached, none idle.",
            labels=["listener"],
        )
        for listener, counts in self.listeners.items():
            open_now.add_metric([listener], counts.open_connections)
            cap.add_metric([listener], counts.max_connections)
            closed.add_metric([listener], counts.closed_idle)
            refused.add_metric([listener], counts.refused)
        yield from (open_now, cap, closed, refused)
# --- snapshot store: loads, skipped files, an unservable CURRENT -------------------------------


class StoreCollector(Collector):
    """The store's state, read at scrape time (docs/CACHING.md#metrics):

    - ``readiness_snapshot_skipped_files{snapshot}``: country files the manifest lists but the
      server could not serve, per snapshot in memory;
    - ``readiness_snapshot_forced{snapshot,check}``: 1 per sanity check a refresh published a
      snapshot in memory past (``unnamed`` for a manifest forced before checks had names);
      no series for a snapshot published normally;
    - ``readiness_snapshot_current_unservable``: 1 while CURRENT names a snapshot this process
      cannot serve (it serves an older one, or none);
    - ``readiness_snapshot_loads_total{kind,outcome}``: reads of the current snapshot and of
      archives, by outcome (``disk``, ``packed``, ``refused``, ``timeout``);
    - ``readiness_snapshot_load_seconds{kind}``: a summary of the time those reads took.
    """

    def __init__(self, store: SnapshotStore) -> None:
        self._store = store

    def collect(self) -> Iterator[Metric]:
        store = self._store
        skipped = GaugeMetricFamily(
            "readiness_snapshot_skipped_files", "Country files skipped when the snapshot was read.",
            labels=["snapshot"],
        )
        forced = GaugeMetricFamily(
            "readiness_snapshot_forced", "1 per sanity check the snapshot was published past.",
            labels=["snapshot", "check"],
        )
        for snapshot in store.loaded():
            skipped.add_metric([snapshot.id], float(snapshot.skipped))
            if snapshot.forced is not None:
                for check in snapshot.forced.checks or ("unnamed",):
                    forced.add_metric([snapshot.id, check], 1.0)
        yield skipped
        yield forced
        yield GaugeMetricFamily(
            "readiness_snapshot_current_unservable",
            "1 while CURRENT names a snapshot this process cannot serve.",
            value=0.0 if store.problem is None else 1.0,
        )
        loads = CounterMetricFamily(
            "readiness_snapshot_loads", "Snapshot reads by kind and outcome.", labels=["kind", "outcome"]
        )
        for (kind, outcome), number in sorted(store.counts.loads.items()):
            loads.add_metric([kind, outcome], float(number))
        yield loads
        seconds = SummaryMetricFamily(
            "readiness_snapshot_load_seconds", "Time spent reading snapshots.", labels=["kind"]
        )
        for kind, total in sorted(store.counts.seconds.items()):
            count = sum(number for (counted, _), number in store.counts.loads.items() if counted == kind)
            seconds.add_metric([kind], count, total)
        yield seconds
