"""RedisTier: one suite against fakeredis, the real Redis, a Redis Cluster and a Sentinel-watched
primary; failures become misses."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

import fakeredis
import pytest
from redis.asyncio import Redis

from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import (
    ANSWER_PREFIX,
    MAX_COUNTED_LENGTH,
    MAX_COUNTED_QUERIES,
    RedisClient,
    RedisTier,
    connect,
    popular_key,
)
from readiness.domain.answer import Answer
from readiness.metrics import Metrics
from tests.conftest import eventually, gen_test
from tests.processes import RedisServer, free_port

Factory = Callable[[], RedisClient]


@pytest.fixture(params=["fakeredis", "real", "cluster", "sentinel"])
def new_client(request: pytest.FixtureRequest) -> Factory:
    """Makes a client (inside the test's event loop) for fakeredis, the real Redis, a Redis
    Cluster of three primaries or a Sentinel-watched primary (tests/redis_topologies.py): one
    RedisTier, whatever Redis is behind it."""
    if request.param == "fakeredis":
        server = fakeredis.FakeServer()
        return lambda: fakeredis.FakeAsyncRedis(server=server)
    if request.param == "cluster":
        url = request.getfixturevalue("cluster_empty").url
    elif request.param == "sentinel":
        url = request.getfixturevalue("replicated").url(free_port())
    else:
        url = request.getfixturevalue("real_redis_url")
    # 5 s, not the server's short timeout: under the full suite's load a first connection has
    # taken over 1 s, and a timed-out lookup is a silent miss that these tests would misread.
    return lambda: connect(url, timeout=5.0)


def tier(client: RedisClient, failures: int = 3) -> RedisTier:
    metrics = Metrics(lambda: None, lambda: False)
    return RedisTier(client, CircuitBreaker(failures, pause=60), metrics)


def lookups(tier_: RedisTier, outcome: str) -> float:
    return float(getattr(tier_, f"_{outcome}")._value.get())


@gen_test
async def test_redis_tier_put_then_get_same_answer(new_client: Factory) -> None:
    async with new_client() as client:
        shared = tier(client)
        answer = Answer.of(b'{"apiVersion":"1","data":[' + b"1," * 600 + b"1]}")
        assert await shared.get("2026-11|v1|") is None
        await shared.put("2026-11|v1|", answer, ttl_seconds=60)
        assert await shared.get("2026-11|v1|") == answer
        outcomes = {name: lookups(shared, name) for name in ("hit", "miss", "error", "rejected")}
        assert outcomes == {"hit": 1, "miss": 1, "error": 0, "rejected": 0}


@gen_test
async def test_redis_tier_put_sets_the_ttl(new_client: Factory) -> None:
    async with new_client() as client:
        await tier(client).put("k", Answer.of(b"{}"), ttl_seconds=120)
        assert 0 < await client.ttl(ANSWER_PREFIX + "k") <= 120


@gen_test
async def test_redis_tier_foreign_value_is_a_miss(new_client: Factory) -> None:
    async with new_client() as client:
        await client.set(ANSWER_PREFIX + "k", b"not a packed answer")
        assert await tier(client).get("k") is None


@gen_test
async def test_redis_tier_counts_flush_to_popularity_sets(new_client: Factory) -> None:
    async with new_client() as client:
        shared = tier(client)
        for _ in range(3):
            shared.count("2026-11", "v1|codes=KEN")
        shared.count("2026-11", "v1|")
        shared.count("2025-12", "legacy|")
        await shared.flush_counts()
        # One per query per flush, however often it was asked (docs/CACHING.md#popularity).
        assert await client.zrevrange(popular_key("2026-11"), 0, -1, withscores=True) == [
            (b"v1|codes=KEN", 1.0), (b"v1|", 1.0)]
        assert await client.zscore(popular_key("2025-12"), "legacy|") == 1.0
        assert await client.ttl(popular_key("2026-11")) > 0
        await shared.flush_counts()  # nothing new: nothing added
        assert await client.zscore(popular_key("2026-11"), "v1|codes=KEN") == 1.0
        shared.count("2026-11", "v1|codes=KEN")
        await shared.flush_counts()
        assert await client.zscore(popular_key("2026-11"), "v1|codes=KEN") == 2.0


def test_redis_tier_count_memory_bounded() -> None:
    shared = RedisTier(fakeredis.FakeAsyncRedis(), CircuitBreaker(3, 60), Metrics(lambda: None, lambda: False))
    for number in range(MAX_COUNTED_QUERIES + 500):
        shared.count("2026-11", f"v1|codes={number}")
    shared.count("2026-11", "v1|codes=0")
    assert len(shared._counted) == MAX_COUNTED_QUERIES
    assert ("2026-11", "v1|codes=0") in shared._counted


def test_redis_tier_count_skips_overlong_requests() -> None:
    shared = RedisTier(fakeredis.FakeAsyncRedis(), CircuitBreaker(3, 60), Metrics(lambda: None, lambda: False))
    shared.count("2026-11", "v1|codes=" + "A" * MAX_COUNTED_LENGTH)
    assert not shared._counted


@gen_test
async def test_redis_tier_counts_a_request_of_exactly_the_length_cap() -> None:
    """A request of 1,024 characters (MAX_COUNTED_LENGTH) is counted; one of 1,025 is not."""
    async with fakeredis.FakeAsyncRedis() as client:
        shared = tier(client)
        at_cap = "v1|codes=" + "A" * (1024 - len("v1|codes="))
        shared.count("2026-11", at_cap)
        shared.count("2026-11", at_cap + "B")
        await shared.flush_counts()
        assert len(at_cap) == MAX_COUNTED_LENGTH == 1024
        assert await client.zrange(popular_key("2026-11"), 0, -1) == [at_cap.encode()]


CALLS = {
    "get": lambda shared: shared.get("k"),
    "put": lambda shared: shared.put("k", Answer.of(b"{}"), 60),
}


@gen_test
@pytest.mark.parametrize("call", CALLS)
async def test_redis_tier_answered_call_counts_as_a_breaker_success(call: str) -> None:
    # A call Redis answers (a miss included) resets the consecutive failures and closes an
    # open breaker at the probe; fakeredis's ``connected`` switch makes calls fail on demand.
    server, now = fakeredis.FakeServer(), [100.0]
    async with fakeredis.FakeAsyncRedis(server=server) as client:
        breaker = CircuitBreaker(2, pause=5, clock=lambda: now[0])
        shared = RedisTier(client, breaker, Metrics(lambda: None, lambda: False))
        for connected in (False, True, False):  # failure, success, failure: not two in a row
            server.connected = connected
            await CALLS[call](shared)
        assert not shared.breaker.is_open
        await CALLS[call](shared)  # a second failure in a row opens it
        assert shared.breaker.is_open
        server.connected, now[0] = True, now[0] + 5
        await CALLS[call](shared)  # the probe, answered: closed again
        assert not shared.breaker.is_open and shared.breaker.allow() and shared.breaker.allow()
        assert lookups(shared, "error") == 3


def closed_port() -> int:
    """A port where nothing listens: one of this worker's, which no other process is given
    (tests/workers.py), rather than a kernel-chosen one that any process's next connection or
    bind may take."""
    return free_port()


@gen_test
async def test_redis_tier_dead_redis_misses_fast_then_breaker_skips() -> None:
    async with connect(f"redis://127.0.0.1:{closed_port()}/0", timeout=0.05) as client:
        shared = tier(client, failures=2)
        started = time.monotonic()
        for _ in range(10):
            assert await shared.get("k") is None
            await shared.put("k", Answer.of(b"{}"), 60)
        assert time.monotonic() - started < 2
        assert shared.breaker.is_open
        assert lookups(shared, "error") == 2  # then the breaker stopped calling
        assert lookups(shared, "skipped") == 9


@gen_test
async def test_redis_tier_silent_redis_times_out() -> None:
    # A listener that accepts and never answers: the timeout, not the OS, ends the call.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        async with connect(f"redis://127.0.0.1:{port}/0", timeout=0.1) as client:
            shared = tier(client)
            started = time.monotonic()
            assert await asyncio.wait_for(shared.get("k"), timeout=5) is None
            assert time.monotonic() - started < 1.5
            assert lookups(shared, "error") == 1


def bounded_tier(client: Redis, timeout: float, failures: int = 3) -> RedisTier:
    """The server's way: a client without socket timeouts, one deadline per call."""
    return RedisTier(client, CircuitBreaker(failures, pause=60), Metrics(lambda: None, lambda: False), timeout=timeout)


@gen_test
async def test_redis_tier_deadline_per_call_ends_every_call_to_a_silent_redis() -> None:
    # No socket timeout on the client: without the tier's deadline these calls never end.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        async with connect(f"redis://127.0.0.1:{port}/0", timeout=0.1, socket_timeouts=False) as client:
            shared = bounded_tier(client, timeout=0.1)
            shared.count("2026-11", "v1|")
            started = time.monotonic()
            assert await asyncio.wait_for(shared.get("k"), timeout=5) is None
            await asyncio.wait_for(shared.put("k", Answer.of(b"{}"), 60), timeout=5)
            await asyncio.wait_for(shared.flush_counts(), timeout=5)
            assert time.monotonic() - started < 3
            assert lookups(shared, "error") == 3


@gen_test
async def test_redis_tier_call_cut_by_its_deadline_leaves_no_late_reply(redis_server: RedisServer) -> None:
    # A GET cut while Redis is paused gets its reply once the pause ends. Were its connection
    # reused, that late reply would answer the next GET, and every later one would read the
    # reply meant for the one before (redis-py drops the connection of a cancelled command).
    async with connect(redis_server.url, timeout=1.0, socket_timeouts=False) as client:
        shared = bounded_tier(client, timeout=0.2, failures=1000)  # the pause must not open the breaker
        kenya, brazil = Answer.of(b'{"code":"KEN"}'), Answer.of(b'{"code":"BRA"}')
        await shared.put("kenya", kenya, 60)
        await shared.put("brazil", brazil, 60)
        assert redis_server.execute("CLIENT", "PAUSE", 600, "ALL") == b"OK"
        assert await shared.get("kenya") is None  # cut by the deadline, its reply still to come

        async def brazil_served() -> bool:
            return await shared.get("brazil") == brazil

        await eventually(brazil_served, "Brazil's answer for Brazil's key once the pause is over")
        assert await shared.get("kenya") == kenya
        assert lookups(shared, "error") >= 1
        assert lookups(shared, "rejected") == 0
