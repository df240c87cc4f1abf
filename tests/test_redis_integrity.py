"""What Redis holds is never trusted: a value must be the one packed for its own key, with the
signing key, undamaged; and keys name the snapshot's content, not only its id.

Each test plays someone else with write access to the real Redis (a neighbour on a shared
instance, another version of the service, another data directory) against the real app over
HTTP, and checks that clients still get the right bytes and headers
(docs/CACHING.md#what-redis-may-hold).
"""

from __future__ import annotations

import asyncio
import gzip
import io
import struct
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from tornado.httpclient import HTTPResponse
from tornado.ioloop import IOLoop
from tornado.web import Application

from builder import Economy
from config import Settings
from loaders import Snapshot, SnapshotStore
from readiness.app import make_app, new_metrics
from readiness.cache.answers import AnswerCache, AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier, connect
from readiness.domain import routes
from readiness.domain.answer import Answer
from readiness.domain.compute import compute
from readiness.domain.query import Query
from readiness.http.logs import AccessLog
from readiness.service import CacheOutcome, ReadinessService, RedisTtl
from tests.builder_world import NEXT_MONTH, STANDARD
from tests.conftest import flip, gen_test, place_snapshot

KENYA = "/api/v1/readiness?code=KEN"
BRAZIL = "/api/v1/readiness?code=BRA"


def build_app(store: SnapshotStore, url: str, settings: Settings) -> tuple[Application, RedisTier]:
    """The app with ``settings``, every computed answer written to Redis at once (no Redis
    admission): these tests alter what a first computation stored."""
    settings = replace(settings, redis_admit_window_seconds=0)
    metrics = new_metrics(store)
    client = connect(url, timeout=5.0)
    codec = AnswerCodec(settings.redis_signing_key) if settings.redis_signing_key else AnswerCodec()
    tier = RedisTier(client, CircuitBreaker(3, 60), metrics, codec)
    return make_app(settings, store, metrics=metrics, redis=tier, access=AccessLog(io.BytesIO())), tier


@pytest.fixture
def tiered(
    sample_store: SnapshotStore, real_redis_url: str, io_loop: IOLoop
) -> Iterator[tuple[Application, RedisTier]]:
    """The real app over the sample with the real Redis as tier 2 and tier 1 on."""
    app, tier = build_app(sample_store, real_redis_url, Settings())
    yield app, tier
    io_loop.run_sync(tier.client.aclose)


@pytest.fixture
def app(tiered: tuple[Application, RedisTier]) -> Application:
    return tiered[0]


@pytest.fixture
def cache(real_redis_url: str) -> Iterator[redis.Redis]:
    with redis.Redis.from_url(real_redis_url) as client:
        yield client


