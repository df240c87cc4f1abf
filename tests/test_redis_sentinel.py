"""The tier on a primary and its replica watched by Sentinel (tests/redis_topologies.py), through
``READINESS_REDIS_URL=redis+sentinel://…``: the primary killed under load, its replica
promoted, and the tier working again on the new primary: answers never stop, hits resume, new
answers are written there, announcements are heard there
(docs/OPERATIONS.md#redis-sentinel-and-redis-cluster).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from builder import announce_current
from loaders import Snapshot
from readiness.cache.answers import AnswerCodec
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX, warmed_key
from tests.conftest import ROOT, SAMPLE, add_snapshot, copy_tree, flip
from tests.processes import Load, Start, fetch, free_port, launch, until
from tests.redis_topologies import Replicated
from tests.test_redis_cluster import snapshot_served
from tests.test_redis_faults import PATHS, assert_all_correct, redis_key

HIT = {"tier": "redis", "outcome": "hit"}
LOOKUPS = "readiness_cache_lookups_total"
BREAKER_PAUSE_SECONDS = 1


def test_sentinel_primary_killed_under_load_answers_flow_and_the_new_primary_serves_fills_and_announces(
    start: Start, replicated: Replicated, tmp_path: Path, sample_current: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = replicated.url(free_port())
    warmed = subprocess.run(
        [sys.executable, "-m", "readiness.freshness.warm", "--data-dir", str(SAMPLE), "--redis-url", url],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert warmed.returncode == 0, warmed.stderr
    marker = warmed_key(cache_key(sample_current, ""))
    until(lambda: replicated.replica.execute("EXISTS", marker) == 1, 20, "the warm set replicated")

    data = copy_tree(SAMPLE, tmp_path / "data")
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_REDIS_URL": url,
        "READINESS_REDIS_TIMEOUT_MS": "2000",  # the subject is the failover, not a slow Redis
        "READINESS_CACHE_BYTES": "0",  # every request asks Redis
        "READINESS_REDIS_ADMIT_WINDOW_SECONDS": "0",
        "READINESS_COMPUTE_BYTES_PER_SECOND": "0",
        "READINESS_BREAKER_PAUSE_SECONDS": str(BREAKER_PAUSE_SECONDS),
        "READINESS_SNAPSHOT_POLL_SECONDS": "0",  # a new snapshot is heard of only by announcement
    })
    with Load([server.port], PATHS, max_seconds=90) as load:  # stopped by the test; only a bound
        load.wait_for_count(100)
        until(lambda: server.metric(LOOKUPS, **HIT) > 0, 20, "tier-2 hits before the kill")
        killed = time.monotonic()
        replicated.primary.kill()
        promoted = until(lambda: replicated.sentinel.primary_port() == replicated.replica.port, 20,
                         "the sentinel promoted the replica")
        hits = server.metric(LOOKUPS, **HIT)
        resumed = until(lambda: server.metric(LOOKUPS, **HIT) > hits + 10, 20, "tier-2 hits on the new primary")
        load.wait_for_count(100, after=time.monotonic())
    print(f"\nreplica promoted {promoted:.2f} s after the kill; tier-2 hits resumed {resumed:.2f} s later")
    assert_all_correct(load.samples)
    assert len([sample for sample in load.samples if sample.sent > killed]) >= 100

    # The cache fills again: a new answer goes to the new primary, and is a hit from there.
    new = "/api/v1/readiness?codes=FRA,DEU,KEN"
    assert fetch(server.port, new, timeout=30)[0] == 200
    until(lambda: replicated.replica.execute("EXISTS", redis_key(new)) == 1, 10, "a new answer on the new primary")
    value = replicated.replica.execute("GET", redis_key(new))
    assert AnswerCodec().unpack(redis_key(new).removeprefix(ANSWER_PREFIX), value) is not None
    hits = server.metric(LOOKUPS, **HIT)
    assert fetch(server.port, new, timeout=30)[0] == 200
    assert server.metric(LOOKUPS, **HIT) == hits + 1

    # Announcements: the listener subscribed again, on the new primary, where the publisher's
    # client, asking the sentinel, publishes.
    until(lambda: replicated.replica.execute("PUBSUB", "NUMSUB", "readiness:snapshots")[1] >= 1, 20,
          "the server subscribed on the new primary")
    add_snapshot(data, "2026-12", kenya_score=12.34)
    flip(data, "2026-12")
    monkeypatch.setenv("READINESS_REDIS_URL", url)
    announce_current(data, "2026-12")
    until(lambda: snapshot_served(server.port) == "2026-12", 30, "the announced snapshot served", step=0.1)
