"""Live snapshot swap in one process: SnapshotStore.refresh and SnapshotWatcher."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import fakeredis
import pytest

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.cache.answers import AnswerCache
from readiness.domain.answer import Answer
from readiness.freshness.watch import SnapshotWatcher, announce
from readiness.http.logs import AccessLog
from tests.builder_world import NEXT_MONTH
from tests.conftest import copy_tree, eventually, flip, gen_test, place_snapshot, tiny_data


def watcher_of(store: SnapshotStore, memory: AnswerCache) -> SnapshotWatcher:
    """A watcher over the service ``make_app`` builds on ``store`` and ``memory``."""
    return SnapshotWatcher(make_app(Settings(), store, memory=memory, access=AccessLog(io.BytesIO())).lane.service)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Tiny snapshots, 2026-11 current, and 2026-12 (with one more economy, EEE) placed for
    publishing but not current."""
    data = tiny_data(tmp_path / "data")
    place_snapshot(data, "2026-12", NEXT_MONTH)
    return data


@gen_test
async def test_refresh_unchanged_current_swaps_nothing(data: Path) -> None:
    store = SnapshotStore(data)
    loaded = store.load_current()
    assert await store.refresh() is None
    assert store.current is loaded


@gen_test
async def test_refresh_new_current_swaps_and_returns_the_old(data: Path) -> None:
    store = SnapshotStore(data)
    old = store.load_current()
    flip(data, "2026-12")
    assert await store.refresh() is old
    assert store.current is not None and store.current.id == "2026-12"
    assert old is not None and "EEE" not in old.countries and "EEE" in store.current.countries


@gen_test
async def test_refresh_refused_snapshot_keeps_serving_and_is_not_reread(data: Path, reads: list[str]) -> None:
    store = SnapshotStore(data)
    old = store.load_current()
    (data / "snapshots" / "2026-12" / "manifest.json").write_text("{")  # read for real: refused
    flip(data, "2026-12")
    for _ in range(3):
        assert await store.refresh() is None
    assert store.current is old
    assert reads == ["2026-11", "2026-12"]  # read once, remembered as refused


@gen_test
async def test_refresh_concurrent_calls_load_once(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    flip(data, "2026-12")
    replaced = await asyncio.gather(*(store.refresh() for _ in range(5)))
    assert sum(old is not None for old in replaced) == 1


@gen_test
async def test_refresh_recovers_a_server_that_started_without_data(tmp_path: Path, data: Path) -> None:
    empty = tmp_path / "later"
    store = SnapshotStore(empty)
    assert store.load_current() is None
    copy_tree(data, empty)
    await store.refresh()
    assert store.current is not None and store.current.id == "2026-11"


@gen_test
async def test_watcher_swap_drops_the_old_snapshots_answers(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    memory = AnswerCache(1 << 20)
    memory.put("2026-11|v1|", Answer.of(b"old"))
    memory.put("2024-12|v1|year=2024", Answer.of(b"archive"))
    flip(data, "2026-12")
    await watcher_of(store, memory).refresh()
    assert memory.get("2026-11|v1|") is None
    assert memory.get("2024-12|v1|year=2024") is not None


@gen_test
async def test_watcher_listen_refreshes_on_announcement(data: Path) -> None:
    server = fakeredis.FakeServer()
    store = SnapshotStore(data)
    store.load_current()
    watcher = watcher_of(store, AnswerCache(1 << 20))
    async with (
        fakeredis.FakeAsyncRedis(server=server) as listener,
        fakeredis.FakeAsyncRedis(server=server) as publisher,
    ):
        listening = asyncio.ensure_future(watcher.listen(listener, retry_seconds=0.1))
        try:
            flip(data, "2026-12")
            # Announced until one listener hears it (the subscription is then in place); the
            # watcher swaps in its own task.
            await eventually(lambda: announce(publisher, "2026-12"), "the watcher subscribes")
            await eventually(lambda: store.current is not None and store.current.id == "2026-12",
                             "the watcher swaps on the announcement")
        finally:
            watcher.stop()
            await asyncio.wait_for(listening, timeout=5)