async def stored_name(cache: redis.Redis, request: str) -> str:
    """The Redis key holding the answer to ``request`` (``v1|code...``), once the app's write
    (which it does not wait for) is in."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        names = list(cache.scan_iter(ANSWER_PREFIX + "*|" + request))
        if names:
            assert len(names) == 1, names
            return names[0].decode()
        await asyncio.sleep(0.02)
    raise AssertionError(f"the answer to {request} was not written to Redis within 10 s")


def reference(sample: Snapshot, code: str) -> Answer:
    return compute(sample, Query(codes=(code,)), routes.V1)


def rejected(app: Application) -> float:
    service: ReadinessService = app.lane.service
    return float(service.metrics.cache.labels("redis", "rejected")._value.get())


def version_one(etag: str, body: bytes, compressed: bytes = b"") -> bytes:
    """A value in the unsigned format servers wrote before values were signed: anyone with
    write access can make one."""
    raw_etag = etag.encode()
    return struct.pack(">BHII", 1, len(raw_etag), len(body), len(compressed)) + raw_etag + body + compressed


async def get(app_client: Any, base_url: str, path: str, **kwargs: Any) -> HTTPResponse:
    """GET, by default for the identity representation (no Accept-Encoding)."""
    response: HTTPResponse = await app_client.fetch(
        base_url + path, raise_error=False, **{"decompress_response": False, **kwargs})
    return response


async def prime(http_client: Any, base_url: str, cache: redis.Redis, *requests: str) -> list[str]:
    """Have the app compute and store these answers, then forget them in tier 1, so the next
    request reads Redis. Returns their Redis names."""
    names = []
    for request in requests:
        assert (await get(http_client, base_url, "/api/v1/readiness?" + request.split("|", 1)[1])).code == 200
        names.append(await stored_name(cache, request))
    return names


def forget_tier_one(app: Application) -> None:
    app.lane.service.memory.discard_prefix("")


@gen_test(timeout=30)
async def test_value_moved_to_another_key_is_not_served(
    http_client: Any, base_url: str, app: Application, cache: redis.Redis, sample_current: Snapshot
) -> None:
    kenya, brazil = await prime(http_client, base_url, cache, "v1|codes=KEN", "v1|codes=BRA")
    cache.set(kenya, cache.get(brazil) or b"")  # Brazil's answer under Kenya's name
    forget_tier_one(app)
    response = await get(http_client, base_url, KENYA)
    assert response.code == 200
    assert response.body == reference(sample_current, "KEN").body
    assert rejected(app) == 1


@gen_test(timeout=30)
async def test_altered_body_is_not_served_with_the_old_etag(
    http_client: Any, base_url: str, app: Application, cache: redis.Redis, sample_current: Snapshot
) -> None:
    (kenya,) = await prime(http_client, base_url, cache, "v1|codes=KEN")
    value = cache.get(kenya) or b""
    assert b"Kenya" in value
    cache.set(kenya, value.replace(b"Kenya", b"Kenyb"))
    forget_tier_one(app)
    response = await get(http_client, base_url, KENYA)
    expected = reference(sample_current, "KEN")
    assert (response.body, response.headers["ETag"]) == (expected.body, expected.etag)
    assert rejected(app) == 1


@gen_test(timeout=30)
async def test_zeroed_gzip_copy_is_not_served(
    http_client: Any, base_url: str, app: Application, cache: redis.Redis, sample_current: Snapshot
) -> None:
    (kenya,) = await prime(http_client, base_url, cache, "v1|codes=KEN")
    value = cache.get(kenya) or b""
    cache.set(kenya, value[:-200] + bytes(200))  # the gzip copy is the value's tail
    forget_tier_one(app)
    response = await get(http_client, base_url, KENYA, headers={"Accept-Encoding": "gzip"}, decompress_response=False)
    assert response.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.body) == reference(sample_current, "KEN").body


@gen_test(timeout=30)
async def test_foreign_value_is_not_served_as_json(
    http_client: Any, base_url: str, app: Application, cache: redis.Redis, sample_current: Snapshot
) -> None:
    (kenya,) = await prime(http_client, base_url, cache, "v1|codes=KEN")
    cache.set(kenya, version_one('"0123"', b"<html>not json</html>"))
    forget_tier_one(app)
    response = await get(http_client, base_url, KENYA)
    assert response.body == reference(sample_current, "KEN").body
    assert rejected(app) == 1


@gen_test(timeout=30)
async def test_value_with_header_breaking_etag_never_reaches_a_header(
    http_client: Any, base_url: str, app: Application, cache: redis.Redis, sample_current: Snapshot
) -> None:
    (kenya,) = await prime(http_client, base_url, cache, "v1|codes=KEN")
    expected = reference(sample_current, "KEN")
    cache.set(kenya, version_one('"x"\r\nX-Injected: 1', expected.body))
    forget_tier_one(app)
    for _ in range(3):  # the first from Redis (rejected, computed), then from tier 1 (hit lane)
        response = await get(http_client, base_url, KENYA)
        assert response.code == 200
        assert response.headers["ETag"] == expected.etag and "X-Injected" not in response.headers
        assert response.body == expected.body


@gen_test(timeout=30)
async def test_value_signed_with_another_key_is_rejected(
    sample_store: SnapshotStore, real_redis_url: str, cache: redis.Redis, sample_current: Snapshot
) -> None:
    # A writer using the public default key, against servers with a secret one.
    secret = Settings(redis_signing_key="only-the-fleet-knows")
    app, tier = build_app(sample_store, real_redis_url, secret)
    try:
        forged = Answer.of(b'{"apiVersion":"1","forged":true}')
        key = "2026-11|x|v1|codes=KEN"
        cache.set(ANSWER_PREFIX + key, AnswerCodec().pack(key, forged))
        assert await tier.get(key) is None
        cache.set(ANSWER_PREFIX + key, tier.codec.pack(key, forged))
        assert await tier.get(key) == forged
        assert rejected(app) == 1
    finally:
        await tier.client.aclose()


def same_id_other_content(tmp_path: Path, name: str, positions: Mapping[Economy, float]) -> SnapshotStore:
    """A data directory whose current snapshot is 2026-12, a tiny world at ``positions``."""
    data = tmp_path / name
    place_snapshot(data, "2026-12", positions)
    flip(data, "2026-12")
    store = SnapshotStore(data)
    assert store.load_current() is not None
    return store


@gen_test(timeout=30)
async def test_two_data_directories_with_one_snapshot_id_do_not_share_answers(
    tmp_path: Path, real_redis_url: str, cache: redis.Redis
) -> None:
    staging = same_id_other_content(tmp_path, "staging", STANDARD)
    production = same_id_other_content(tmp_path, "production", NEXT_MONTH)  # has EEE
    services = []
    clients = []
    for store in (staging, production):
        metrics = new_metrics(store)
        client = connect(real_redis_url, timeout=5.0)
        clients.append(client)
        tier = RedisTier(client, CircuitBreaker(3, 60), metrics)
        services.append(ReadinessService(store, AnswerCache(1 << 20), metrics, tier, RedisTtl(100, 1000)))
    try:
        answer, outcome = await services[0].answer(Query(codes=("EEE",)), routes.V1)
        assert outcome is CacheOutcome.MISS and b'"Country Code":"EEE"' not in answer.body  # unmatched there
        await stored_name(cache, "v1|codes=EEE")  # staging's answer is in the shared Redis
        answer, outcome = await services[1].answer(Query(codes=("EEE",)), routes.V1)
        assert b'"Country Code":"EEE"' in answer.body
        assert outcome is CacheOutcome.MISS
    finally:
        for client in clients:
            await client.aclose()
