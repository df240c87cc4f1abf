"""Tier 2: answers shared by every server through Redis, never on the critical path.

Every call has a short timeout and goes through a circuit breaker; any Redis error becomes a
miss (the answer is then computed locally) and a metric, never an error for the client
(docs/CACHING.md). This module is the one boundary that knows Redis key names (the snapshot
announcement channel is part of the data contract, in ``loaders``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException, RedisError

from config import RedisAddress, Topology
from readiness.cache.answers import AnswerCodec
from readiness.cache.breaker import CircuitBreaker
from readiness.domain.answer import Answer
from readiness.metrics import Metrics

log = logging.getLogger("readiness.cache")

ANSWER_PREFIX = "readiness:answer:"
POPULAR_PREFIX = "readiness:popular:"
WARMED_PREFIX = "readiness:warmed:"
WARMING_PREFIX = "readiness:warming:"

POPULAR_TTL_SECONDS = 90 * 86400
POPULAR_KEEP = 2_000
"""Members a popularity set keeps after each flush, the most counted first: ten times the
warm-up's default top N, so a rising query has room to climb, and a bounded set whatever
clients send (docs/CACHING.md#popularity)."""
MAX_COUNTED_LENGTH = 1024
"""Longer requests (some 200 codes and more) are not counted: with POPULAR_KEEP this bounds a
popularity set to about 2.5 MB whatever clients send."""
MAX_COUNTED_QUERIES = 10_000
"""Distinct queries counted between two flushes; more are not counted (bounded memory)."""

MAX_ANSWER_BYTES = 128 * 1024
"""Default cap on the body plus gzip copy of an answer a server writes to Redis: the largest
warmed answer (all countries, 110 KB) fits; a one-off many-country answer with details
(1.8 MB) does not, so it cannot evict the warm set (docs/API.md#limits)."""

REJECTION_LOG_SECONDS = 60
"""At most one log line per minute about rejected values; the metric counts every one."""

RedisClient = Redis | RedisCluster
"""A client of the tier: one server's or a Sentinel-watched primary's (``Redis``), or a Redis
Cluster's, which sends each command to the node holding its key. Every command the service
sends names one key (a pipeline's commands too), so none needs keys sharing a hash slot."""

FAILURES = (RedisError, RedisClusterException, OSError, asyncio.TimeoutError)
"""What a Redis call may raise when Redis fails: a cluster that cannot be reached raises
RedisClusterException, which is not a RedisError."""


def popular_key(snapshot_id: str) -> str:
    """The sorted set counting requests per query for one snapshot (read by the warm-up)."""
    return POPULAR_PREFIX + snapshot_id


def warmed_key(prefix: str) -> str:
    """The marker the warm-up writes after warming the snapshot whose cache keys start with
    ``prefix``; while it is missing, that snapshot's answers are not (all) in Redis."""
    return WARMED_PREFIX + prefix


def warming_key(prefix: str) -> str:
    """The lock held by the one process warming the snapshot whose keys start with ``prefix``."""
    return WARMING_PREFIX + prefix


async def store_answers(client: RedisClient, codec: AnswerCodec, entries: Sequence[tuple[str, Answer, int]]) -> int:
    """Write (cache key, answer, ttl) entries in one round trip; return the bytes written.

    For the warm-up, which must know when Redis fails: raises one of FAILURES.
    """
    written = 0
    async with client.pipeline(transaction=False) as pipe:
        for key, answer, ttl in entries:
            packed = codec.pack(key, answer)
            written += len(packed)
            pipe.set(ANSWER_PREFIX + key, packed, ex=ttl)
        await pipe.execute()
    return written


class RedisTier:
    """get/put of packed Answers under ``readiness:answer:<cache key>``, behind a breaker."""

    def __init__(
        self,
        client: RedisClient,
        breaker: CircuitBreaker,
        metrics: Metrics,
        codec: AnswerCodec | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        clock: Callable[[], float] = time.monotonic,
        timeout: float | None = None,
    ) -> None:
        """Every call is bounded, so a slow Redis costs at most one timeout per breaker probe:
        by ``timeout`` seconds for the call as a whole, or, when it is None, by the client's
        short socket timeouts (``connect`` makes such a client). ``codec`` signs and checks
        values (default: the public default key); answers whose body and gzip copy exceed
        ``max_answer_bytes`` are not written.

        ``timeout`` with a client without socket timeouts (``connect(..., socket_timeouts=False)``)
        is what the server uses: one deadline per call is cheaper than redis-py's socket
        timeouts, which on Python 3.11 run each command's write in a Task of its own
        (``asyncio.wait_for``) and its read under a second timer: one deadline costs less CPU
        per lookup (docs/PERFORMANCE.md#tier-2-hits-where-the-time-went-2026-11-23)."""
        self.client = client
        self.timeout = timeout
        self.breaker = breaker
        self.codec = codec or AnswerCodec()
        self.max_answer_bytes = max_answer_bytes
        self._clock = clock
        self._hit = metrics.cache.labels("redis", "hit")
        self._miss = metrics.cache.labels("redis", "miss")
        self._error = metrics.cache.labels("redis", "error")
        self._skipped = metrics.cache.labels("redis", "skipped")
        self._rejected = metrics.cache.labels("redis", "rejected")
        self._too_large = metrics.redis_writes.labels("too_large")
        self._written = metrics.redis_writes.labels("written")
        self._logged_rejection = -float("inf")
        self._counted: set[tuple[str, str]] = set()

    async def get(self, key: str) -> Answer | None:
        """The answer stored under ``key``; None on a miss, an error or an open breaker."""
        if not self.breaker.allow():
            self._skipped.inc()
            return None
        try:
            async with asyncio.timeout(self.timeout):
                data = await self.client.get(ANSWER_PREFIX + key)
        except FAILURES as error:
            self._failed("get", error)
            return None
        self.breaker.success()
        if data is None:
            self._miss.inc()
            return None
        answer = self.codec.unpack(key, data) if isinstance(data, bytes) else None
        if answer is None:
            self._rejected.inc()  # a miss: the caller computes the answer and overwrites it
            self._log_rejection(key)
            return None
        self._hit.inc()
        return answer

    def fits(self, answer: Answer) -> bool:
        """Whether ``put`` would store ``answer``: its body and gzip copy are within
        ``max_answer_bytes``."""
        return len(answer.body) + len(answer.gzipped or b"") <= self.max_answer_bytes

    async def put(self, key: str, answer: Answer, ttl_seconds: int) -> None:
        """Store an answer for ``ttl_seconds``; failures are counted and forgotten. An answer
        over ``max_answer_bytes`` is not stored: one-off giant answers must not evict others."""
        if not self.fits(answer):
            self._too_large.inc()
            return
        if not self.breaker.allow():
            return
        try:
            async with asyncio.timeout(self.timeout):
                await self.client.set(ANSWER_PREFIX + key, self.codec.pack(key, answer), ex=ttl_seconds)
        except FAILURES as error:
            self._failed("set", error)
            return
        self.breaker.success()
        self._written.inc()

    def count(self, snapshot_id: str, member: str) -> None:
        """Note that a query was answered from a cache, in memory; ``flush_counts`` sends the
        notes to Redis. A query counts once per flush, however often it was asked: volume from
        one client cannot outrank queries asked steadily."""
        if len(self._counted) < MAX_COUNTED_QUERIES and len(member) <= MAX_COUNTED_LENGTH:
            self._counted.add((snapshot_id, member))

    async def flush_counts(self) -> None:
        """Add one to each noted query's score in its snapshot's popularity set, and trim each
        set to its POPULAR_KEEP highest members, in one round trip."""
        if not self._counted or not self.breaker.allow():
            return
        counted, self._counted = self._counted, set()
        try:
            async with asyncio.timeout(self.timeout), self.client.pipeline(transaction=False) as pipe:
                for snapshot_id, member in counted:
                    pipe.zincrby(popular_key(snapshot_id), 1, member)
                for snapshot_id in {snapshot_id for snapshot_id, _ in counted}:
                    pipe.zremrangebyrank(popular_key(snapshot_id), 0, -POPULAR_KEEP - 1)
                    pipe.expire(popular_key(snapshot_id), POPULAR_TTL_SECONDS)
                await pipe.execute()
        except FAILURES as error:
            self._failed("count", error)
            return
        self.breaker.success()

    def _log_rejection(self, key: str) -> None:
        now = self._clock()
        if now - self._logged_rejection >= REJECTION_LOG_SECONDS:
            self._logged_rejection = now
            log.warning("redis value under %r failed its check (written by something without the signing "
                        "key, for another key, or damaged); treated as a miss. Further ones this minute are "
                        "only counted (readiness_cache_lookups_total{tier=\"redis\",outcome=\"rejected\"})", key)

    def _failed(self, operation: str, error: BaseException) -> None:
        self._error.inc()
        was_open = self.breaker.is_open
        self.breaker.failure()
        if self.breaker.is_open and not was_open:
            log.warning("redis %s failed (%s); breaker open for %ss",
                        operation, error or type(error).__name__, self.breaker.pause)


def connect(url: str, timeout: float, *, socket_timeouts: bool = True) -> RedisClient:
    """A client of the Redis ``url`` names (config/redis_address.py), with short connect and
    socket timeouts, so a dead Redis fails fast, and no retries: the breaker decides when to
    try again, not the client.

    ``socket_timeouts=False``: a connect timeout only, for a caller that bounds every call
    itself (``RedisTier`` with its ``timeout``); redis-py disconnects a connection whose
    command was cancelled, so no late reply is read by the next command.
    """
    address = RedisAddress.parse(url)
    socket_timeout = timeout if socket_timeouts else None
    if address.topology is Topology.CLUSTER:
        return RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in address.nodes],
            username=address.username, password=address.password, ssl=address.tls,
            socket_timeout=socket_timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0),
            max_connections=64, health_check_interval=0,
        )
    if address.topology is Topology.SENTINEL:
        return _primary(address, timeout, socket_timeout)
    return Redis.from_url(
        url, socket_timeout=socket_timeout, socket_connect_timeout=timeout, retry_on_timeout=False,
        retry=Retry(NoBackoff(), 0), max_connections=64, health_check_interval=0,
    )


