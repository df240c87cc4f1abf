"""SnapshotStore: the current snapshot, and archives loaded on first use.

Archives are read in a worker thread so a cold archive never stalls other requests, one
read per archive at a time, and kept in a small LRU so that any number of requests for old
years holds at most ``archive_slots`` snapshots in memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from pathlib import Path

from loaders.model import Snapshot
from loaders.reader import SNAPSHOT_ID, SnapshotRefused, load_snapshot, read_current_id

log = logging.getLogger("readiness.loaders")


class SnapshotStore:
    """Snapshots of one data directory (DESIGN §2): ``current`` and archives by id."""

    def __init__(self, data_dir: Path, archive_slots: int = 4) -> None:
        self.data_dir = data_dir
        self.archive_slots = archive_slots
        self.current: Snapshot | None = None
        self._archives: OrderedDict[str, Snapshot] = OrderedDict()
        self._refused: set[str] = set()
        self._loading: dict[str, asyncio.Future[Snapshot | None]] = {}
        self._refreshing = asyncio.Lock()

    def load_current(self) -> Snapshot | None:
        """Load the snapshot CURRENT names; keep the one already loaded if that fails (logged)."""
        snapshot_id = read_current_id(self.data_dir)
        if snapshot_id is None:
            return self.current
        snapshot = self._load(snapshot_id)
        if snapshot is not None:
            self.current = snapshot
            log.info("current snapshot %s: %d countries", snapshot.id, len(snapshot.countries))
        return self.current

    async def refresh(self) -> Snapshot | None:
        """Swap to the snapshot CURRENT names if it changed; return the replaced one, if any.

        The new snapshot is read in a worker thread while the old one keeps serving; the swap
        is one assignment, so every request sees one snapshot or the other, never a mix.
        A refused snapshot is not read again on every call; the old one stays current.
        """
        async with self._refreshing:
            snapshot_id = read_current_id(self.data_dir)
            old = self.current
            if snapshot_id is None or snapshot_id in self._refused or (old is not None and old.id == snapshot_id):
                return None
            snapshot = await asyncio.get_running_loop().run_in_executor(None, self._load, snapshot_id)
            if snapshot is None:
                self._refused.add(snapshot_id)
                return None
            self.current = snapshot
            self._archives.pop(snapshot_id, None)
            log.info("swapped to snapshot %s (was %s)", snapshot_id, old.id if old else None)
            return old

    async def archive(self, snapshot_id: str) -> Snapshot | None:
        """Return the snapshot with this id, or None when it is absent, refused, or newer than
        the current one (placed for publishing but not yet published: DESIGN §2)."""
        if self.current is None or snapshot_id > self.current.id:
            return None
        if self.current.id == snapshot_id:
            return self.current
        cached = self._archives.get(snapshot_id)
        if cached is not None:
            self._archives.move_to_end(snapshot_id)
            return cached
        if (
            not SNAPSHOT_ID.match(snapshot_id)  # never let a malformed id near the file system
            or snapshot_id in self._refused
            or not self._directory(snapshot_id).is_dir()
        ):
            return None
        pending = self._loading.get(snapshot_id)
        if pending is None:
            pending = asyncio.ensure_future(self._load_archive(snapshot_id))
            self._loading[snapshot_id] = pending
        return await asyncio.shield(pending)

    async def _load_archive(self, snapshot_id: str) -> Snapshot | None:
        try:
            snapshot = await asyncio.get_running_loop().run_in_executor(
                None, self._load, snapshot_id
            )
        finally:
            del self._loading[snapshot_id]
        if snapshot is None:
            self._refused.add(snapshot_id)
        else:
            self._archives[snapshot_id] = snapshot
            while len(self._archives) > self.archive_slots:
                self._archives.popitem(last=False)
        return snapshot

    def _load(self, snapshot_id: str) -> Snapshot | None:
        try:
            return load_snapshot(self._directory(snapshot_id))
        except SnapshotRefused as refused:
            log.error("%s", refused)
            return None

    def _directory(self, snapshot_id: str) -> Path:
        return self.data_dir / "snapshots" / snapshot_id
