"""A Redis Cluster and a Sentinel-watched primary of real processes on 127.0.0.1, for the tests
of the tier on each (tests/test_redis_cluster.py, tests/test_redis_sentinel.py).

Debian's ``redis-server`` as three cluster primaries (created with ``redis-cli --cluster
create``), and ``redis-server`` as a primary and its replica watched by Debian's
``redis-sentinel``. Every port comes from this worker's block (tests/workers.py), the cluster
bus ports too (``--cluster-port``: the default, port + 10000, would land in another worker's
block or the ephemeral range); nothing is persisted; every process is killed when its fixture
ends.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import unavailable
from tests.processes import RedisServer, free_ports, redis_server_executable, until

SERVICE = "readiness"
"""The Sentinel service (``sentinel monitor`` name) of the primary the tests use."""

DOWN_AFTER_MS = 500
"""How long the sentinel waits before calling an unanswering primary down: short, so a test
sees a failover in about two seconds, not Sentinel's default thirty."""


def _tool(name: str, package: str, why: str) -> str:
    executable = shutil.which(name)
    if executable is None:
        unavailable(f"{name} is not installed (Debian: apt-get install {package}): {why}")
    return executable


class Cluster:
    """Three cluster primaries, each holding a third of the slots, and ``replicas`` replicas of
    each, which the cluster promotes when their primary is silent for ``node_timeout_ms``."""

    def __init__(self, directory: Path, replicas: int = 0, node_timeout_ms: int = 5000) -> None:
        why = "the Redis Cluster tests start a cluster of their own"
        executable = redis_server_executable(why)
        self.cli = _tool("redis-cli", "redis-tools", why)
        self.replicas = replicas
        count = 3 * (1 + replicas)
        ports = free_ports(2 * count)
        self.nodes = [
            RedisServer(executable, port, directory / f"cluster-{port}.log", [
                "--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf",
                "--cluster-port", str(bus), "--cluster-node-timeout", str(node_timeout_ms),
                # A replica's first sync at once, not after five seconds: until then it cannot
                # be promoted.
                "--repl-diskless-sync-delay", "0",
            ])
            for port, bus in zip(ports[:count], ports[count:], strict=True)
        ]

    @property
    def url(self) -> str:
        """The service's URL for it: two nodes listed, as a deployment would (either gives the
        slot map)."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes[:2])

    def start(self) -> None:
        """Start the three, make them one cluster, and return once every node says it is ok."""
        for node in self.nodes:
            node.start()
        subprocess.run(
            [self.cli, "--cluster", "create", *(f"127.0.0.1:{node.port}" for node in self.nodes),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )
        until(lambda: all(b"cluster_state:ok" in node.execute("CLUSTER", "INFO") for node in self.nodes),
              30, "every node reports cluster_state:ok", step=0.05)
        until(lambda: sum(node.execute("INFO", "replication").get("master_link_status") == "up"
                          for node in self.nodes) == 3 * self.replicas,
              30, "every replica in sync", step=0.05)

    def kill(self) -> None:
        for node in self.nodes:
            node.kill()

    def holder(self, key: str | bytes) -> RedisServer:
        """The primary whose slots hold ``key`` (or the channel ``key``), as a running node sees it."""
        running = next(node for node in self.nodes if node.process is not None)
        slot = int(running.execute("CLUSTER", "KEYSLOT", key))
        for first, last, (_, port, *_), *_ in running.execute("CLUSTER", "SLOTS"):
            if first <= slot <= last:
                return next(node for node in self.nodes if node.port == port)
        raise AssertionError(f"no node holds slot {slot}")

    def replica_of(self, primary: RedisServer) -> RedisServer:
        """The replica of ``primary`` (a replica answers ROLE with its primary's port)."""
        return next(node for node in self.nodes
                    if node is not primary and node.execute("ROLE")[:3:2] == [b"slave", primary.port])

    def keys(self, pattern: str) -> set[bytes]:
        """The keys matching ``pattern`` on every node."""
        return {key for node in self.nodes for key in node.execute("KEYS", pattern)}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One Redis Cluster for a module's tests (creating one takes seconds): ``cluster_empty``
    flushes it for each test."""
    started = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        started.start()
        yield started
    finally:
        started.kill()


@pytest.fixture
def replicated_cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A cluster whose primaries each have a replica, promoted after 1.5 s of silence; killed
    at the end of the test."""
    started = Cluster(tmp_path, replicas=1, node_timeout_ms=1500)
    try:
        started.start()
        yield started
    finally:
        started.kill()


@pytest.fixture
def cluster_empty(cluster: Cluster) -> Cluster:
    """The module's cluster, every node flushed."""
    for node in cluster.nodes:
        node.execute("FLUSHALL")
    return cluster


class SentinelServer(RedisServer):
    """A redis-sentinel process watching one primary under SERVICE; Sentinel rewrites its
    configuration file, so each has its own beside its log."""

    def __init__(self, executable: str, port: int, log: Path, primary: int) -> None:
        super().__init__(executable, port, log)
        self.config = log.with_suffix(".conf")
        self.config.write_text(
            f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 1\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} 10000\n"
        )

    def command(self) -> list[str]:
        return [self.executable, str(self.config), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.log.parent)]

    def primary_port(self) -> int:
        """The port of the server this sentinel names as SERVICE's primary."""
        _, port = self.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        return int(port)


class Replicated:
    """A primary, its replica and one sentinel watching them."""

    def __init__(self, directory: Path) -> None:
        server = redis_server_executable("the Sentinel tests start a primary and a replica of their own")
        sentinel = _tool("redis-sentinel", "redis-sentinel", "the Sentinel tests fail a primary over")
        primary, replica, watcher = free_ports(3)
        # No diskless-sync delay: the replica's first sync would otherwise wait five seconds.
        self.primary = RedisServer(server, primary, directory / "primary.log", ["--repl-diskless-sync-delay", "0"])
        self.replica = RedisServer(server, replica, directory / "replica.log",
                                   ["--replicaof", "127.0.0.1", str(primary)])
        self.sentinel = SentinelServer(sentinel, watcher, directory / "sentinel.log", primary)

    def url(self, unreachable: int, db: int = 0) -> str:
        """The service's URL: a sentinel at ``unreachable`` (nothing listens there) listed first,
        so every lookup of the primary also shows that a sentinel that is down is passed over."""
        return f"redis+sentinel://127.0.0.1:{unreachable},127.0.0.1:{self.sentinel.port}/{SERVICE}/{db}"

    def start(self) -> None:
        """Start the three; return once the replica is in sync and the sentinel knows it."""
        self.primary.start()
        self.replica.start()
        until(lambda: self.replica.execute("INFO", "replication")["master_link_status"] == "up",
              20, "the replica in sync with the primary", step=0.05)
        self.sentinel.start()
        until(self._replica_ready, 20, "the sentinel sees the replica in sync, ready to promote", step=0.05)

    def _replica_ready(self) -> bool:
        replicas = self.sentinel.execute("SENTINEL", "REPLICAS", SERVICE)
        return any(replica[b"flags"] == b"slave" and replica[b"master-link-status"] == b"ok" for replica in replicas)

    def kill(self) -> None:
        for server in (self.sentinel, self.replica, self.primary):
            server.kill()


@pytest.fixture
def replicated(tmp_path: Path) -> Iterator[Replicated]:
    """A started primary, replica and sentinel, killed at the end of the test."""
    started = Replicated(tmp_path)
    try:
        started.start()
        yield started
    finally:
        started.kill()
