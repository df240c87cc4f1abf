"""The tier on a Redis Cluster of three primaries (tests/redis_topologies.py): the warm-up, the
popularity counts, a server's answers, its re-warm and the snapshot announcements, through
``READINESS_REDIS_URL=redis+cluster://…`` (docs/OPERATIONS.md#redis-sentinel-and-redis-cluster).

Every command the service sends names one key, so a cluster needs no hash tags: a pipeline's
commands go to their keys' nodes. These tests put keys on every node and show it.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from builder import announce_current
from loaders import SNAPSHOT_CHANNEL, Snapshot
from readiness.cache.answers import AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier, connect, popular_key, warmed_key
from readiness.metrics import Metrics
from tests.conftest import ROOT, SAMPLE, add_snapshot, copy_tree, flip, gen_test
from tests.processes import Start, fetch, launch, until
from tests.redis_topologies import Cluster
from tests.test_redis_faults import PATHS, redis_key, reference

HIT = {"tier": "redis", "outcome": "hit"}
LOOKUPS = "readiness_cache_lookups_total"
COUNTED = "v1|codes=BRA,KEN"
"""A query the standard warm set lacks: warmed only because it was counted."""


@gen_test(timeout=60)
async def test_cluster_counts_flush_across_primaries_and_the_warm_up_reads_them(
    cluster_empty: Cluster, sample_current: Snapshot
) -> None:
    # Two snapshots' sets in slots of two primaries, flushed in one pipeline (RedisTier.flush_counts).
    current, older = popular_key(sample_current.id), popular_key("2025-12")
    assert cluster_empty.holder(current) is not cluster_empty.holder(older)
    async with connect(cluster_empty.url, timeout=5.0) as client:
        tier = RedisTier(client, CircuitBreaker(1, 60), Metrics(lambda: None, lambda: False))
        tier.count(sample_current.id, COUNTED)
        tier.count("2025-12", "legacy|")
        await tier.flush_counts()
        assert not tier.breaker.is_open
        assert await client.zscore(current, COUNTED) == 1.0
        assert await client.zscore(older, "legacy|") == 1.0

    warmed = subprocess.run(
        [sys.executable, "-m", "readiness.freshness.warm", "--data-dir", str(SAMPLE), "--redis-url", cluster_empty.url],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert warmed.returncode == 0, warmed.stderr
    assert warmed.stdout.startswith("warmed 471 keys"), warmed.stdout  # 470 standard ones, and the counted one

    # Spread over every primary, each value signed for its own key.
    for node in cluster_empty.nodes:
        assert len(node.execute("KEYS", ANSWER_PREFIX + "*")) > 100, node.port
    counted = cache_key(sample_current, COUNTED)
    value = cluster_empty.holder(ANSWER_PREFIX + counted).execute("GET", ANSWER_PREFIX + counted)
    assert AnswerCodec().unpack(counted, value) is not None
    assert AnswerCodec().unpack(cache_key(sample_current, "v1|codes=KEN"), value) is None
    assert cluster_empty.holder(warmed_key(cache_key(sample_current, ""))).execute(
        "EXISTS", warmed_key(cache_key(sample_current, ""))) == 1


def test_cluster_server_rewarms_answers_from_it_and_hears_announcements(
    start: Start, cluster_empty: Cluster, tmp_path: Path, sample_current: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_REDIS_URL": cluster_empty.url,
        "READINESS_CACHE_BYTES": "0",  # every request asks Redis
        "READINESS_REDIS_ADMIT_WINDOW_SECONDS": "0",
        "READINESS_COMPUTE_BYTES_PER_SECOND": "0",
        "READINESS_REWARM_CHECK_SECONDS": "1",
        "READINESS_SNAPSHOT_POLL_SECONDS": "0",  # a new snapshot is heard of only by announcement
        # Hits are counted exactly below: the default 100 ms, under a loaded suite, once made a
        # lookup an error (a miss) where the answer was there.
        "READINESS_REDIS_TIMEOUT_MS": "2000",
    })
    # The re-warm: the marker is missing, the server takes the lock (a Lua script on the lock's
    # node) and warms the cluster, as the warm-up command does.
    marker = warmed_key(cache_key(sample_current, ""))
    until(lambda: cluster_empty.holder(marker).execute("EXISTS", marker) == 1, 60, "the cluster re-warmed", step=0.1)
    assert len(cluster_empty.keys(ANSWER_PREFIX + "*")) >= 470

    warm = [path for path in PATHS if _stored(cluster_empty, path)]
    assert 0 < len(warm) < len(PATHS)
    for path in PATHS:
        assert fetch(server.port, path, timeout=30) == (200, reference(path)), path
    assert server.metric(LOOKUPS, **HIT) == len(warm)
    # The others were computed and written (admission off): every answer is a hit now.
    until(lambda: all(_stored(cluster_empty, path) for path in PATHS), 10, "every computed answer in the cluster")
    for path in PATHS:
        assert fetch(server.port, path, timeout=30) == (200, reference(path)), path
    assert server.metric(LOOKUPS, **HIT) == len(warm) + len(PATHS)
    assert server.metric(LOOKUPS, tier="redis", outcome="rejected") == 0

    # The listener subscribed on its channel's node; a PUBLISH on any node reaches it.
    until(lambda: sum(node.execute("PUBSUB", "NUMSUB", SNAPSHOT_CHANNEL)[1] for node in cluster_empty.nodes) >= 1,
          20, "the server subscribed to snapshot announcements")
    add_snapshot(data, "2026-12", kenya_score=12.34)
    flip(data, "2026-12")
    monkeypatch.setenv("READINESS_REDIS_URL", cluster_empty.url)
    announce_current(data, "2026-12")
    until(lambda: snapshot_served(server.port) == "2026-12", 30, "the announced snapshot served", step=0.1)


def _stored(cluster: Cluster, path: str) -> bool:
    """Whether the cluster holds the answer to ``path``, on the node of its key's slot."""
    return bool(cluster.holder(redis_key(path)).execute("EXISTS", redis_key(path)))


