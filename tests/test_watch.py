"""Live snapshot swap in one process: SnapshotStore.refresh and SnapshotWatcher."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
from pathlib import Path

import fakeredis
import orjson
import pytest

from config import Settings
from loaders import SnapshotStore
from readiness import make_app
from readiness.logs import AccessLog
from readiness.cache import Answer, AnswerCache
from readiness.watch import SnapshotWatcher, announce

from tests.conftest import SAMPLE, copy_tree


def add_snapshot(data: Path, snapshot_id: str, kenya_score: float) -> None:
    """Copy the current snapshot as ``snapshot_id`` with Kenya's composite changed."""
    target = data / "snapshots" / snapshot_id
    copy_tree(data / "snapshots" / "2026-11", target)
    kenya = orjson.loads((target / "countries" / "KEN.json").read_bytes())
    kenya["Composite Readiness Score"] = kenya_score
    raw = orjson.dumps(kenya)
    (target / "countries" / "KEN.json").write_bytes(raw)
    manifest = orjson.loads((target / "manifest.json").read_bytes())
    manifest["id"] = snapshot_id
    manifest["checksums"]["KEN"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (target / "manifest.json").write_bytes(orjson.dumps(manifest))


def watcher_of(store: SnapshotStore, memory: AnswerCache) -> SnapshotWatcher:
    """A watcher over the service ``make_app`` builds on ``store`` and ``memory``."""
    return SnapshotWatcher(make_app(Settings(), store, memory=memory, access=AccessLog(io.BytesIO())).lane.service)


def flip(data: Path, snapshot_id: str) -> None:
    """Replace CURRENT atomically, as the publisher does."""
    (data / "CURRENT.tmp").write_text(snapshot_id + "\n")
    os.replace(data / "CURRENT.tmp", data / "CURRENT")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    data = copy_tree(SAMPLE, tmp_path / "data")
    add_snapshot(data, "2026-12", kenya_score=99.5)
    return data


@pytest.mark.gen_test
async def test_refresh_unchanged_current_swaps_nothing(data: Path) -> None:
    store = SnapshotStore(data)
    loaded = store.load_current()
    assert await store.refresh() is None
    assert store.current is loaded


@pytest.mark.gen_test
async def test_refresh_new_current_swaps_and_returns_the_old(data: Path) -> None:
    store = SnapshotStore(data)
    old = store.load_current()
    flip(data, "2026-12")
    assert await store.refresh() is old
    assert store.current is not None and store.current.id == "2026-12"
    assert store.current.countries["KEN"].record["Composite Readiness Score"] == 99.5


@pytest.mark.gen_test
async def test_refresh_refused_snapshot_keeps_serving_and_is_not_reread(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SnapshotStore(data)
    old = store.load_current()
    (data / "snapshots" / "2026-12" / "manifest.json").write_text("{")
    flip(data, "2026-12")
    reads: list[Path] = []
    monkeypatch.setattr("loaders.store.load_snapshot", lambda directory: reads.append(directory))
    for _ in range(3):
        assert await store.refresh() is None
    assert store.current is old and len(reads) <= 1


@pytest.mark.gen_test
async def test_refresh_concurrent_calls_load_once(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    flip(data, "2026-12")
    replaced = await asyncio.gather(*(store.refresh() for _ in range(5)))
    assert sum(old is not None for old in replaced) == 1


@pytest.mark.gen_test
async def test_refresh_recovers_a_server_that_started_without_data(tmp_path: Path, data: Path) -> None:
    empty = tmp_path / "later"
    store = SnapshotStore(empty)
    assert store.load_current() is None
    copy_tree(data, empty)
    await store.refresh()
    assert store.current is not None and store.current.id == "2026-11"


@pytest.mark.gen_test
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


@pytest.mark.gen_test
async def test_watcher_listen_refreshes_on_announcement(data: Path) -> None:
    server = fakeredis.FakeServer()
    store = SnapshotStore(data)
    store.load_current()
    watcher = watcher_of(store, AnswerCache(1 << 20))
    async with fakeredis.FakeAsyncRedis(server=server) as listener, fakeredis.FakeAsyncRedis(server=server) as publisher:
        listening = asyncio.ensure_future(watcher.listen(listener, retry_seconds=0.1))
        try:
            flip(data, "2026-12")
            for _ in range(100):  # until the subscription is in place and the message lands
                await announce(publisher, "2026-12")
                if store.current is not None and store.current.id == "2026-12":
                    break
                await asyncio.sleep(0.02)
            assert store.current is not None and store.current.id == "2026-12"
        finally:
            watcher.stop()
            await asyncio.wait_for(listening, timeout=3)
