"""The hit lane's tier-2 path (readiness/http/hits.py, ``ReadinessService.from_redis``), over
real sockets with tier 1 off: a Redis hit is sent without a handler; a miss reaches the
handler, which computes without asking Redis again; concurrent requests for one key make
one lookup; a lookup being awaited counts as in flight."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import fakeredis
import pytest
from tornado.httpclient import AsyncHTTPClient
from tornado.web import Application

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app, new_metrics
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import RedisTier
from readiness.http.logs import AccessLog
from tests.conftest import access_lines, eventually, gen_test, scrape

KEN = "/api/v1/readiness?code=KEN"


class CountingRedis:
    """A fakeredis client that records every GET and can hold GETs until ``gate`` is set."""

    def __init__(self) -> None:
        self.server = fakeredis.FakeServer()
        self.gets: list[str] = []
        self.gate: asyncio.Event | None = None

    @property
    def inner(self) -> fakeredis.FakeAsyncRedis:
        """A client made in the running event loop (one per call: fakeredis shares the server)."""
        return fakeredis.FakeAsyncRedis(server=self.server)


    async def get(self, name: str) -> Any:
        self.gets.append(name)
        if self.gate is not None:
            await self.gate.wait()
        return await self.inner.get(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def client() -> CountingRedis:
    return CountingRedis()


@pytest.fixture
def app(sample_store: SnapshotStore, client: CountingRedis) -> Application:
    """The real application with tier 1 off and Redis (fakeredis, counted) as tier 2."""
    memory = AnswerCache(0)
    metrics = new_metrics(sample_store, None, memory)
    tier = RedisTier(client, CircuitBreaker(3, 60), metrics)  # type: ignore[arg-type]
    # Every computed answer written at once (no Redis admission): these tests are about lookups.
    return make_app(Settings(cache_bytes=0, redis_admit_window_seconds=0), sample_store, metrics=metrics,
                    redis=tier, memory=memory, access=AccessLog(io.BytesIO()))


def _metric(app: Application, sample: str) -> float:
    for line in scrape(app).splitlines():
        if line.startswith(sample + " "):
            return float(line.split()[1])
    return 0.0


def _computed(app: Application) -> float:
    return _metric(app, "readiness_answers_computed_total")


async def _writes_done(app: Application) -> None:
    """Wait until every computed answer has been written to Redis (the writes run after the
    response; a test must not end with one pending)."""
    await eventually(lambda: _metric(app, 'readiness_redis_writes_total{outcome="written"}') >= _computed(app),
                     "every computed answer written to Redis")


@gen_test
async def test_a_miss_is_computed_by_the_handler_with_one_redis_lookup_then_the_lane_sends_the_hit(
    http_client: AsyncHTTPClient, base_url: str, app: Application, client: CountingRedis, handlers_built: list[str]
) -> None:
    first = await http_client.fetch(base_url + KEN)
    assert first.code == 200
    assert len(client.gets) == 1, "the handler asked Redis again after the lane's miss"
    assert handlers_built == ["/api/v1/readiness"] and _computed(app) == 1
    await _writes_done(app)

    second = await http_client.fetch(base_url + KEN, headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    assert second.code == 200
    assert second.headers["Content-Encoding"] == "gzip"
    assert len(client.gets) == 2 and len(handlers_built) == 1, "a Redis hit built a handler"
    assert _computed(app) == 1
    plain = await http_client.fetch(base_url + KEN)
    assert plain.body == first.body and plain.headers["Etag"] == first.headers["Etag"]
    assert [line["cache"] for line in access_lines(app)] == ["miss", "redis", "redis"]


@gen_test
async def test_head_and_304_from_redis_in_the_lane(
    http_client: AsyncHTTPClient, base_url: str, app: Application, handlers_built: list[str]
) -> None:
    first = await http_client.fetch(base_url + KEN, decompress_response=False)  # identity
    await _writes_done(app)
    head = await http_client.fetch(base_url + KEN, method="HEAD", decompress_response=False)
    assert head.code == 200 and head.body == b""
    assert head.headers["Content-Length"] == str(len(first.body))
    revalidated = await http_client.fetch(base_url + KEN, headers={"If-None-Match": first.headers["Etag"]},
                                          raise_error=False)
    assert revalidated.code == 304 and revalidated.body == b""
    assert handlers_built == ["/api/v1/readiness"]  # the first request only


@gen_test
async def test_concurrent_requests_for_one_key_make_one_redis_lookup_and_count_in_flight(
    http_client: AsyncHTTPClient, base_url: str, app: Application, client: CountingRedis, handlers_built: list[str]
) -> None:
    first = await http_client.fetch(base_url + KEN)
    await _writes_done(app)
    client.gets.clear()
    client.gate = asyncio.Event()
    lifecycle = app.settings["lifecycle"]
    waiting = [asyncio.ensure_future(http_client.fetch(base_url + KEN)) for _ in range(8)]
    await eventually(lambda: lifecycle.in_flight == 8, "eight lookups in flight")
    assert len(client.gets) == 1
    client.gate.set()
    answers = await asyncio.gather(*waiting)
    assert all(answer.code == 200 and answer.body == first.body for answer in answers)
    assert len(client.gets) == 1 and lifecycle.in_flight == 0
    assert handlers_built == ["/api/v1/readiness"]


@gen_test
async def test_requests_joining_a_lookup_that_misses_ask_redis_no_more(
    http_client: AsyncHTTPClient, base_url: str, app: Application, client: CountingRedis
) -> None:
    client.gate = asyncio.Event()
    waiting = [asyncio.ensure_future(http_client.fetch(base_url + KEN)) for _ in range(4)]
    await eventually(lambda: len(client.gets) == 1, "the first lookup under way")
    await eventually(lambda: app.settings["lifecycle"].in_flight == 4, "the other three joined it")
    client.gate.set()
    answers = await asyncio.gather(*waiting)
    assert {answer.body for answer in answers} == {answers[0].body} and answers[0].code == 200
    assert len(client.gets) == 1, "a handler asked Redis again after the lane's miss"
    await _writes_done(app)


@gen_test
async def test_archives_and_bad_input_skip_the_lane_lookup(
    http_client: AsyncHTTPClient, base_url: str, app: Application, client: CountingRedis, handlers_built: list[str]
) -> None:
    archive = await http_client.fetch(base_url + "/api/v1/readiness?year=2024&code=KEN")
    assert archive.code == 200
    assert len(client.gets) == 1  # the handler's own lookup: the lane does not look up archives
    bad = await http_client.fetch(base_url + "/api/v1/readiness?code=K", raise_error=False)
    assert bad.code == 400
    assert len(client.gets) == 1
    assert len(handlers_built) == 2
    await _writes_done(app)
