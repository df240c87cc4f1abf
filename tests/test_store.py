"""SnapshotStore: the current snapshot, and archives loaded on first use in a bounded LRU."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from loaders import Snapshot, SnapshotStore, load_snapshot
from tests.conftest import eventually, flip, gen_test, place_snapshot, tiny_data


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Tiny snapshots 2023-12, 2024-12, 2025-12 and the current 2026-11: what the store does
    depends on which snapshots there are, not on their size."""
    return tiny_data(tmp_path / "data")


def loaded(store: SnapshotStore) -> SnapshotStore:
    """The store with its current snapshot loaded, as the server starts it."""
    store.load_current()
    return store


def test_load_current_reads_the_snapshot_current_names(data: Path) -> None:
    store = SnapshotStore(data)
    current = store.load_current()
    assert current is not None and current.id == "2026-11"
    assert store.current is current


def test_load_current_without_current_file_is_none(data: Path) -> None:
    (data / "CURRENT").unlink()
    assert SnapshotStore(data).load_current() is None


def test_load_current_refused_keeps_the_loaded_one(data: Path) -> None:
    store = SnapshotStore(data)
    loaded = store.load_current()
    (data / "snapshots" / "2026-11" / "manifest.json").write_text("{")
    assert store.load_current() is loaded


@gen_test
async def test_archive_loads_on_first_use_then_shares(data: Path) -> None:
    store = loaded(SnapshotStore(data))
    first = await store.archive("2024-12")
    assert first is not None and first.id == "2024-12"
    assert await store.archive("2024-12") is first


@gen_test
async def test_archive_newer_than_current_is_not_served(data: Path) -> None:
    place_snapshot(data, "2026-12")  # placed for publishing, CURRENT unchanged
    store = loaded(SnapshotStore(data))
    assert await store.archive("2026-12") is None
    flip(data, "2026-12")
    await store.refresh()
    assert await store.archive("2026-12") is store.current
    assert await SnapshotStore(data).archive("2025-12") is None  # nothing current yet: nothing served


@gen_test
async def test_archive_of_the_current_id_is_current(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    assert await store.archive("2026-11") is store.current


@gen_test
@pytest.mark.parametrize("snapshot_id", ["2022-12", "1999-12", "../2024-12", "2024-12/..", ""])
async def test_archive_absent_or_malformed_is_none(data: Path, snapshot_id: str) -> None:
    assert await loaded(SnapshotStore(data)).archive(snapshot_id) is None


@gen_test
async def test_archive_slots_bound_memory_least_recently_used_goes(data: Path, reads: list[str]) -> None:
    store = loaded(SnapshotStore(data, archive_slots=2))
    older = await store.archive("2023-12")
    await store.archive("2024-12")
    await store.archive("2023-12")  # used again: 2024-12 is now the least recently used
    await store.archive("2025-12")  # evicts 2024-12
    assert await store.archive("2023-12") is older
    await store.archive("2024-12")  # evicted: revived from its packed form, not read again
    assert [snapshot.id for snapshot in store.loaded()] == ["2026-11", "2023-12", "2024-12"]
    assert reads == ["2026-11", "2023-12", "2024-12", "2025-12"]


@gen_test
async def test_archive_concurrent_first_requests_read_once(data: Path, reads: list[str]) -> None:
    store = loaded(SnapshotStore(data))
    results = await asyncio.gather(*(store.archive("2025-12") for _ in range(10)))
    assert reads == ["2026-11", "2025-12"]
    assert results[0] is not None and all(result is results[0] for result in results)


@gen_test
async def test_archive_request_gone_away_mid_load_leaves_the_load_going(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    seen: list[str] = []

    def held(directory: Path) -> Snapshot:
        seen.append(directory.name)
        if directory.name == "2025-12":
            release.wait(10)
        return load_snapshot(directory)

    monkeypatch.setattr("loaders.store.load_snapshot", held)
    store = loaded(SnapshotStore(data))
    try:
        request = asyncio.ensure_future(store.archive("2025-12"))
        await eventually(lambda: "2025-12" in seen, "the archive's read began")
        request.cancel()  # its client went away: the load is still worth finishing
        with pytest.raises(asyncio.CancelledError):
            await request
        release.set()
        await eventually(lambda: "2025-12" in [held.id for held in store.loaded()], "the load ended, nobody waiting")
        archive = await store.archive("2025-12")
        assert archive is not None and archive.id == "2025-12"
        assert seen == ["2026-11", "2025-12"]
    finally:
        release.set()
        store.close()


@gen_test
async def test_archive_refused_is_remembered(data: Path, reads: list[str]) -> None:
    (data / "snapshots" / "2024-12" / "manifest.json").write_text("{")
    store = loaded(SnapshotStore(data))
    assert await store.archive("2024-12") is None
    assert await store.archive("2024-12") is None
    assert reads == ["2026-11", "2024-12"]
