"""The operations port (readiness.app.make_admin_app): /metrics, /healthz and /readyz, apart
from the public port, which never serves /metrics; and what /metrics reports (process,
tier-1 size and evictions, connections)."""

from __future__ import annotations

import io
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from tornado.httpclient import AsyncHTTPClient
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_admin_app, make_app, new_metrics
from readiness.cache.answers import AnswerCache
from readiness.domain.answer import Answer
from readiness.http.lifecycle import Lifecycle
from readiness.http.logs import AccessLog
from readiness.metrics import Metrics
from tests.conftest import gen_test
from tests.processes import Start, free_ports, get, wait_until_up


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a /metrics body, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.fixture
def ports(io_loop: IOLoop, sample_store: SnapshotStore) -> Iterator[tuple[int, int]]:
    """The public app and the operations app of one process, each on a free port of the
    test's IOLoop (pytest-tornado's, current while the fixture runs)."""
    memory = AnswerCache(Settings().cache_bytes)
    metrics = new_metrics(sample_store, None, memory)
    lifecycle = Lifecycle()
    access = AccessLog(io.BytesIO())
    public = HTTPServer(
        make_app(Settings(), sample_store, metrics=metrics, lifecycle=lifecycle, memory=memory, access=access)
    )
    admin = HTTPServer(make_admin_app(sample_store, metrics, lifecycle, access, Settings().max_skipped_percent))
    public_port, admin_port = free_ports(2)
    public.listen(public_port, "127.0.0.1")
    admin.listen(admin_port, "127.0.0.1")
    yield public_port, admin_port
    for server in (public, admin):
        server.stop()


async def fetch(port: int, path: str) -> Any:
    return await AsyncHTTPClient().fetch(f"http://127.0.0.1:{port}{path}", raise_error=False)


@gen_test
async def test_metrics_only_on_the_operations_port(ports: tuple[int, int]) -> None:
    public, admin = ports
    assert (await fetch(public, "/metrics")).code == 404
    response = await fetch(admin, "/metrics")
    assert response.code == 200 and response.headers["Content-Type"].startswith("text/plain")
    assert response.headers["Cache-Control"] == "no-store"


@gen_test
@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
async def test_health_routes_on_both_ports(ports: tuple[int, int], path: str) -> None:
    for port in ports:
        assert (await fetch(port, path)).code == 200


@gen_test
async def test_operations_port_serves_nothing_else(ports: tuple[int, int]) -> None:
    _, admin = ports
    assert (await fetch(admin, "/api/v1/readiness?code=KEN")).code == 404


@gen_test
async def test_metrics_count_public_requests_and_report_tier_one_size(ports: tuple[int, int]) -> None:
    public, admin = ports
    assert (await fetch(public, "/api/v1/readiness?code=KEN")).code == 200
    assert (await fetch(public, "/api/v1/readiness?code=KEN")).code == 200
    found = samples((await fetch(admin, "/metrics")).body.decode())
    assert found[("readiness_http_requests_total", (("method", "GET"), ("route", "v1"), ("status", "200")))] == 2
    memory = (("tier", "memory"),)
    assert found[("readiness_cache_entries", memory)] == 1
    assert found[("readiness_cache_bytes", memory)] > 9000  # the KEN answer, ~9.8 KB with its gzip copy
    assert found[("readiness_cache_max_bytes", memory)] == Settings().cache_bytes
    assert found[("readiness_cache_evictions_total", memory)] == 0
    # prometheus_client's process collector (Linux): descriptors are what the connection cap guards.
    assert found[("process_open_fds", ())] > 0 and found[("process_max_fds", ())] > 0


def test_metrics_report_evictions_read_at_scrape_time(sample_store: SnapshotStore) -> None:
    memory = AnswerCache(3000)
    metrics = new_metrics(sample_store, None, memory)
    for key in ("a", "b", "c"):
        memory.put(key, Answer.of(b"x" * 1000))  # ~1.2 KB each with overhead: two fit
    found = samples(metrics.render().decode())
    assert found[("readiness_cache_entries", (("tier", "memory"),))] == len(memory) == 2
    assert found[("readiness_cache_bytes", (("tier", "memory"),))] == memory.size
    assert found[("readiness_cache_evictions_total", (("tier", "memory"),))] == memory.evictions == 1


ANSWERED = [
    ("v1", "GET", 200, 0.0002), ("v1", "GET", 304, 0.002), ("v1", "BREW", 200, 0.2), ("legacy", "GET", 404, 3.0),
    ("v1", "GET", 200, 0.0005), ("v1", "HEAD", 200, 0.001), ("v1", "PROPFIND", 200, 0.25),
    ("metrics", "GET", 200, 2.5), ("v1", "GET", 200, -0.001),  # a clock stepped back
]
"""Requests as ``RequestLog`` counts them: route, method, status, seconds; on bucket bounds too."""


def _without_created_values(text: str) -> list[str]:
    """The exposition's lines, each ``_created`` sample's value (a time) left out."""
    return [line.rpartition(" ")[0] if "_created{" in line else line for line in text.splitlines()]


def test_request_metrics_are_what_prometheus_clients_counter_and_histogram_give() -> None:
    # Metrics counts requests in plain numbers (readiness.metrics._AnsweredRequests): the
    # exposition must be the one prometheus_client's own Counter and Histogram give.
    metrics = Metrics(lambda: "2026-11", lambda: False)
    reference = CollectorRegistry()
    requests = Counter("readiness_http_requests", "HTTP requests answered.", ["route", "method", "status"],
                       registry=reference)
    latency = Histogram("readiness_http_request_duration_seconds", "Time to answer a request.", ["route"],
                        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
                        registry=reference)
    for route, method, status, seconds in ANSWERED:
        metrics.observe(route, method, status, seconds)
        counted = method if method in ("GET", "HEAD") else "other"
        requests.labels(route, counted, str(status)).inc()
        latency.labels(route).observe(seconds)
    expected = _without_created_values(generate_latest(reference).decode())
    ours = _without_created_values(metrics.render().decode())
    assert ours[: len(expected)] == expected


def test_server_serves_metrics_on_the_admin_port_only(start: Start, tmp_path: Path) -> None:
    port, admin = free_ports(2)
    process = start("--port", str(port), env={"READINESS_ADMIN_PORT": str(admin)})
    wait_until_up(port, process)
    assert get(f"http://127.0.0.1:{port}/metrics")[0] == 404
    status, body = get(f"http://127.0.0.1:{admin}/metrics")
    assert status == 200
    found = samples(body.decode())
    assert found[("readiness_connections_max", (("listener", "public"),))] > 0
    assert get(f"http://127.0.0.1:{admin}/readyz")[0] == 200
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
