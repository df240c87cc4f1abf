"""ReadinessService: tiers in order, single-flight, fallbacks; and the cache-key property."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder import Release, build_snapshot
from loaders import Snapshot, SnapshotStore
from readiness.budget import BudgetLimits
from readiness.cache.admission import RedisAdmission
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.errors import ArchiveNotFound, CountryNotFound, NotReady, Overloaded, ReadinessError
from readiness.domain.query import Query
from readiness.metrics import Metrics
from readiness.service import ARCHIVE_READ_BYTES, CacheOutcome, ReadinessService, RedisTtl
from readiness.work import ComputeLimits, ComputePool
from tests.builder_world import NEXT_MONTH, world
from tests.conftest import SAMPLE, Clock, eventually, flip, gen_test
from tests.test_data_routes import data_directory


def metrics() -> Metrics:
    return Metrics(lambda: None, lambda: False)


def new_service(
    store: SnapshotStore, redis: RedisTier | None = None, memory_bytes: int = 1 << 20, pool: ComputePool | None = None
) -> ReadinessService:
    return ReadinessService(store, AnswerCache(memory_bytes), metrics(), redis, RedisTtl(100, 1000), pool)


async def writes_done(service: ReadinessService) -> None:
    """Await the Redis writes the service started after answering (it does not wait for them)."""
    await asyncio.gather(*service._writes)


def memory_misses(service: ReadinessService) -> float:
    value = service.metrics.registry.get_sample_value(
        "readiness_cache_lookups_total", {"tier": "memory", "outcome": "miss"}
    )
    return value or 0.0


class GatedRedis:
    """A Redis client whose reads wait until ``opened`` is set, then miss: it holds the
    single-flight leader in tier 2 for as long as a test needs."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()

    async def get(self, key: str) -> None:
        await self.opened.wait()

    async def set(self, key: str, value: bytes, ex: int) -> None:
        pass


Jobs = list[Callable[[], Any]]
"""The computations the compute pool was given."""


@pytest.fixture
def computations(monkeypatch: pytest.MonkeyPatch) -> Jobs:
    """Every computation the service runs (instead of finding its answer in a cache): each
    goes through the compute pool."""
    seen: Jobs = []
    run = ComputePool.run

    async def counting(self: ComputePool, price: int, job: Callable[[], Any], client: str = "") -> Any:
        seen.append(job)
        return await run(self, price, job, client)

    monkeypatch.setattr(ComputePool, "run", counting)
    return seen


@gen_test
async def test_service_second_request_is_a_memory_hit(sample_store: SnapshotStore, computations: Jobs) -> None:
    service = new_service(sample_store)
    first, outcome = await service.answer(Query(codes=("KEN",)), routes.V1)
    again, second = await service.answer(Query(codes=("KEN",)), routes.V1)
    assert (outcome, second) == (CacheOutcome.MISS, CacheOutcome.HIT)
    assert again is first and len(computations) == 1


@gen_test
async def test_service_concurrent_misses_compute_once(sample_store: SnapshotStore, computations: Jobs) -> None:
    redis = RedisTier(fakeredis.FakeAsyncRedis(), CircuitBreaker(3, 60), metrics())
    service = new_service(sample_store, redis)
    results = await asyncio.gather(*(service.answer(Query(region="East Asia & Pacific"), routes.V1) for _ in range(20)))
    assert len(computations) == 1
    assert len({answer.body for answer, _ in results}) == 1


@gen_test
async def test_service_failing_leader_fails_its_followers(
    sample_store: SnapshotStore, computations: Jobs
) -> None:
    gate = GatedRedis()
    service = new_service(sample_store, RedisTier(gate, CircuitBreaker(3, 60), metrics()))
    requests = [asyncio.ensure_future(service.answer(Query(codes=("XXX",)), routes.LEGACY)) for _ in range(3)]
    await eventually(lambda: memory_misses(service) == 3, "one leader waiting in Redis, two followers waiting for it")
    gate.opened.set()  # the leader misses in Redis, computes, and fails: XXX is not a country
    try:
        outcomes = await asyncio.wait_for(asyncio.gather(*requests, return_exceptions=True), timeout=5)
    except TimeoutError:
        pytest.fail("the followers were never told that the leader failed")
    assert [type(outcome) for outcome in outcomes] == [CountryNotFound] * 3
    assert len(computations) == 1  # the followers shared the leader's failure, not recomputed it
    assert not len(service._flights)  # the key is free: the next request tries again