def snapshot_served(port: int) -> str | None:
    """The snapshot a server answers from now (its X-Readiness-Snapshot)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/readiness?code=KEN", timeout=30) as response:
        return response.headers["X-Readiness-Snapshot"]


def test_cluster_primary_lost_its_replica_serves_and_the_listener_subscribes_there(
    start: Start, replicated_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_REDIS_URL": replicated_cluster.url,
        "READINESS_CACHE_BYTES": "0",  # every request asks Redis
        "READINESS_REDIS_ADMIT_WINDOW_SECONDS": "0",
        "READINESS_SNAPSHOT_POLL_SECONDS": "0",  # a new snapshot is heard of only by announcement
        "READINESS_REWARM_CHECK_SECONDS": "0",
        "READINESS_BREAKER_PAUSE_SECONDS": "1",  # the listener's pause between attempts too
    })
    lost = replicated_cluster.holder(SNAPSHOT_CHANNEL)
    # An answer on the primary about to be lost, replicated to its replica.
    path = next(path for path in PATHS if replicated_cluster.holder(redis_key(path)) is lost)
    assert fetch(server.port, path, timeout=30) == (200, reference(path))
    replica = replicated_cluster.replica_of(lost)
    until(lambda: lost.execute("EXISTS", redis_key(path)) == 1 and replica.execute("DBSIZE") == lost.execute("DBSIZE"),
          10, "the answer on the primary and its replica")
    until(lambda: lost.execute("PUBSUB", "NUMSUB", SNAPSHOT_CHANNEL)[1] == 1, 20, "the server subscribed")
    lost.kill()
    until(lambda: replicated_cluster.holder(SNAPSHOT_CHANNEL) is not lost, 30, "the cluster promoted a replica",
          step=0.1)
    # The tier's client reads the new map after its first failed lookups: hits from the replica.
    hits = server.metric(LOOKUPS, **HIT)
    until(lambda: fetch(server.port, path, timeout=30) == (200, reference(path))
          and server.metric(LOOKUPS, **HIT) > hits, 20, "a tier-2 hit from the promoted replica", step=0.1)
    # The listener reads the slot map again before subscribing again, or it would keep trying
    # the lost node: nothing else makes its client read the map.
    promoted = replicated_cluster.holder(SNAPSHOT_CHANNEL)
    until(lambda: promoted.execute("PUBSUB", "NUMSUB", SNAPSHOT_CHANNEL)[1] == 1, 20,
          "the server subscribed on the promoted replica", step=0.1)
    add_snapshot(data, "2026-12", kenya_score=12.34)
    flip(data, "2026-12")
    monkeypatch.setenv("READINESS_REDIS_URL", replicated_cluster.url)
    announce_current(data, "2026-12")
    until(lambda: snapshot_served(server.port) == "2026-12", 30, "the announced snapshot served", step=0.1)
