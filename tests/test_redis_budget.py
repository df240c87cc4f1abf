"""Cache busting cannot evict the warm set: answers over the size cap never go to Redis.

A throwaway redis-server with a small ``maxmemory`` and ``allkeys-lru`` (the production
policy), warmed by the warm-up command, then a real server under a bounded burst of distinct
200-country queries (1.8 MB answers each): every warmed key must survive, and Redis must
evict nothing (docs/API.md, limits; docs/PERFORMANCE.md, Redis memory).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from loaders import Snapshot

from tests.conftest import ROOT, SAMPLE
from tests.processes import (
    RedisServer,
    Start,
    fetch,
    launch,
)

MAXMEMORY = 24 * 1024 * 1024
"""Room for the sample's warm set (about 7 MB) and some, not for the burst (30 x 1.8 MB)."""

BURST = 30


def answer_names(redis_server: RedisServer) -> set[bytes]:
    return set(redis_server.execute("KEYS", "readiness:answer:*"))


def used_memory(redis_server: RedisServer) -> int:
    return int(redis_server.execute("INFO", "memory")["used_memory"])


def test_burst_of_giant_answers_leaves_the_warm_set_in_redis(
    start: Start, redis_server: RedisServer, tmp_path: Path, sample_current: Snapshot
) -> None:
    redis_server.execute("CONFIG", "SET", "maxmemory", MAXMEMORY)
    redis_server.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    warmed = subprocess.run(
        [sys.executable, "-m", "readiness.freshness.warm", "--data-dir", str(SAMPLE), "--redis-url", redis_server.url],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert warmed.returncode == 0, warmed.stderr
    warm_set = answer_names(redis_server)
    assert len(warm_set) > 400
    after_warm = used_memory(redis_server)

    server = launch(start, tmp_path, {"READINESS_REDIS_URL": redis_server.url, "READINESS_CACHE_BYTES": "0"})
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
