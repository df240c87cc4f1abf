"""The warm-up: standard answers and the most requested ones of CURRENT's snapshot, in Redis."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fakeredis
import pytest
import redis

from loaders import SnapshotStore, load_snapshot
from readiness.cache.answers import AnswerCache, AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX, MAX_ANSWER_BYTES, RedisTier, popular_key
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.query import Query
from readiness.freshness.warm import WarmSettings, main, parse_request, warm
from readiness.metrics import Metrics
from readiness.service import CacheOutcome, ReadinessService, RedisTtl
from tests.builder_world import NEXT_MONTH, STANDARD
from tests.conftest import ROOT, flip, gen_test, place_snapshot, tiny_data


def warming(top: int = 0) -> WarmSettings:
    return WarmSettings(top, ttl_current=100, ttl_archive=1000, max_answer_bytes=MAX_ANSWER_BYTES)


def key(data: Path, snapshot_id: str, request: str) -> str:
    """The cache key of ``request`` on snapshot ``snapshot_id`` of ``data``."""
    return cache_key(load_snapshot(data / "snapshots" / snapshot_id), request)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Tiny snapshots, 2026-11 current, and the next one, 2026-12 (one more economy, EEE),
    placed but not current: the warm-up's job is the same whatever the snapshots' size."""
    data = tiny_data(tmp_path / "data")
    place_snapshot(data, "2026-12", NEXT_MONTH)
    return data


def test_parse_request_reads_counted_members() -> None:
    assert parse_request("v1|codes=KEN&fields=Country%20Name") == (
        routes.V1, Query.parse({"codes": "KEN", "fields": "Country Name"}))
    assert parse_request("legacy|") == (routes.LEGACY, Query())
    assert parse_request("v9|") is None
    assert parse_request("v1|year=12") is None


@gen_test
async def test_warm_writes_standard_answers_under_the_new_id(data: Path) -> None:
    async with fakeredis.FakeAsyncRedis() as redis:
        summary = await warm(redis, data, "2026-12", warming(), progress=False)
        snapshot = load_snapshot(data / "snapshots" / "2026-12")
        # 1 all-countries + 7 regions x 2 orders + every country + 4 Decembers (2023, 2024,
        # 2025 and 2026-12 itself, which year=2026 selects), on both routes.
        assert len(summary.written) == 2 * (1 + 14 + len(snapshot.countries) + 4) and summary.bytes > 0
        assert key(data, "2026-12", "v1|year=2026|current") in summary.written  # pinned to the current one
        added = key(data, "2026-12", "v1|codes=EEE")
        stored = AnswerCodec().unpack(added, await redis.get(ANSWER_PREFIX + added) or b"")
        assert stored is not None
        assert stored.body == compute(snapshot, Query(codes=("EEE",)), routes.V1).body
        assert b'"EEE"' in stored.body
        # The current TTL for the new snapshot, the archive TTL for archives: told apart with
        # a margin of 900 s, however slowly this runs.
        assert 0 < await redis.ttl(ANSWER_PREFIX + key(data, "2026-12", "v1|")) <= 100
        assert 100 < await redis.ttl(ANSWER_PREFIX + key(data, "2024-12", "v1|year=2024")) <= 1000
        by_score = "v1|region=Sub-Saharan%20Africa&sort=Composite%20Readiness%20Score&order=desc"
        assert await redis.exists(ANSWER_PREFIX + key(data, "2026-12", by_score))


@gen_test
async def test_warm_adds_previous_snapshots_most_requested(data: Path) -> None:
    async with fakeredis.FakeAsyncRedis() as redis:
        await redis.zadd(popular_key("2026-11"), {
            "v1|codes=AAA,BBB&fields=Composite%20Readiness%20Score": 50,
            "legacy|codes=XXX": 40,  # not answerable: skipped
            "v1|nonsense=1&year=12": 30,  # not a request: ignored
            "v1|": 20,  # already standard
            "v1|sort=Country%20Code&order=desc": 1,  # below the top 3
        })
        summary = await warm(redis, data, "2026-12", warming(top=3), progress=False)
        assert key(data, "2026-12", "v1|codes=AAA,BBB&fields=Composite%20Readiness%20Score") in summary.written
        assert key(data, "2026-12", "v1|sort=Country%20Code&order=desc") not in summary.written
        assert summary.skipped == 1
        assert len(summary.written) == len(set(summary.written))


