"""Tier 2: answers shared by every server through Redis, never on the critical path.

Every call has a short timeout and goes through a circuit breaker; any Redis error becomes a
miss (the answer is then computed locally) and a metric, never an error for the client
(DESIGN §4). This module is the one boundary that knows Redis key names (the snapshot
announcement channel is part of the data contract, in ``loaders``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from readiness.breaker import CircuitBreaker
from readiness.cache import Answer
from readiness.metrics import Metrics

log = logging.getLogger("readiness.cache")

ANSWER_PREFIX = "readiness:answer:"
POPULAR_PREFIX = "readiness:popular:"

POPULAR_TTL_SECONDS = 90 * 86400
MAX_COUNTED_QUERIES = 10_000
"""Distinct queries counted between two flushes; more are not counted (bounded memory)."""

_FAILURES = (RedisError, OSError, asyncio.TimeoutError)


def popular_key(snapshot_id: str) -> str:
    """The sorted set counting requests per query for one snapshot (read by the warm-up)."""
    return POPULAR_PREFIX + snapshot_id


class RedisTier:
    """get/put of packed Answers under ``readiness:answer:<cache key>``, behind a breaker."""

    def __init__(self, client: Redis, breaker: CircuitBreaker, metrics: Metrics) -> None:
        """``client`` must have short socket timeouts (``connect`` makes one): they bound
        every call, so a slow Redis costs at most one timeout per breaker probe."""
        self.client = client
        self.breaker = breaker
        self._hit = metrics.cache.labels("redis", "hit")
        self._miss = metrics.cache.labels("redis", "miss")
        self._error = metrics.cache.labels("redis", "error")
        self._skipped = metrics.cache.labels("redis", "skipped")
        self._counts: Counter[tuple[str, str]] = Counter()

    async def get(self, key: str) -> Answer | None:
        """The answer stored under ``key``; None on a miss, an error or an open breaker."""
        if not self.breaker.allow():
            self._skipped.inc()
            return None
        try:
            data = await self.client.get(ANSWER_PREFIX + key)  # bounded by the socket timeouts
        except _FAILURES as error:
            self._failed("get", error)
            return None
        self.breaker.success()
        answer = Answer.unpack(data) if isinstance(data, bytes) else None
        (self._hit if answer is not None else self._miss).inc()
        return answer

    async def put(self, key: str, answer: Answer, ttl_seconds: int) -> None:
        """Store an answer for ``ttl_seconds``; failures are counted and forgotten."""
        if not self.breaker.allow():
            return
        try:
            await self.client.set(ANSWER_PREFIX + key, answer.pack(), ex=ttl_seconds)
        except _FAILURES as error:
            self._failed("set", error)
            return
        self.breaker.success()

    def count(self, snapshot_id: str, member: str) -> None:
        """Count one request for a query, in memory; ``flush_counts`` sends them to Redis."""
        entry = (snapshot_id, member)
        if entry in self._counts or len(self._counts) < MAX_COUNTED_QUERIES:
            self._counts[entry] += 1

    async def flush_counts(self) -> None:
        """Add the counted requests to each snapshot's popularity set in one round trip."""
        if not self._counts or not self.breaker.allow():
            return
        counts, self._counts = self._counts, Counter()
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for (snapshot_id, member), number in counts.items():
                    pipe.zincrby(popular_key(snapshot_id), number, member)
                for snapshot_id in {snapshot_id for snapshot_id, _ in counts}:
                    pipe.expire(popular_key(snapshot_id), POPULAR_TTL_SECONDS)
                await pipe.execute()
        except _FAILURES as error:
            self._failed("count", error)
            return
        self.breaker.success()

    def _failed(self, operation: str, error: BaseException) -> None:
        self._error.inc()
        was_open = self.breaker.is_open
        self.breaker.failure()
        if self.breaker.is_open and not was_open:
            log.warning("redis %s failed (%s); breaker open for %ss", operation, error or type(error).__name__, self.breaker.pause)


def connect(url: str, timeout: float) -> Redis:
    """A client with short connect and socket timeouts, so a dead Redis fails fast."""
    return Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry_on_timeout=False,
        retry=Retry(NoBackoff(), 0),  # the breaker decides when to try again, not the client
        max_connections=64,
        health_check_interval=0,
    )

