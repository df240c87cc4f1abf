"""Automatic re-warm: a server notices that Redis lost the current snapshot's warm set and,
if no other server is already at it, runs the warm-up itself.

The warm-up leaves a marker key per snapshot (``readiness:warmed:<id>|<digest>|``) that lives
as long as the answers it wrote. A Redis that restarted, was flushed, evicted the marker or
simply let the answers expire has no marker: every server notices within
``READINESS_REWARM_CHECK_SECONDS``, one of them takes a Redis lock (SET NX with an expiry)
and warms, the others see the lock and wait for the next check (docs/OPERATIONS.md#re-warm-after-a-redis-restart).
Redis being down only means there is nothing to warm: every failure is logged and forgotten.
"""

from __future__ import annotations

import logging
from pathlib import Path

from redis.exceptions import LockError

from loaders import SnapshotStore
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import FAILURES, RedisClient, warmed_key, warming_key
from readiness.freshness.warm import WarmSettings, warm_snapshot

log = logging.getLogger("readiness.warm")

LOCK_SECONDS = 600
"""How long the warming server holds the lock at most: far longer than any warm-up (the
sample's: docs/PERFORMANCE.md#the-warm-up), short enough that a server killed mid-warm-up
delays the next one little."""


class Rewarmer:
    """Checks for the current snapshot's warm marker and re-warms Redis when it is missing."""

    def __init__(self, client: RedisClient, store: SnapshotStore, data_dir: Path, settings: WarmSettings) -> None:
        """``client`` is the warm-up's own connection, with patient timeouts (not the request
        path's 100 ms): a warm-up pipeline carries megabytes."""
        self.client = client
        self.store = store
        self.data_dir = data_dir
        self.settings = settings
        self.runs = 0
        """Warm-ups this server completed (for the log and tests)."""

    async def check(self) -> None:
        """Warm the current snapshot if Redis lacks its marker and no server holds the lock.

        Never raises: a failure (Redis down, the snapshot unreadable) is logged, and the next
        check tries again.
        """
        snapshot = self.store.current
        if snapshot is None:
            return
        prefix = cache_key(snapshot, "")
        try:
            if await self.client.exists(warmed_key(prefix)):
                return
            lock = self.client.lock(warming_key(prefix), timeout=LOCK_SECONDS, blocking=False)
            if not await lock.acquire():
                return  # another server is warming
        except FAILURES as error:
            log.debug("re-warm check skipped: redis unavailable (%s)", error)
            return
        log.info("redis has no warm set for snapshot %s; warming it", snapshot.id)
        try:
            summary = await warm_snapshot(self.client, self.data_dir, snapshot, self.settings)
        except FAILURES as error:
            log.warning("re-warm of snapshot %s failed (%s); the next check tries again", snapshot.id, error)
        else:
            self.runs += 1
            log.info("re-warm of snapshot %s: %s", snapshot.id, summary)
        finally:
            try:
                await lock.release()
            except (LockError, *FAILURES):
                pass  # expired or Redis gone: it lapses on its own

    async def close(self) -> None:
        """Close the warm-up's connection."""
        await self.client.aclose()