POPULAR = ("v1|codes=AAA,BBB", "v1|codes=AAA,CCC", "v1|codes=BBB,CCC",
           "v1|sort=Country%20Code&order=desc", "v1|codes=AAA,DDD")
"""Requests no standard answer covers, the most asked first."""


@gen_test
async def test_warm_adds_exactly_the_top_n_counted_requests(data: Path) -> None:
    """With more than ``top`` requests counted, exactly the ``top`` most counted are warmed."""
    async with fakeredis.FakeAsyncRedis() as redis:
        counter = RedisTier(redis, CircuitBreaker(3, 60), Metrics(lambda: None, lambda: False))
        for flush in range(len(POPULAR)):  # POPULAR[i] is asked in len(POPULAR) - i flushes
            for member in POPULAR[: len(POPULAR) - flush]:
                counter.count("2026-11", member)
            await counter.flush_counts()
        assert await redis.zcard(popular_key("2026-11")) == len(POPULAR)
        standard = await warm(redis, data, "2026-12", warming(top=0), progress=False)
        summary = await warm(redis, data, "2026-12", warming(top=3), progress=False)
        assert set(summary.written) - set(standard.written) == {
            key(data, "2026-12", member) for member in POPULAR[:3]}
        assert len(summary.written) == len(standard.written) + 3


@gen_test
async def test_warm_of_current_again_replays_its_own_most_requested(data: Path) -> None:
    async with fakeredis.FakeAsyncRedis() as redis:
        await redis.zadd(popular_key("2026-11"), {"v1|sort=Country%20Code&order=desc": 5})
        await redis.zadd(popular_key("2025-12"), {"v1|codes=AAA,BBB": 9})  # not CURRENT's
        summary = await warm(redis, data, "2026-11", warming(top=10), progress=False)
        assert key(data, "2026-11", "v1|sort=Country%20Code&order=desc") in summary.written
        assert key(data, "2026-11", "v1|codes=AAA,BBB") not in summary.written


@gen_test
async def test_warm_then_flip_first_request_is_a_redis_hit(data: Path) -> None:
    server = fakeredis.FakeServer()
    async with fakeredis.FakeAsyncRedis(server=server) as writer, fakeredis.FakeAsyncRedis(server=server) as reader:
        await warm(writer, data, "2026-12", warming(), progress=False)
        flip(data, "2026-12")
        store = SnapshotStore(data)
        store.load_current()
        metrics = Metrics(lambda: None, lambda: False)
        service = ReadinessService(store, AnswerCache(1 << 20), metrics,
                                   RedisTier(reader, CircuitBreaker(3, 60), metrics), RedisTtl(100, 1000))
        for query in (Query(), Query(codes=("EEE",)), Query(region="Europe & Central Asia")):
            answer, outcome = await service.answer(query, routes.V1)
            assert outcome is CacheOutcome.REDIS
            assert answer.body == compute(store.current, query, routes.V1).body  # type: ignore[arg-type]


def test_warm_command_without_redis_has_nothing_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("READINESS_REDIS_URL", raising=False)
    assert main(["--snapshot", "2026-11"]) == 0
    assert "nothing to warm" in capsys.readouterr().err