def _primary(address: RedisAddress, timeout: float, socket_timeout: float | None) -> Redis:
    """A client of the primary the sentinels of ``address`` name, asked again for every new
    connection, so that one after a failover reaches the new primary.

    Each sentinel is given a share of ``timeout``, and always a socket timeout: one that hangs
    must leave time to ask the next, then to connect to the primary. They are reached without
    the URL's credentials (Sentinel has its own, which this URL does not carry), over TLS when
    the URL says so.
    """
    share = timeout / (len(address.nodes) + 1)
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        address.nodes,
        sentinel_kwargs={"socket_timeout": share, "socket_connect_timeout": share, "ssl": address.tls,
                         "retry": Retry(NoBackoff(), 0), "health_check_interval": 0},
    )
    primary: Redis = sentinel.master_for(
        address.service, redis_class=_SentinelPrimary, db=address.db,
        username=address.username, password=address.password, ssl=address.tls,
        socket_timeout=socket_timeout, socket_connect_timeout=timeout, retry_on_timeout=False,
        retry=Retry(NoBackoff(), 0), max_connections=64, health_check_interval=0,
    )
    return primary


class _SentinelPrimary(Redis):
    """The primary's client, which closes the sentinels' connections with its own."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        await super().aclose(close_connection_pool)
        if isinstance(self.connection_pool, SentinelConnectionPool):
            await self.connection_pool.sentinel_manager.aclose()


async def prepare(client: RedisClient, timeout: float) -> None:
    """Read a cluster's slot map and command table now, within ``timeout``, not in a request's
    first lookup: a RedisCluster client reads them on its first command (30 to 90 ms measured
    on the development VM), more than a lookup's deadline on a busy machine, and a lookup cut
    short leaves the next one to start again. Nothing to do for any other client. A failure is
    logged: the first lookups then read them, as they would have.
    """
    if not isinstance(client, RedisCluster):
        return
    try:
        async with asyncio.timeout(timeout):
            await client.initialize()
    except FAILURES as error:
        log.warning("redis cluster not reachable at start (%s); the first lookups will try again", error)


async def subscriber(client: RedisClient) -> PubSub:
    """A pub/sub connection of ``client`` that skips subscription confirmations. Raises one of
    FAILURES.

    On a cluster, the slot map is read first, each time: redis-py's cluster pub/sub looks the
    channel's node up in it without reading it (a KeyError on a fresh client), and after a
    failure the node may have moved (a failover) while nothing else makes this client read it
    again.
    """
    if isinstance(client, RedisCluster):
        await client.initialize()  # first use: the client's own set-up, the map included
        await client.nodes_manager.initialize()
    return client.pubsub(ignore_subscribe_messages=True)