class CountingGate(GatedRedis):
    """GatedRedis, counting its reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def get(self, key: str) -> None:
        self.reads += 1
        await super().get(key)


@gen_test
async def test_service_waiters_behind_a_lane_lookup_that_misses_compute_once(
    sample_store: SnapshotStore, computations: Jobs
) -> None:
    gate = CountingGate()
    service = new_service(sample_store, RedisTier(gate, CircuitBreaker(3, 60), metrics()))
    query = Query(codes=("KEN",))
    lane = asyncio.ensure_future(service.from_redis(query, routes.V1))
    await eventually(lambda: gate.reads == 1, "the lane's lookup under way")
    handlers = [asyncio.ensure_future(service.answer(query, routes.V1)) for _ in range(3)]
    await eventually(lambda: memory_misses(service) == 3, "three handlers waiting for the lane's lookup")
    gate.opened.set()  # the lane's lookup misses: the waiters look again, one computes
    assert await lane is None
    results = await asyncio.wait_for(asyncio.gather(*handlers), timeout=5)
    assert len(computations) == 1 and len({answer.body for answer, _ in results}) == 1
    assert gate.reads == 2  # the lane's, then the new leader's: its waiters did not ask again
    assert not len(service._flights)


@gen_test
async def test_service_lane_lookup_joining_a_failing_leader_leaves_the_error_to_the_handler(
    sample_store: SnapshotStore, computations: Jobs
) -> None:
    gate = GatedRedis()
    service = new_service(sample_store, RedisTier(gate, CircuitBreaker(3, 60), metrics()))
    query = Query(codes=("XXX",))
    leader = asyncio.ensure_future(service.answer(query, routes.LEGACY))
    await eventually(lambda: memory_misses(service) == 1, "the handler's leader waiting in Redis")
    assert service.shares(query, routes.LEGACY)
    lane = asyncio.ensure_future(service.from_redis(query, routes.LEGACY))
    gate.opened.set()  # the leader misses, computes, and fails: XXX is not a country
    with pytest.raises(CountryNotFound):
        await leader
    assert await asyncio.wait_for(lane, timeout=5) is None
    assert len(computations) == 1


# --- Redis admission: an answer reaches Redis once another client asks for it -------------


def admitting(
    store: SnapshotStore, client: fakeredis.FakeAsyncRedis, clock: Clock, memory_bytes: int = 1 << 20,
    max_answer_bytes: int = 128 * 1024,
) -> ReadinessService:
    """A service whose Redis admission window is 60 s on ``clock``."""
    seen = metrics()
    redis = RedisTier(client, CircuitBreaker(3, 60), seen, max_answer_bytes=max_answer_bytes)
    return ReadinessService(store, AnswerCache(memory_bytes), seen, redis, RedisTtl(100, 1000),
                            admission=RedisAdmission(60, clock=clock))


async def answer_keys(client: fakeredis.FakeAsyncRedis) -> set[str]:
    return {key.decode() for key in await client.keys(ANSWER_PREFIX + "*")}


def redis_key(store: SnapshotStore, request: str) -> str:
    assert store.current is not None
    return ANSWER_PREFIX + cache_key(store.current, request)


@gen_test
async def test_service_admission_keeps_a_first_computation_out_of_redis(sample_store: SnapshotStore) -> None:
    client = fakeredis.FakeAsyncRedis()
    service = admitting(sample_store, client, Clock())
    assert (await service.answer(Query(codes=("KEN",)), routes.V1))[1] is CacheOutcome.MISS
    await writes_done(service)
    assert await answer_keys(client) == set()
    assert service.metrics.registry.get_sample_value("readiness_redis_deferred_total") == 1
    assert service.metrics.registry.get_sample_value("readiness_redis_writes_total", {"outcome": "written"}) == 0


@gen_test
async def test_service_admission_writes_on_a_tier1_hit_within_the_window(sample_store: SnapshotStore) -> None:
    client, clock = fakeredis.FakeAsyncRedis(), Clock()
    service = admitting(sample_store, client, clock)
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.1")
    clock.now += 59
    assert (await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.2"))[1] is CacheOutcome.HIT
    await writes_done(service)
    assert await answer_keys(client) == {redis_key(sample_store, "v1|codes=KEN")}
    assert not service.admission.pending  # written: no longer noted
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.3")
    assert not service._writes  # and not written again


@gen_test
async def test_service_admission_never_writes_for_one_clients_own_requests(sample_store: SnapshotStore) -> None:
    client, clock = fakeredis.FakeAsyncRedis(), Clock()
    service = admitting(sample_store, client, clock)
    for spelling in ("codes=KEN,BRA", "codes=BRA,KEN", "codes=bra,ken"):  # asked again and again: one key
        query = routes.V1.parse(spelling)
        await service.answer(query, routes.V1, client="2001:db8:1:2::/64")
        assert service.from_memory(query, routes.V1, client="2001:db8:1:2::/64") is not None
        clock.now += 1
    await writes_done(service)
    assert await answer_keys(client) == set() and len(service.admission.pending) == 1
    await service.answer(routes.V1.parse("codes=KEN,BRA"), routes.V1, client="198.51.100.7")  # another client
    await writes_done(service)
    assert await answer_keys(client) == {redis_key(sample_store, "v1|codes=BRA,KEN")}


@gen_test
async def test_service_admission_writes_on_a_lane_hit_within_the_window(sample_store: SnapshotStore) -> None:
    client = fakeredis.FakeAsyncRedis()
    service = admitting(sample_store, client, Clock())
    computed, _ = await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.1")
    assert service.from_memory(Query(codes=("KEN",)), routes.V1, client="192.0.2.2") is computed
    await writes_done(service)
    assert await answer_keys(client) == {redis_key(sample_store, "v1|codes=KEN")}


@gen_test
async def test_service_admission_writes_on_a_second_miss_within_the_window(
    sample_store: SnapshotStore, computations: Jobs
) -> None:
    client = fakeredis.FakeAsyncRedis()
    service = admitting(sample_store, client, Clock(), memory_bytes=0)  # tier 1 keeps nothing
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.1")
    await writes_done(service)
    assert await answer_keys(client) == set()
    await service.answer(Query(codes=("KEN",)), routes.V1, redis_checked=True, client="192.0.2.2")
    await writes_done(service)
    assert len(computations) == 2
    assert await answer_keys(client) == {redis_key(sample_store, "v1|codes=KEN")}


@gen_test
async def test_service_admission_after_the_window_notes_the_key_again(sample_store: SnapshotStore) -> None:
    client, clock = fakeredis.FakeAsyncRedis(), Clock()
    service = admitting(sample_store, client, clock)
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.1")
    clock.now += 61
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.2")  # too late: noted anew
    await writes_done(service)
    assert await answer_keys(client) == set()
    clock.now += 30
    await service.answer(Query(codes=("KEN",)), routes.V1, client="192.0.2.1")  # within the new note's window
    await writes_done(service)
    assert await answer_keys(client) == {redis_key(sample_store, "v1|codes=KEN")}


@gen_test
async def test_service_admission_leaves_answers_too_large_for_redis_to_put(sample_store: SnapshotStore) -> None:
    client = fakeredis.FakeAsyncRedis()
    service = admitting(sample_store, client, Clock(), max_answer_bytes=1000)
    await service.answer(Query(codes=("KEN",)), routes.V1)
    await writes_done(service)
    assert not service.admission.pending  # never worth noting: it will never be written
    assert service.metrics.registry.get_sample_value("readiness_redis_writes_total", {"outcome": "too_large"}) == 1
    assert await answer_keys(client) == set()


def test_admission_is_bounded_and_forgets_the_oldest_notes() -> None:
    clock = Clock()
    admission = RedisAdmission(60, entries=3, clock=clock)
    assert not any(admission.admit(key, "x") for key in ("a", "b", "c", "d"))  # "a" forgotten for "d"
    assert len(admission.pending) == 3
    assert not admission.admit("a", "y")  # noted again, "b" forgotten
    assert admission.admit("c", "y") and admission.admit("d", "y") and admission.admit("a", "x")
    assert not admission.pending


def test_admission_needs_another_client_within_the_window() -> None:
    clock = Clock()
    admission = RedisAdmission(60, clock=clock)
    assert not admission.admit("a", "x") and not admission.admit("a", "x")  # the same client twice
    clock.now += 59
    assert not admission.admit("a", "x")  # again: its note moves on, it never admits itself
    clock.now += 59
    assert admission.admit("a", "y")  # within 60 s of x's last note


def test_admission_window_zero_admits_every_answer_at_once() -> None:
    admission = RedisAdmission(0)
    assert admission.admit("a", "x") and admission.admit("a", "x") and not admission.pending


def test_service_shares_only_current_answers_of_one_snapshot_routes_with_redis(sample_store: SnapshotStore) -> None:
    with_redis = new_service(sample_store, RedisTier(GatedRedis(), CircuitBreaker(3, 60), metrics()))  # type: ignore[arg-type]
    assert with_redis.shares(Query(codes=("KEN",)), routes.V1)
    assert with_redis.shares(Query(), routes.INDICATORS)
    assert not with_redis.shares(Query(codes=("KEN",), year=2024), routes.V1)
    assert not with_redis.shares(Query(), routes.HISTORY)
    assert not new_service(sample_store).shares(Query(codes=("KEN",)), routes.V1)


@gen_test
@pytest.mark.parametrize(
    "params", [{"format": "csv"}, {"format": "csv", "limit": "5", "income": "HIC"}, {"code": "KEN"}]
)
async def test_service_tier2_keeps_csv_and_headers(sample_store: SnapshotStore, params: dict[str, str]) -> None:
    server = fakeredis.FakeServer()
    one = new_service(
        sample_store, RedisTier(fakeredis.FakeAsyncRedis(server=server), CircuitBreaker(3, 60), metrics())
    )
    other = new_service(
        sample_store, RedisTier(fakeredis.FakeAsyncRedis(server=server), CircuitBreaker(3, 60), metrics())
    )
    query = Query.parse(params)
    computed, _ = await one.answer(query, routes.V1)
    await writes_done(one)
    shared, outcome = await other.answer(query, routes.V1)
    assert outcome is CacheOutcome.REDIS
    assert shared == computed and shared.headers == computed.headers and shared.gzipped == computed.gzipped
    assert dict(shared.headers)["X-Readiness-Snapshot"] == sample_store.current.id  # type: ignore[union-attr]


@gen_test
async def test_service_tier2_hit_fills_tier1(sample_store: SnapshotStore, computations: Jobs) -> None:
    server = fakeredis.FakeServer()
    one = new_service(
        sample_store, RedisTier(fakeredis.FakeAsyncRedis(server=server), CircuitBreaker(3, 60), metrics())
    )
    other = new_service(
        sample_store, RedisTier(fakeredis.FakeAsyncRedis(server=server), CircuitBreaker(3, 60), metrics())
    )
    computed, _ = await one.answer(Query(codes=("BRA",)), routes.V1)
    await writes_done(one)  # the shared copy is written after the answer
    shared, outcome = await other.answer(Query(codes=("BRA",)), routes.V1)
    assert outcome is CacheOutcome.REDIS and shared == computed
    assert (await other.answer(Query(codes=("BRA",)), routes.V1))[1] is CacheOutcome.HIT
    assert len(computations) == 1


@gen_test
async def test_service_archive_answers_get_the_longer_ttl(sample_store: SnapshotStore) -> None:
    client = fakeredis.FakeAsyncRedis()
    service = new_service(sample_store, RedisTier(client, CircuitBreaker(3, 60), metrics()))
    await service.answer(Query(year=2024), routes.V1)
    await service.answer(Query(), routes.V1)
    await writes_done(service)
    ttls = {key.decode(): await client.ttl(key) for key in await client.keys("readiness:answer:*")}
    archive = await sample_store.archive("2024-12")
    assert archive is not None and sample_store.current is not None
    assert ttls == {ANSWER_PREFIX + cache_key(archive, "v1|year=2024"): 1000,
                    ANSWER_PREFIX + cache_key(sample_store.current, "v1|"): 100}


@gen_test
async def test_service_dead_redis_answers_from_snapshot(sample_store: SnapshotStore) -> None:
    from readiness.cache.redis_tier import connect

    async with connect("redis://127.0.0.1:1/0", timeout=0.05) as client:
        service = new_service(sample_store, RedisTier(client, CircuitBreaker(1, 60), metrics()))
        answer, outcome = await service.answer(Query(codes=("USA",)), routes.V1)
        assert outcome is CacheOutcome.MISS and b'"USA"' in answer.body


@gen_test
async def test_service_legacy_unknown_code_raises_and_is_not_cached(
    sample_store: SnapshotStore, computations: Jobs
) -> None:
    service = new_service(sample_store)
    for _ in range(2):
        with pytest.raises(CountryNotFound):
            await service.answer(Query(codes=("XXX",)), routes.LEGACY)
    assert len(computations) == 2
    assert len(service.memory) == 0
    _, outcome = await service.answer(Query(codes=("XXX",)), routes.V1)
    assert outcome is CacheOutcome.MISS


@gen_test
async def test_service_missing_archive_and_no_snapshot_raise(sample_store: SnapshotStore) -> None:
    with pytest.raises(ArchiveNotFound):
        await new_service(sample_store).answer(Query(year=2022), routes.V1)
    with pytest.raises(NotReady):
        await new_service(SnapshotStore(SAMPLE)).answer(Query(), routes.V1)


# Same key implies byte-identical bodies: generated queries, compared pairwise.
params = st.fixed_dictionaries(
    {},
    optional={
        "codes": st.lists(
            st.sampled_from(["KEN", "ken", "BRA", "USA", "XXX", " tuv"]), min_size=1, max_size=3
        ).map(",".join),
        "region": st.sampled_from(["LAC", "sa", "South America", "eap", "Sub-Saharan Africa"]),
        "sort": st.sampled_from(["score", "Composite Readiness Score", "country name", "infra", "FCV Status"]),
        "order": st.sampled_from(["asc", "DESC"]),
        "fields": st.sampled_from(["score", "SCORE,Country Name", "Country Name,score", "indicator_details", "access"]),
        "shortnames": st.sampled_from(["true", "0", "1", "FALSE"]),
        "indicators": st.sampled_from(["GE.EST", "ge.est", "GE.EST,IT.NET.USER.ZS"]),
        "level": st.sampled_from(["global", "country"]),
        "utm": st.just("x"),
    },
)


@cache
def current_sample() -> Snapshot:
    snapshot = SnapshotStore(SAMPLE).load_current()
    assert snapshot is not None
    return snapshot


@settings(max_examples=60, deadline=None)
@given(st.lists(params, min_size=2, max_size=6))
def test_cache_key_same_key_implies_identical_bodies(batch: list[dict[str, str]]) -> None:
    snapshot = current_sample()
    answers: dict[str, bytes] = {}
    for request in batch:
        try:
            query = Query.parse(request)
        except ReadinessError:
            continue
        for route in (routes.V1, routes.LEGACY):
            key = f"{route.name}|{query.canonical()}"
            try:
                body = compute(snapshot, query, route).body
            except CountryNotFound:
                continue
            assert answers.setdefault(key, body) == body


def test_cache_key_different_answers_never_share_a_key() -> None:
    snapshot = current_sample()
    requests = [{}, {"code": "KEN"}, {"codes": "KEN,BRA"}, {"region": "LAC"}, {"sort": "score"},
                {"sort": "score", "order": "asc"}, {"fields": "score"}, {"shortnames": "true"},
                {"code": "KEN", "indicators": "GE.EST"}, {"code": "KEN", "fields": "indicator_details"}]
    keyed = {Query.parse(r).canonical(): compute(snapshot, Query.parse(r), routes.V1).body for r in requests}
    assert len(keyed) == len(requests)
    for (key_a, body_a), (key_b, body_b) in combinations(keyed.items(), 2):
        assert body_a != body_b, (key_a, key_b)


@gen_test
async def test_service_reading_an_archive_not_held_takes_from_the_clients_budget(
        sample_store: SnapshotStore, budget_clock: Clock) -> None:
    # docs/CACHING.md#archives-in-memory: a client cycling through snapshots pays for the reads.
    budget = BudgetLimits(ARCHIVE_READ_BYTES + 20_000, overdraft=0, max_wait=0.0, queue_per_client=1)
    service = new_service(sample_store, pool=ComputePool(ComputeLimits(0, 0, 0, budget=budget), metrics()))
    await service.answer(routes.V1.parse("snapshot=2024-12&code=KEN"), routes.V1, client="cycling")
    with pytest.raises(Overloaded):  # a second archive read at once: over this client's share
        await service.answer(routes.V1.parse("snapshot=2023-12&code=KEN"), routes.V1, client="cycling")
    # An archive held costs no read: its other answers are computed (some 12,000 bytes left).
    assert sample_store.holds("2024-12") and not sample_store.holds("2023-12")
    answer, outcome = await service.answer(routes.V1.parse("snapshot=2024-12&code=BRA"), routes.V1, client="cycling")
    assert outcome is CacheOutcome.MISS and answer.meta.snapshot == "2024-12"


@gen_test
async def test_service_pinned_answer_of_the_current_snapshot_never_says_current_once_archived(
    tmp_path: Path
) -> None:
    """An answer pinned to the current snapshot says ``"current": true``; after the next one is
    published no tier (here Redis, shared with a server started after the swap) serves it: the
    key written while it was current is another key (``pinned_key``)."""
    data = data_directory(tmp_path)
    client = fakeredis.FakeAsyncRedis()
    store = SnapshotStore(data)
    store.load_current()
    before = new_service(store, RedisTier(client, CircuitBreaker(3, 60), metrics()))
    pinned = Query.parse({"snapshot": "2026-11", "code": "AAA"})
    by_year = Query.parse({"year": "2026", "code": "AAA"})
    for query in (pinned, by_year):
        answer, _ = await before.answer(query, routes.V1)
        assert (orjson.loads(answer.body)["snapshot_id"], orjson.loads(answer.body)["current"]) == ("2026-11", True)
    await writes_done(before)
    assert any(key.endswith(b"|v1|codes=AAA&snapshot=2026-11|current") for key in await client.keys("*"))
    build_snapshot(world(NEXT_MONTH, year=2026), Release.parse("2026-12"), data / "snapshots")
    flip(data, "2026-12")
    await store.refresh()
    after = new_service(store, RedisTier(client, CircuitBreaker(3, 60), metrics()))
    answer, outcome = await after.answer(pinned, routes.V1)
    assert outcome is CacheOutcome.MISS and orjson.loads(answer.body)["current"] is False
    answer, _ = await after.answer(by_year, routes.V1)  # year=2026 now names its December
    assert (orjson.loads(answer.body)["snapshot_id"], orjson.loads(answer.body)["current"]) == ("2026-12", True)
    await writes_done(after)  # its Redis writes finish inside this test's loop, not in a later test's
