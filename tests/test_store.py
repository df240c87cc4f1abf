"""SnapshotStore: the current snapshot, and archives loaded on first use in a bounded LRU."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from loaders import Snapshot, SnapshotStore
from loaders import reader

from tests.conftest import SAMPLE, copy_tree
from tests.test_watch import add_snapshot, flip


def loaded(store: SnapshotStore) -> SnapshotStore:
    """The store with its current snapshot loaded, as the server starts it."""
    store.load_current()
    return store


def test_load_current_reads_the_snapshot_current_names() -> None:
    store = SnapshotStore(SAMPLE)
    current = store.load_current()
    assert current is not None and current.id == "2026-11"
    assert store.current is current


def test_load_current_without_current_file_is_none(tmp_path: Path) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    (data / "CURRENT").unlink()
    assert SnapshotStore(data).load_current() is None


def test_load_current_refused_keeps_the_loaded_one(tmp_path: Path) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    store = SnapshotStore(data)
    loaded = store.load_current()
    (data / "snapshots" / "2026-11" / "manifest.json").write_text("{")
    assert store.load_current() is loaded


@pytest.mark.gen_test
async def test_archive_loads_on_first_use_then_shares() -> None:
    store = loaded(SnapshotStore(SAMPLE))
    first = await store.archive("2024-12")
    assert first is not None and first.id == "2024-12"
    assert await store.archive("2024-12") is first


@pytest.mark.gen_test
async def test_archive_newer_than_current_is_not_served(tmp_path: Path) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    add_snapshot(data, "2026-12", kenya_score=99.5)  # placed for publishing, CURRENT unchanged
    store = loaded(SnapshotStore(data))
    assert await store.archive("2026-12") is None
    flip(data, "2026-12")
    await store.refresh()
    assert await store.archive("2026-12") is store.current
    assert await SnapshotStore(data).archive("2025-12") is None  # nothing current yet: nothing served


@pytest.mark.gen_test
async def test_archive_of_the_current_id_is_current() -> None:
    store = SnapshotStore(SAMPLE)
    store.load_current()
    assert await store.archive("2026-11") is store.current


@pytest.mark.gen_test
@pytest.mark.parametrize("snapshot_id", ["2022-12", "1999-12", "../2024-12", "2024-12/..", ""])
async def test_archive_absent_or_malformed_is_none(snapshot_id: str) -> None:
    assert await loaded(SnapshotStore(SAMPLE)).archive(snapshot_id) is None


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The snapshot ids the store reads from disk, in order."""
    seen: list[str] = []

    def counting(directory: Path) -> Snapshot:
        seen.append(directory.name)
        return reader.load_snapshot(directory)

    monkeypatch.setattr("loaders.store.load_snapshot", counting)
    return seen


@pytest.mark.gen_test
async def test_archive_slots_bound_memory_least_recently_used_goes(reads: list[str]) -> None:
    store = loaded(SnapshotStore(SAMPLE, archive_slots=2))
    older = await store.archive("2023-12")
    await store.archive("2024-12")
    await store.archive("2023-12")  # used again: 2024-12 is now the least recently used
    await store.archive("2025-12")  # evicts 2024-12
    assert await store.archive("2023-12") is older
    await store.archive("2024-12")  # evicted: revived from its packed form, not read again
    assert [snapshot.id for snapshot in store.loaded()] == ["2026-11", "2023-12", "2024-12"]
    assert reads == ["2026-11", "2023-12", "2024-12", "2025-12"]


@pytest.mark.gen_test
async def test_archive_concurrent_first_requests_read_once(reads: list[str]) -> None:
    store = loaded(SnapshotStore(SAMPLE))
    results = await asyncio.gather(*(store.archive("2025-12") for _ in range(10)))
    assert reads == ["2026-11", "2025-12"]
    assert results[0] is not None and all(result is results[0] for result in results)


@pytest.mark.gen_test
async def test_archive_refused_is_remembered(tmp_path: Path, reads: list[str]) -> None:
    data = copy_tree(SAMPLE, tmp_path / "data")
    (data / "snapshots" / "2024-12" / "manifest.json").write_text("{")
    store = loaded(SnapshotStore(data))
    assert await store.archive("2024-12") is None
    assert await store.archive("2024-12") is None
    assert reads == ["2026-11", "2024-12"]
