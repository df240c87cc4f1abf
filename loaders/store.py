"""SnapshotStore: the current snapshot, and archives loaded on first use.

Every file-system access after start-up goes through ``loaders.bounded``: worker threads,
awaited for at most ``read_timeout`` seconds, shared while they run. A hung volume (a stuck
NFS read) costs a log line and an unchanged snapshot, never the event loop.

A snapshot that cannot be served (refused, unreadable, or loaded with country files skipped)
is read again after a backoff, or at once when its manifest changes; so a later valid state of
the same id is picked up without a restart (docs/DATA.md). The current snapshot is also read
again when its manifest changes under the same id (a publish with ``--replace``). For the
current one ``refresh`` does it; for every other listed snapshot (archives, summaries)
``recover``, on every poll: a volume that failed for a moment costs answers that lack a
snapshot for a poll or two (``missing``, ``unreadable``), never until a restart.

Archives are kept in a small LRU of ``archive_slots`` snapshots, and every archive read once
is also kept packed (``loaders.compact``), so an evicted archive comes back for a small
fraction of the CPU a read from its files costs (docs/PERFORMANCE.md#archives-evicted-and-asked-for-again).

Every snapshot read, and every snapshot of the listing up to the current one on
``summaries()``, leaves its ``Summary`` (``loaders.summary``): manifest facts and the slim
score series that the catalogue and history answer from, one per snapshot id, checked against
its manifest's digest. Filling them never touches the archive LRU.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from loaders.bounded import BoundedReads, ReadTimeout
from loaders.compact import Packed
from loaders.model import Snapshot
from loaders.reader import SNAPSHOT_ID, SnapshotRefused, load_snapshot, manifest_digest, read_current_id
from loaders.singleflight import SingleFlight
from loaders.summary import CHANGES_FILE, Summary, summarize

log = logging.getLogger("readiness.loaders")

RETRY_FIRST_SECONDS = 2.0
RETRY_MAX_SECONDS = 300.0
"""Backoff before reading an unservable snapshot again with an unchanged manifest: 2 s,
doubling on each failure, at most 5 minutes. A changed manifest is read at once."""

@dataclass(frozen=True, slots=True)
class _Retry:
    """When to read an unservable snapshot again, unless its manifest changes first."""

    identity: str | None
    attempts: int
    due: float

    def next(self, identity: str | None, now: float) -> _Retry:
        """The retry after one more failure with the manifest ``identity``."""
        attempts = self.attempts + 1 if identity == self.identity else 1
        return _Retry(identity, attempts, now + _backoff(attempts))


_FIRST = _Retry(None, 0, 0.0)


def _backoff(attempts: int) -> float:
    return min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2.0 ** (attempts - 1))


@dataclass(frozen=True, slots=True)
class _Loaded:
    """What one read of a snapshot directory gave, in a worker thread."""

    snapshot: Snapshot | None
    identity: str | None
    source: str
    """``disk`` (the files), ``packed`` (the packed form), ``refused``."""
    seconds: float
    reason: str = ""
    packed: Packed | None = None
    summary: Summary | None = None


class LoadCounts:
    """Snapshot reads by kind (``current``, ``archive``) and outcome (``disk``, ``packed``,
    ``refused``, ``timeout``), and the seconds they took, read by ``/metrics``."""

    def __init__(self) -> None:
        self.loads: Counter[tuple[str, str]] = Counter()
        self.seconds: dict[str, float] = {}

    def add(self, kind: str, outcome: str, seconds: float = 0.0) -> None:
        """Count one read."""
        self.loads[(kind, outcome)] += 1
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds


class SnapshotStore:
    """Snapshots of one data directory (docs/DATA.md): ``current`` and archives by id.

    ``problem`` says, in a sentence, why the snapshot CURRENT names is not the one served
    (None when it is): readiness reports it (docs/DECISIONS.md#snapshots-and-archives).
    """

    def __init__(
        self,
        data_dir: Path,
        archive_slots: int = 4,
        *,
        read_timeout: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.data_dir = data_dir
        self.archive_slots = archive_slots
        self.current: Snapshot | None = None
        self.problem: str | None = None
        self.counts = LoadCounts()
        self._clock = clock
        self._identity: str | None = None
        self._listed: frozenset[str] | None = None
        self._archives: OrderedDict[str, tuple[Snapshot, str]] = OrderedDict()
        self._packed: dict[str, Packed] = {}
        self._summaries: dict[str, Summary] = {}
        self._retries: dict[str, _Retry] = {}
        """When to read a snapshot again: after a read that failed, timed out or skipped files."""
        self._failures: dict[str, str] = {}
        """Why the last read of a snapshot other than the current one gave nothing (refused,
        unreadable, timed out), by id, until a read of it succeeds (``unreadable``)."""
        self._loading: SingleFlight[Snapshot | None] = SingleFlight()
        """Archive loads under way: one per id, shared, and not cancelled when a request goes away."""
        self._refreshing = asyncio.Lock()
        self._reads = BoundedReads(data_dir, read_timeout)

    def load_current(self) -> Snapshot | None:
        """Load the snapshot CURRENT names in the calling thread, without a timeout (tools and
        tests; the server starts with ``refresh``); keep the one already loaded if that fails."""
        self._listed = _list_ids(self.data_dir) or self._listed
        snapshot_id = read_current_id(self.data_dir)
        if snapshot_id is None:
            self.problem = _NO_CURRENT
            return self.current
        loaded = self._read(snapshot_id, None)
        self._count("current", loaded)
        if loaded.snapshot is None:
            self._refused(snapshot_id, loaded)
        else:
            self._swap(loaded.snapshot, loaded.identity, loaded.summary)
        return self.current

    async def refresh(self) -> Snapshot | None:
        """Swap to the snapshot CURRENT names if it, or its content, changed; return the
        replaced one, if any (possibly of the same id).

        The new snapshot is read in a worker thread while the old one keeps serving; the swap
        is one assignment, so every request sees one snapshot or the other, never a mix.
        """
        async with self._refreshing:
            self._listed = await self._reads.quietly("snapshots/", partial(_list_ids, self.data_dir)) or self._listed
            try:
                snapshot_id = await self._reads.run("CURRENT", partial(read_current_id, self.data_dir))
                if snapshot_id is None:
                    self.problem = _NO_CURRENT
                    return None
                identity = await self._reads.run(
                    f"{snapshot_id}/manifest.json", partial(manifest_digest, self._directory(snapshot_id))
                )
                if not self._worth_reading(snapshot_id, identity):
                    return None
                loaded = await self._reads.run(f"snapshot {snapshot_id}", partial(self._read, snapshot_id, None))
            except ReadTimeout as stuck:
                self.problem = str(stuck)
                return None
            return self._take(snapshot_id, loaded)

    async def replaced_archives(self) -> list[str]:
        """Drop the archives and summaries in memory whose manifest changed on disk (a
        publish with ``--replace``); return their ids, so their cached answers can be dropped
        too."""
        held = {snapshot_id: identity for snapshot_id, (_, identity) in self._archives.items()}
        current = self.current
        for snapshot_id, summary in self._summaries.items():
            if current is None or snapshot_id != current.id:
                held.setdefault(snapshot_id, summary.identity)
        replaced = []
        for snapshot_id, identity in sorted(held.items()):
            digest = await self._reads.quietly(
                f"{snapshot_id}/manifest.json", partial(manifest_digest, self._directory(snapshot_id))
            )
            if digest is not None and digest != identity:
                self._archives.pop(snapshot_id, None)
                self._packed.pop(snapshot_id, None)
                self._summaries.pop(snapshot_id, None)
                self._retries.pop(snapshot_id, None)
                self._failures.pop(snapshot_id, None)
                log.info("archive %s changed on disk; it will be read again", snapshot_id)
                replaced.append(snapshot_id)
        return replaced

    async def recover(self) -> list[str]:
        """Read again, one at a time, every listed snapshot up to the current one (not the
        current one itself: ``refresh`` does) whose last read failed, timed out or skipped
        files: at once when its manifest became readable or changed (a volume back, a directory
        repaired), otherwise once its backoff is due. Called on every poll, after
        ``replaced_archives``; costs nothing while every read succeeded. Returns the ids whose
        summary is new: readable again, or read with fewer files skipped."""
        recovered = []
        for snapshot_id in self._wanted() or ():
            current = self.current
            retry = self._retries.get(snapshot_id)
            if current is None or snapshot_id == current.id:
                continue
            if retry is None and snapshot_id not in self._failures:
                continue
            if retry is not None and self._clock() < retry.due:
                digest = await self._reads.quietly(
                    f"{snapshot_id}/manifest.json", partial(manifest_digest, self._directory(snapshot_id))
                )
                if digest is None or digest == retry.identity:
                    continue
            held = self._summaries.get(snapshot_id)
            await self._summarize(snapshot_id)
            if snapshot_id not in self._failures and self._summaries.get(snapshot_id) is not held:
                log.info("snapshot %s read again after a failed or partial read", snapshot_id)
                recovered.append(snapshot_id)
        return recovered

    def missing(self) -> tuple[str, ...]:
        """The snapshots the catalogue and history should show (listed up to the current one)
        that have no summary in memory, oldest first: not read yet, or their read failed. An
        answer computed without them is incomplete, and no cache may keep it."""
        return tuple(snapshot_id for snapshot_id in self._wanted() or () if snapshot_id not in self._summaries)

    def unreadable(self) -> tuple[str, ...]:
        """The listed snapshots up to the current one whose last read failed or timed out,
        oldest first: read again on the next polls (``recover``); ``warnings`` names them."""
        return tuple(snapshot_id for snapshot_id in self._wanted() or () if snapshot_id in self._failures)

    def summary(self, snapshot_id: str) -> Summary | None:
        """The summary held for ``snapshot_id``, without reading anything; None when none is.
        The current snapshot's is held from the moment it is served (the pages read its
        catalogue here)."""
        return self._summaries.get(snapshot_id)

    def summaries_now(self) -> tuple[Summary, ...] | None:
        """The summaries of every snapshot listed up to the current one, oldest first, without
        awaiting anything; None while one that is not known to fail has not been read yet
        (``summaries`` reads it). A snapshot that failed to read is left out."""
        wanted = self._wanted()
        if wanted is None:
            return None
        found = []
        for snapshot_id in wanted:
            summary = self._summaries.get(snapshot_id)
            if summary is not None:
                found.append(summary)
            elif snapshot_id not in self._retries:
                return None
        return tuple(found)

    async def summaries(self) -> tuple[Summary, ...]:
        """The summaries of every snapshot listed up to the current one, oldest first: those
        not in memory are read in the worker threads first (concurrent callers share the
        reads), without entering the archive LRU. Snapshots that are refused, unreadable
        within the timeout or waiting for their retry are left out (logged by the read)."""
        if self._listed is None:
            self._listed = await self._reads.quietly("snapshots/", partial(_list_ids, self.data_dir))
        wanted = self._wanted() or ()
        missing = [
            snapshot_id
            for snapshot_id in wanted
            if snapshot_id not in self._summaries
            and (snapshot_id not in self._retries or self._clock() >= self._retries[snapshot_id].due)
        ]
        if missing:
            await asyncio.gather(*(self._summarize(snapshot_id) for snapshot_id in missing))
        return tuple(self._summaries[snapshot_id] for snapshot_id in wanted if snapshot_id in self._summaries)

    async def read_summaries(self) -> None:
        """Read the summaries not in memory one snapshot at a time: the server's background
        fill at start-up, gentle on the CPU the requests share, and cancellable between two
        reads (a read already started finishes in its thread: ``settled`` waits for it)."""
        if self._listed is None:
            self._listed = await self._reads.quietly("snapshots/", partial(_list_ids, self.data_dir))
        for snapshot_id in self._wanted() or ():
            if snapshot_id not in self._summaries and snapshot_id not in self._retries:
                await self._summarize(snapshot_id)

    async def change_report(self, snapshot_id: str) -> bytes | None:
        """The bytes of the change report of a listed snapshot up to the current one, read
        in a worker thread within the timeout; None when there is none, it cannot be read,
        or the id is not such a snapshot (it never reaches the file system then)."""
        wanted = self._wanted()
        if wanted is None or snapshot_id not in wanted:
            return None
        path = self._directory(snapshot_id) / CHANGES_FILE
        return await self._reads.quietly(f"{snapshot_id}/{CHANGES_FILE}", partial(_read_optional, path))

    def holds(self, snapshot_id: str) -> bool:
        """Whether ``archive(snapshot_id)`` answers from memory: the current snapshot, an
        archive in the LRU, or an id the listing does not have (asking for it reads nothing)."""
        current = self.current
        listed = self._listed
        return (current is not None and current.id == snapshot_id) or snapshot_id in self._archives \
            or (listed is not None and snapshot_id not in listed)

    async def archive(self, snapshot_id: str) -> Snapshot | None:
        """Return the snapshot with this id, or None when it is absent, refused, unreadable
        within the timeout, or newer than the current one (placed for publishing but not yet
        published: docs/DATA.md).

        Whether the directory exists is answered from the listing refreshed with CURRENT, so
        an unknown year never touches the file system on the event loop.
        """
        current = self.current
        if current is None or snapshot_id > current.id:
            return None
        if current.id == snapshot_id:
            return current
        cached = self._archives.get(snapshot_id)
        if cached is not None:
            self._archives.move_to_end(snapshot_id)
            return cached[0]
        if not SNAPSHOT_ID.match(snapshot_id):  # never let a malformed id near the file system
            return None
        if self._listed is None:  # not listed yet: a store that was never refreshed
            self._listed = await self._reads.quietly("snapshots/", partial(_list_ids, self.data_dir))
        if self._listed is None or snapshot_id not in self._listed:
            return None
        retry = self._retries.get(snapshot_id)
        if retry is not None and snapshot_id in self._failures and self._clock() < retry.due:
            return None
        return await self._loading.run_detached(snapshot_id, partial(self._load_archive, snapshot_id))

    def warnings(self, max_skipped_percent: float) -> list[str]:
        """What readiness should tell about the data: CURRENT unservable, the current snapshot
        missing more than ``max_skipped_percent`` of its country files, or listed snapshots
        that cannot be read (``unreadable``)."""
        found = [] if self.problem is None else [self.problem]
        unreadable = self.unreadable()
        if unreadable:
            reasons = "; ".join(f"{snapshot_id}: {self._failures[snapshot_id]}" for snapshot_id in unreadable)
            found.append(
                f"snapshots not readable: {', '.join(unreadable)} ({reasons}); history and the catalogue "
                "are answered without those not in memory, and not cached, until a poll reads them again"
            )
        current = self.current
        if current is not None and current.skipped_percent > max_skipped_percent:
            found.append(
                f"snapshot {current.id} is served without {current.skipped} of its "
                f"{current.skipped + len(current.countries)} country files "
                f"({current.skipped_percent:.0f} %, more than {max_skipped_percent:g} %)"
            )
        return found

    def loaded(self) -> list[Snapshot]:
        """The snapshots in memory: the current one, then the archives."""
        return ([] if self.current is None else [self.current]) + [held for held, _ in self._archives.values()]

    async def settled(self, seconds: float) -> bool:
        """Wait until no read of the store is running, at most ``seconds``; True if none is."""
        return await self._reads.settled(seconds)

    def close(self) -> None:
        """Stop the worker threads, without waiting for a read that is stuck."""
        self._reads.close()

    def _worth_reading(self, snapshot_id: str, identity: str | None) -> bool:
        """Whether the snapshot CURRENT names should be read now; sets ``problem`` if not."""
        current = self.current
        retry = self._retries.get(snapshot_id)
        served = current is not None and current.id == snapshot_id and identity == self._identity
        if served and retry is None:
            self.problem = None
            return False
        if identity is None:
            self.problem = f"snapshot {snapshot_id}, named by CURRENT, has no readable manifest.json"
            return False
        return retry is None or retry.identity != identity or self._clock() >= retry.due

    def _take(self, snapshot_id: str, loaded: _Loaded) -> Snapshot | None:
        """Swap to what a read of the snapshot CURRENT names gave, if it is better."""
        self._count("current", loaded)
        old = self.current
        if loaded.snapshot is None:
            self._refused(snapshot_id, loaded)
            return None
        same = old is not None and old.id == snapshot_id and loaded.identity == self._identity
        if same and old is not None and loaded.snapshot.skipped >= old.skipped:
            self._retries[snapshot_id] = self._retries.get(snapshot_id, _FIRST).next(loaded.identity, self._clock())
            self.problem = None
            return None
        self._swap(loaded.snapshot, loaded.identity, loaded.summary)
        log.info("swapped to snapshot %s (was %s)", snapshot_id, old.id if old else None)
        return old

    def _swap(self, snapshot: Snapshot, identity: str | None, summary: Summary | None) -> None:
        if summary is not None:  # set first: a history answer keyed on it must see this one
            self._summaries[snapshot.id] = summary
        self.current = snapshot
        self._identity = identity
        self.problem = None
        self._archives.pop(snapshot.id, None)
        self._packed.pop(snapshot.id, None)
        self._retries.pop(snapshot.id, None)
        self._failures.pop(snapshot.id, None)
        if snapshot.skipped:  # files may still arrive (a copy in progress): look again later
            self._retries[snapshot.id] = _FIRST.next(identity, self._clock())
        log.info("current snapshot %s: %d countries, %d skipped",
                 snapshot.id, len(snapshot.countries), snapshot.skipped)

    def _refused(self, snapshot_id: str, loaded: _Loaded) -> None:
        retry = self._retries.get(snapshot_id, _FIRST).next(loaded.identity, self._clock())
        self._retries[snapshot_id] = retry
        self.problem = (
            f"snapshot {snapshot_id}, named by CURRENT, cannot be served ({loaded.reason}); "
            f"next attempt in {_backoff(retry.attempts):g} s or when its manifest changes"
        )

    async def _load_archive(self, snapshot_id: str) -> Snapshot | None:
        try:
            loaded = await self._reads.run(
                f"snapshot {snapshot_id}", partial(self._read, snapshot_id, self._packed.get(snapshot_id))
            )
        except ReadTimeout:
            self.counts.add("archive", "timeout")
            self._failures[snapshot_id] = "timed out"  # no retry: the next request joins the stuck read
            return None
        self._count("archive", loaded)
        if loaded.snapshot is None or loaded.identity is None or loaded.summary is None:
            self._failed(snapshot_id, loaded.identity, loaded.reason or "not readable", archive=True)
            return None
        self._keep(snapshot_id, loaded.snapshot, loaded.summary, loaded.packed, pack=True)
        self._archives[snapshot_id] = (loaded.snapshot, loaded.identity)
        while len(self._archives) > self.archive_slots:
            del self._archives[self._evicted(snapshot_id)]
        return loaded.snapshot

    def _evicted(self, kept: str) -> str:
        """The archive to drop from a full LRU: the least recently used one that is not a
        December (only ``snapshot=`` asks for those), other than ``kept``, the one just read;
        else the least recently used. So a client cycling through every listed snapshot churns
        the slots the Decembers leave (one at least), never more of the Decembers that ``year=``
        and the indicator table over ``years`` read (docs/DECISIONS.md#snapshots-and-archives)."""
        months = (held for held in self._archives if not held.endswith("-12") and held != kept)
        return next(months, next(iter(self._archives)))

    def _wanted(self) -> tuple[str, ...] | None:
        """Ids listed up to the current one, oldest first (None before either is known): the
        snapshots the catalogue and history may show. Newer ones are placed, not published."""
        current, listed = self.current, self._listed
        if current is None or listed is None:
            return None
        return tuple(sorted(snapshot_id for snapshot_id in listed | {current.id} if snapshot_id <= current.id))

    async def _summarize(self, snapshot_id: str) -> None:
        """Read one snapshot for its summary (shared with an archive read of the same id); one
        held from a reading that skipped files is read from the files again, not unpacked."""
        held = self._summaries.get(snapshot_id)
        packed = None if held is not None and held.series.skipped else self._packed.get(snapshot_id)
        try:
            loaded = await self._reads.run(f"snapshot {snapshot_id}", partial(self._read, snapshot_id, packed))
        except ReadTimeout:
            self.counts.add("summary", "timeout")
            retry = self._retries.get(snapshot_id, _FIRST)
            self._failed(snapshot_id, retry.identity, "timed out")
            return
        self.counts.add("summary", loaded.source, loaded.seconds)
        if loaded.snapshot is None or loaded.summary is None:
            self._failed(snapshot_id, loaded.identity, loaded.reason or "not readable")
            return
        self._keep(snapshot_id, loaded.snapshot, loaded.summary, loaded.packed)

    def _failed(self, snapshot_id: str, identity: str | None, reason: str, *, archive: bool = False) -> None:
        """A read of ``snapshot_id`` gave nothing: read it again after the backoff, or when its
        manifest changes (``recover``). It counts as unreadable for an ``archive`` read, and
        otherwise unless its summary is held (only a read for fewer skipped files failed)."""
        self._retries[snapshot_id] = self._retries.get(snapshot_id, _FIRST).next(identity, self._clock())
        if archive or snapshot_id not in self._summaries or snapshot_id in self._failures:
            self._failures[snapshot_id] = reason

    def _keep(
        self, snapshot_id: str, snapshot: Snapshot, summary: Summary, packed: Packed | None, pack: bool = False
    ) -> None:
        """A read of ``snapshot_id`` (not the current one) gave ``snapshot``: keep its summary
        and packed form (``pack``: whatever its id), unless the summary held was read from the
        same manifest and skips no more files. One that skipped files is read again after the
        backoff (``recover``)."""
        self._failures.pop(snapshot_id, None)
        held = self._summaries.get(snapshot_id)
        better = held is None or held.identity != summary.identity or snapshot.skipped < held.series.skipped
        if better:
            self._summaries[snapshot_id] = summary
            if packed is not None and (pack or snapshot_id.endswith("-12")):  # year= may ask for it
                self._packed[snapshot_id] = packed
            held_archive = self._archives.get(snapshot_id)
            if held_archive is not None and held_archive[0].digest != snapshot.digest:
                del self._archives[snapshot_id]  # year= revives the better reading
        elif pack and packed is not None and held is not None and held.series.digest == snapshot.digest:
            # The same reading as the summary held (a June archive's, read first by the background
            # fill, which packs only Decembers): packed now, or every eviction reads its files again.
            self._packed.setdefault(snapshot_id, packed)
        kept = summary if better else held
        if kept is not None and kept.series.skipped:  # files may come back (a volume that failed mid-read)
            self._retries[snapshot_id] = self._retries.get(snapshot_id, _FIRST).next(kept.identity, self._clock())
        else:
            self._retries.pop(snapshot_id, None)

    def _read(self, snapshot_id: str, packed: Packed | None) -> _Loaded:
        """Read one snapshot: from ``packed`` if the manifest is unchanged, else from its files
        (and pack it, if ``packed`` was asked for by passing the old one or for archives)."""
        began = time.perf_counter()
        directory = self._directory(snapshot_id)
        identity = manifest_digest(directory)
        try:
            if packed is not None and packed.identity == identity:
                snapshot = packed.unpack()
                return _Loaded(snapshot, identity, "packed", time.perf_counter() - began, packed=packed,
                               summary=self._summary(snapshot, identity))
            snapshot = load_snapshot(directory)
            if snapshot is None:  # only a stand-in reader in tests returns nothing
                return _Loaded(None, identity, "refused", time.perf_counter() - began, reason="not readable")
            fresh = None if identity is None else Packed.of(snapshot, identity)
            return _Loaded(snapshot, identity, "disk", time.perf_counter() - began, packed=fresh,
                           summary=self._summary(snapshot, identity))
        except SnapshotRefused as refused:
            log.error("%s", refused)
            reason = str(refused.problems[-1]) if refused.problems else "refused"
            return _Loaded(None, identity, "refused", time.perf_counter() - began, reason=reason)
        except OSError as error:  # a file beside the country files (changes.json), or the volume
            log.error("snapshot %s cannot be read: %s", snapshot_id, error)
            reason = f"cannot read: {error.strerror or error}"
            return _Loaded(None, identity, "refused", time.perf_counter() - began, reason=reason)

    def _summary(self, snapshot: Snapshot, identity: str | None) -> Summary | None:
        """The summary of a snapshot just read (in a worker thread): the one held if it was
        made from the same files (same manifest, same country files loaded), else a new one;
        None without a manifest digest."""
        if identity is None:
            return None
        held = self._summaries.get(snapshot.id)
        if held is not None and held.identity == identity and held.series.digest == snapshot.digest:
            return held
        return summarize(snapshot, identity, self._directory(snapshot.id))

    def _count(self, kind: str, loaded: _Loaded) -> None:
        self.counts.add(kind, loaded.source, loaded.seconds)

    def _directory(self, snapshot_id: str) -> Path:
        return self.data_dir / "snapshots" / snapshot_id


_NO_CURRENT = "CURRENT is missing or does not name a snapshot (YYYY-MM)"


def _read_optional(path: Path) -> bytes | None:
    """A file's bytes, None when it is absent or unreadable (logged unless absent)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("cannot read %s: %s", path, error)
        return None


def _list_ids(data_dir: Path) -> frozenset[str] | None:
    """Names of the snapshot directories, None when they cannot be listed (not logged: a data
    directory has no ``snapshots/`` before its first publish)."""
    try:
        with os.scandir(data_dir / "snapshots") as entries:
            return frozenset(entry.name for entry in entries if SNAPSHOT_ID.match(entry.name) and entry.is_dir())
    except OSError:
        return None
