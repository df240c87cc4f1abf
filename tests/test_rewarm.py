"""Automatic re-warm: servers notice a Redis that lost the warm set, one of them warms it.

Real processes: a throwaway redis-server that the test kills and restarts empty on the same
port, and two server.py processes checking every second (docs/OPERATIONS.md#re-warm-after-a-redis-restart).
"""

from __future__ import annotations

import threading
from pathlib import Path

import fakeredis
import pytest

from config import Settings
from loaders import Snapshot, SnapshotStore
from readiness.app import new_metrics
from readiness.cache.answers import AnswerCache, AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import MAX_ANSWER_BYTES, RedisTier, connect, warmed_key, warming_key
from readiness.domain import routes
from readiness.domain.query import Query
from readiness.freshness import warm as warm_module
from readiness.freshness.rewarm import Rewarmer
from readiness.freshness.warm import WarmSettings, warm_snapshot
from readiness.service import ReadinessService, RedisTtl
from tests.conftest import SAMPLE, gen_test
from tests.processes import (
    RedisServer,
    Server,
    Start,
    fetch,
    free_port,
    launch,
    until,
)

SETTINGS = WarmSettings(top=0, ttl_current=100, ttl_archive=1000, max_answer_bytes=MAX_ANSWER_BYTES)


def warm_runs(servers: list[Server]) -> int:
    """Warm-ups the servers completed, from their logs."""
    done = "re-warm of snapshot 2026-11: warmed"
    return sum(server.log.read_text(errors="replace").count(done) for server in servers)


def warm_keys(redis_server: RedisServer) -> int:
    return len(redis_server.execute("KEYS", "readiness:answer:*"))


def marker_present(redis_server: RedisServer) -> bool:
    return bool(redis_server.execute("KEYS", "readiness:warmed:*"))


def test_restarted_redis_is_warmed_again_by_one_server(start: Start, redis_server: RedisServer, tmp_path: Path) -> None:
    env = {"READINESS_REDIS_URL": redis_server.url, "READINESS_REWARM_CHECK_SECONDS": "1",
           "READINESS_BREAKER_PAUSE_SECONDS": "1"}
    servers = [launch(start, tmp_path, env) for _ in range(2)]
    # An empty Redis at start: one of the two warms it.
    until(lambda: marker_present(redis_server) and warm_runs(servers) == 1, 60, "the first warm-up")
    assert warm_keys(redis_server) >= 470

    redis_server.kill()
    for server in servers:  # Redis down: answers still flow, nothing is warmed
        assert fetch(server.port, "/api/v1/readiness?code=KEN")[0] == 200
    redis_server.start()  # empty, on the same port
    # Not "no keys": an answer computed while Redis was down may be written the moment it is
    # back (the write follows the response). The warm-up's marker takes a warm-up to appear.
    assert not marker_present(redis_server)
    until(lambda: marker_present(redis_server) and warm_runs(servers) == 2, 60, "the warm-up after the restart")
    assert warm_keys(redis_server) >= 470


@gen_test(timeout=60)
async def test_warm_up_computes_off_the_event_loop(monkeypatch: pytest.MonkeyPatch, sample_current: Snapshot) -> None:
    threads: set[threading.Thread] = set()
    compute = warm_module.compute

    def recording(*args):  # type: ignore[no-untyped-def]
        threads.add(threading.current_thread())
        return compute(*args)

    monkeypatch.setattr(warm_module, "compute", recording)
    async with fakeredis.FakeAsyncRedis() as redis:
        summary = await warm_snapshot(redis, SAMPLE, sample_current, SETTINGS)
        assert len(summary.written) >= 470
        assert threads and threading.main_thread() not in threads
        assert await redis.exists(warmed_key(cache_key(sample_current, "")))


def closed_port() -> int:
    """A port where nothing listens: one of this worker's, which no other process is given
    (tests/workers.py), rather than a kernel-chosen one that any process's next connection or
    bind may take."""
    return free_port()


@gen_test(timeout=60)
async def test_rewarm_check_with_redis_down_does_nothing(sample_store: SnapshotStore) -> None:
    rewarmer = Rewarmer(connect(f"redis://127.0.0.1:{closed_port()}/0", 0.2), sample_store, SAMPLE, SETTINGS)
    try:
        await rewarmer.check()  # must not raise
        assert rewarmer.runs == 0
    finally:
        await rewarmer.close()


@gen_test(timeout=60)
async def test_rewarm_check_skips_while_another_server_holds_the_lock(
    sample_store: SnapshotStore, real_redis_url: str
) -> None:
    rewarmer = Rewarmer(connect(real_redis_url, 5.0), sample_store, SAMPLE, SETTINGS)
    assert sample_store.current is not None
    prefix = cache_key(sample_store.current, "")
    try:
        await rewarmer.client.set(warming_key(prefix), "another server", ex=60)
        await rewarmer.check()
        assert rewarmer.runs == 0 and not await rewarmer.client.exists(warmed_key(prefix))
        await rewarmer.client.delete(warming_key(prefix))
        await rewarmer.check()
        assert rewarmer.runs == 1 and await rewarmer.client.exists(warmed_key(prefix))
        assert not await rewarmer.client.exists(warming_key(prefix))  # released
        await rewarmer.check()  # the marker is there: nothing to do
        assert rewarmer.runs == 1
    finally:
        await rewarmer.close()


@gen_test(timeout=60)
@pytest.mark.parametrize(("server_key", "outcome"), [("fleet secret", "redis"), ("another secret", "miss")])
async def test_warm_up_writes_what_servers_with_the_same_signing_key_read(
    sample_store: SnapshotStore, sample_current: Snapshot, server_key: str, outcome: str
) -> None:
    server = fakeredis.FakeServer()
    async with fakeredis.FakeAsyncRedis(server=server) as writer, fakeredis.FakeAsyncRedis(server=server) as reader:
        await warm_snapshot(writer, SAMPLE, sample_current, WarmSettings.of(Settings(redis_signing_key="fleet secret")))
        metrics = new_metrics(sample_store)
        tier = RedisTier(reader, CircuitBreaker(3, 60), metrics, AnswerCodec(server_key))
        service = ReadinessService(sample_store, AnswerCache(1 << 20), metrics, tier, RedisTtl(100, 1000))
        for query in (Query(), Query(codes=("KEN",)), Query(year=2024)):
            _, got = await service.answer(query, routes.LEGACY)
            assert got.value == outcome