@pytest.mark.parametrize("current", [None, "latest\n"], ids=["missing", "not-a-month"])
def test_warm_command_without_snapshot_needs_a_usable_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], current: str | None
) -> None:
    data = tiny_data(tmp_path / "data")
    if current is None:
        (data / "CURRENT").unlink()
    else:
        (data / "CURRENT").write_text(current)
    # Nothing listens on port 1: the command must stop before it ever needs Redis.
    assert main(["--data-dir", str(data), "--redis-url", "redis://127.0.0.1:1/0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"warm: failed: no usable CURRENT in {data} ") and err.count("\n") == 1, err


def run_warm(*args: str) -> subprocess.CompletedProcess[str]:
    """The warm-up command as the publish hook or a Kubernetes Job runs it."""
    return subprocess.run([sys.executable, "-m", "readiness.freshness.warm", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_warm_command_shows_no_password_of_a_redis_it_cannot_reach(data: Path) -> None:
    # Nothing listens on port 1: "warm: failed: ..." names the address, never the password.
    done = run_warm("--data-dir", str(data), "--redis-url", "redis://writer:hunter2@127.0.0.1:1/0")
    assert done.returncode == 1 and done.stderr.splitlines()[-1].startswith("warm: failed: "), done.stderr
    assert "hunter2" not in done.stderr + done.stdout


def test_warm_command_bad_redis_url_exits_2_without_its_password(data: Path) -> None:
    done = run_warm("--data-dir", str(data), "--redis-url", "redis://writer:hunter2@redis:port/0")
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("warm: --redis-url='redis://writer:***@redis:port/0' is not valid; "
                           "use redis://HOST:PORT/DB, rediss://… or unix://PATH, or for Sentinel "
                           "redis+sentinel://HOST:PORT,HOST:PORT/SERVICE/DB, for a cluster "
                           "redis+cluster://HOST:PORT,HOST:PORT\n")


@pytest.mark.parametrize("key", ["", "readiness-default-signing-key"])
def test_warm_command_required_signing_key_missing_or_public_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    monkeypatch.setenv("READINESS_REQUIRE_SIGNING_KEY", "true")
    monkeypatch.setenv("READINESS_REDIS_SIGNING_KEY", key)
    assert main(["--snapshot", "2026-11", "--redis-url", "redis://127.0.0.1:1/0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("warm: READINESS_REDIS_SIGNING_KEY is ") and err.count("\n") == 1, err


def test_warm_command_against_real_redis(real_redis_url: str, data: Path) -> None:
    done = run_warm("--snapshot", "2026-12", "--data-dir", str(data), "--redis-url", real_redis_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"warmed {2 * (1 + 14 + len(NEXT_MONTH) + 4)} keys, ")
    assert redis.Redis.from_url(real_redis_url).exists(ANSWER_PREFIX + key(data, "2026-12", "v1|codes=EEE"))


def test_warm_command_unknown_snapshot_fails(real_redis_url: str, data: Path) -> None:
    done = run_warm("--snapshot", "2030-12", "--data-dir", str(data), "--redis-url", real_redis_url)
    assert done.returncode == 1 and "failed" in done.stderr


def test_warm_command_without_snapshot_warms_the_current_one(real_redis_url: str, data: Path) -> None:
    # CURRENT names 2026-11; the fixture's 2026-12 is newer, but not current.
    done = run_warm("--data-dir", str(data), "--redis-url", real_redis_url)
    assert done.returncode == 0, done.stderr
    assert f"warming snapshot 2026-11 from {data} into Redis" in done.stderr
    assert done.stdout.startswith(f"warmed {2 * (1 + 14 + len(STANDARD) + 4)} keys, ")
    with redis.Redis.from_url(real_redis_url) as cache:
        assert cache.exists(ANSWER_PREFIX + key(data, "2026-11", "v1|codes=AAA"))
        assert not cache.exists(ANSWER_PREFIX + key(data, "2026-12", "v1|codes=AAA"))
        flip(data, "2026-12")
        again = run_warm("--data-dir", str(data), "--redis-url", real_redis_url)
        assert again.returncode == 0, again.stderr
        added = key(data, "2026-12", "v1|codes=EEE")
        stored = AnswerCodec().unpack(added, cache.get(ANSWER_PREFIX + added) or b"")
        assert stored is not None and b'"EEE"' in stored.body
