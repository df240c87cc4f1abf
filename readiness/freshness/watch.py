"""Live snapshot swap: notice that CURRENT changed, by polling and by Redis pub/sub.

Both paths call one ``refresh``; whichever comes first swaps, the other finds nothing to do.
"""

from __future__ import annotations

import asyncio
import logging

from loaders import SNAPSHOT_CHANNEL, SnapshotStore
from readiness.cache.redis_tier import FAILURES, RedisClient, subscriber
from readiness.service import ReadinessService

log = logging.getLogger("readiness.watch")


class SnapshotWatcher:
    """Swaps the service's store to a new current snapshot and forgets the replaced one's
    answers in the service's own tier 1.

    It takes the service, not a store and a cache, so that it can only ever empty the cache
    the service answers from (docs/CACHING.md#live-snapshot-swap).
    """

    def __init__(self, service: ReadinessService) -> None:
        self.service = service
        self.stopped = False

    @property
    def store(self) -> SnapshotStore:
        """The store the service answers from."""
        return self.service.store

    async def refresh(self) -> None:
        """Check CURRENT once, and the archives in memory; drop the in-process answers of
        every snapshot replaced, including one replaced under the same id (``--replace``);
        read again the snapshots whose last read failed (``SnapshotStore.recover``)."""
        replaced = await self.store.refresh()
        ids = ([] if replaced is None else [replaced.id]) + await self.store.replaced_archives()
        for snapshot_id in ids:
            dropped = self.service.memory.discard_prefix(f"{snapshot_id}|")
            log.info("dropped %d cached answers of snapshot %s", dropped, snapshot_id)
        await self.store.recover()  # answers naming a recovered snapshot have other keys: nothing to drop

    async def listen(self, client: RedisClient, retry_seconds: float) -> None:
        """Refresh whenever the publisher announces a snapshot; reconnect after failures.

        Runs until ``stop()``: it checks every second rather than relying on cancellation,
        which Python 3.11 can lose inside redis-py's timed reads. Polling covers the time
        Redis is away.
        """
        while not self.stopped:
            try:
                async with await subscriber(client) as pubsub:
                    await pubsub.subscribe(SNAPSHOT_CHANNEL)
                    while not self.stopped:
                        message = await pubsub.get_message(timeout=1.0)
                        if message is not None:
                            log.info("snapshot announced: %r", message.get("data"))
                            await self.refresh()
            except FAILURES as error:
                log.warning("snapshot channel unavailable (%s); retrying in %ss", error, retry_seconds)
                await asyncio.sleep(retry_seconds)

    def stop(self) -> None:
        """Make ``listen`` return within a second."""
        self.stopped = True


async def announce(client: RedisClient, snapshot_id: str) -> int:
    """Tell every server that ``snapshot_id`` is now current; returns how many listened."""
    return int(await client.publish(SNAPSHOT_CHANNEL, snapshot_id))
