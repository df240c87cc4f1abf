"""Cache busting cannot evict the warm set: answers over the size cap never go to Redis, and
answers asked for once stay out of it.

A throwaway redis-server with a small ``maxmemory`` and ``allkeys-lru`` (the production
policy), warmed by the warm-up command, then a real server under a bounded burst of distinct
queries: 200-country ones (1.8 MB answers each), or valid four-country ones (small answers,
each asked for once): every warmed key must survive, and Redis must evict nothing
(docs/API.md#limits; docs/PERFORMANCE.md#redis-memory-under-cache-busting;
docs/CACHING.md#redis-admission).
"""

from __future__ import annotations

import http.client
import random
import subprocess
import sys
import time
from pathlib import Path

from loaders import Snapshot
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX
from tests.conftest import ROOT, SAMPLE
from tests.processes import (
    RedisServer,
    Start,
    fetch,
    launch,
    until,
)

MAXMEMORY = 24 * 1024 * 1024
"""Room for the sample's warm set (about 7 MB) and some, not for the burst (30 x 1.8 MB)."""

BURST = 30


def answer_names(redis_server: RedisServer) -> set[bytes]:
    return set(redis_server.execute("KEYS", "readiness:answer:*"))


def used_memory(redis_server: RedisServer) -> int:
    return int(redis_server.execute("INFO", "memory")["used_memory"])


def warm_up(redis_server: RedisServer) -> set[bytes]:
    """Set a small maxmemory with the production policy, run the warm-up command, and return
    the answer keys it wrote."""
    redis_server.execute("CONFIG", "SET", "maxmemory", MAXMEMORY)
    redis_server.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    warmed = subprocess.run(
        [sys.executable, "-m", "readiness.freshness.warm", "--data-dir", str(SAMPLE), "--redis-url", redis_server.url],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert warmed.returncode == 0, warmed.stderr
    warm_set = answer_names(redis_server)
    assert len(warm_set) > 400
    return warm_set


def test_burst_of_giant_answers_leaves_the_warm_set_in_redis(
    start: Start, redis_server: RedisServer, tmp_path: Path, sample_current: Snapshot
) -> None:
    warm_set = warm_up(redis_server)
    after_warm = used_memory(redis_server)

    # No compute budget: thirty giant answers in a row are far over it, and this is about Redis.
    server = launch(start, tmp_path, {"READINESS_REDIS_URL": redis_server.url, "READINESS_CACHE_BYTES": "0",
                                      "READINESS_COMPUTE_BYTES_PER_SECOND": "0"})
    codes = sorted(sample_current.countries)
    for number in range(BURST):  # distinct 200-country queries, one client, one after another
        chosen = (codes[number:] + codes[:number])[:200]
        status, body = fetch(server.port, "/api/v1/readiness?codes=" + ",".join(chosen), timeout=30)
        assert status == 200 and len(body) > 1_000_000
    after_burst = used_memory(redis_server)

    assert warm_set <= answer_names(redis_server), "warmed answers were evicted"
    stats = redis_server.execute("INFO", "stats")
    assert stats["evicted_keys"] == 0
    assert server.metric("readiness_redis_writes_total", outcome="too_large") == BURST
    print(f"\nredis used_memory: after warm-up {after_warm / 1e6:.1f} MB, after {BURST} giant answers "
          f"{after_burst / 1e6:.1f} MB (maxmemory {MAXMEMORY / 1e6:.1f} MB), warm keys {len(warm_set)}")


SMALL_BURST = 700
"""Distinct four-country queries: about 40 KB each in Redis, 28 MB in all if every one were
written, more than the room MAXMEMORY leaves beside the warm set (without Redis admission, this
test fails: READINESS_REDIS_ADMIT_WINDOW_SECONDS=0 evicts most of the warm set)."""
SMALL_BURST_SECONDS = 60


def test_burst_of_small_one_off_answers_leaves_the_warm_set_in_redis(
    start: Start, redis_server: RedisServer, tmp_path: Path, sample_current: Snapshot
) -> None:
    warm_set = warm_up(redis_server)
    after_warm = used_memory(redis_server)
    server = launch(start, tmp_path, {"READINESS_REDIS_URL": redis_server.url, "READINESS_BEHIND_PROXY": "true",
                                      "READINESS_COMPUTE_BYTES_PER_SECOND": "0"})
    codes = sorted(sample_current.countries)
    chooser = random.Random(20)
    queries: set[str] = set()
    while len(queries) < SMALL_BURST + 1:
        queries.add(",".join(sorted(chooser.sample(codes, 4))))
    twice = queries.pop()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    deadline = time.monotonic() + SMALL_BURST_SECONDS
    try:
        for chosen in sorted(queries):  # one client, keep-alive, one after another
            connection.request("GET", "/api/v1/readiness?codes=" + chosen)
            response = connection.getresponse()
            assert response.status == 200 and len(response.read()) > 20_000
            assert time.monotonic() < deadline, "the burst took too long"
    finally:
        connection.close()
    after_burst = used_memory(redis_server)

    kept = warm_set & answer_names(redis_server)
    assert len(kept) >= 0.95 * len(warm_set), f"{len(warm_set) - len(kept)} of {len(warm_set)} warmed answers evicted"
    assert answer_names(redis_server) == kept, "one-off answers were written to Redis"
    assert server.metric("readiness_redis_deferred_total") == SMALL_BURST
    assert server.metric("readiness_redis_writes_total", outcome="written") == 0

    # An answer asked for again within the window by another client (a tier-1 hit) is written;
    # one client asking twice, under two spellings, is not another client.
    name = (ANSWER_PREFIX + cache_key(sample_current, "v1|codes=" + twice)).encode()
    one, another = {"X-Real-IP": "2001:db8:1:2::1"}, {"X-Real-IP": "198.51.100.7"}
    for spelling, client in ((twice, one), (",".join(reversed(twice.split(","))), one)):
        assert fetch(server.port, "/api/v1/readiness?codes=" + spelling, headers=client)[0] == 200
    assert fetch(server.port, "/api/v1/readiness?codes=" + twice, headers={"X-Real-IP": "2001:db8:1:2::ffff"})[0] == 200
    assert name not in answer_names(redis_server)  # its own /64: still the one client
    assert fetch(server.port, "/api/v1/readiness?codes=" + twice, headers=another)[0] == 200
    until(lambda: name in answer_names(redis_server), 10, "the answer another client asked for written to Redis")
    print(f"\nredis used_memory: after warm-up {after_warm / 1e6:.1f} MB, after {SMALL_BURST} one-off answers "
          f"{after_burst / 1e6:.1f} MB (maxmemory {MAXMEMORY / 1e6:.1f} MB); "
          f"warm keys kept {len(kept)} of {len(warm_set)}")
