"""Popularity counting against the real Redis: bounded, and not for sale to one client.

The counts decide what the warm-up computes; a flood of one-off queries, or of one query, must
not take over that list, and the set must stay small whatever clients send
(docs/CACHING.md#popularity).
"""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from loaders import SnapshotStore
from readiness.app import new_metrics
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import POPULAR_KEEP, RedisTier, connect, popular_key
from readiness.domain import routes
from readiness.domain.errors import CountryNotFound
from readiness.domain.query import Query
from readiness.metrics import Metrics
from readiness.service import ReadinessService, RedisTtl
from tests.conftest import gen_test


def service_over(store: SnapshotStore, client: Redis) -> tuple[ReadinessService, RedisTier]:
    metrics = new_metrics(store)
    tier = RedisTier(client, CircuitBreaker(3, 60), metrics)
    return ReadinessService(store, AnswerCache(64 << 20), metrics, tier, RedisTtl(100, 1000)), tier


@gen_test(timeout=60)
async def test_flush_trims_the_set_to_its_most_counted(real_redis_url: str) -> None:
    async with connect(real_redis_url, timeout=2.0) as client:
        key = popular_key("2026-11")
        await client.zadd(key, {f"v1|codes={number}": number for number in range(POPULAR_KEEP + 3000)})
        tier = RedisTier(client, CircuitBreaker(3, 60), Metrics(lambda: None, lambda: False))
        tier.count("2026-11", "v1|")
        await tier.flush_counts()
        assert await client.zcard(key) == POPULAR_KEEP
        top = await client.zrevrange(key, 0, 0)
        assert top == [f"v1|codes={POPULAR_KEEP + 2999}".encode()]  # the most counted stay


@gen_test(timeout=60)
async def test_one_query_asked_many_times_counts_once_per_flush(
    sample_store: SnapshotStore, real_redis_url: str
) -> None:
    async with connect(real_redis_url, timeout=2.0) as client:
        service, tier = service_over(sample_store, client)
        for _ in range(500):  # one client hammering one query
            await service.answer(Query(codes=("KEN",)), routes.V1)
        await tier.flush_counts()
        assert await client.zscore(popular_key("2026-11"), "v1|codes=KEN") == 1.0


@gen_test(timeout=60)
async def test_one_off_queries_and_errors_are_not_counted(sample_store: SnapshotStore, real_redis_url: str) -> None:
    async with connect(real_redis_url, timeout=2.0) as client:
        service, tier = service_over(sample_store, client)
        codes = sorted(sample_store.current.countries)  # type: ignore[union-attr]
        for first, second in zip(codes[:100], codes[1:101], strict=True):  # cache busting: each asked once
            await service.answer(Query(codes=(first, second)), routes.V1)
        for _ in range(3):
            with pytest.raises(CountryNotFound):
                await service.answer(Query(codes=("XXX",)), routes.LEGACY)
        await tier.flush_counts()
        assert await client.zcard(popular_key("2026-11")) == 0
        await service.answer(Query(codes=(codes[0], codes[1])), routes.V1)  # asked again: a hit
        await tier.flush_counts()
        assert await client.zrange(popular_key("2026-11"), 0, -1) == [f"v1|codes={codes[0]},{codes[1]}".encode()]
