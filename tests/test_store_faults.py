"""SnapshotStore under real file-system faults: a hung read (a FIFO), a snapshot that appears
late or is repaired under the same id, a replaced snapshot, files skipped, archives packed."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from loaders import SnapshotStore, load_snapshot
from loaders.compact import Packed
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.query import Query
from tests.conftest import SAMPLE, Clock, add_snapshot, copy_tree, flip, gen_test, tiny_data
from tests.test_swap import rewrite_kenya

LOAD_TIMEOUT = 5.0
"""Timeout for stores that must also read a whole snapshot: a loaded machine needs seconds."""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return copy_tree(SAMPLE, tmp_path / "data")


@pytest.fixture
def fifos() -> Iterator[list[tuple[Path, Path, bytes]]]:
    """FIFOs a test makes, as (path, second name, the file's bytes before). At the end each path
    gets its file back and then each FIFO is released, so no worker thread stays stuck on
    either this read or the next one (the reader opens a manifest twice)."""
    made: list[tuple[Path, Path, bytes]] = []
    yield made
    for path, fifo, raw in made:
        temporary = path.with_name(path.name + ".restored")
        temporary.write_bytes(raw)
        os.replace(temporary, path)
        release(fifo)


def make_fifo(path: Path, fifos: list[tuple[Path, Path, bytes]]) -> Path:
    """Put a FIFO at ``path`` (replacing a file): reading it blocks like a hung NFS read.
    Returns a second name of the FIFO, which ``release`` opens once ``path`` is a file again."""
    raw = path.read_bytes()
    fifo = path.with_name(path.name + ".fifo")
    os.mkfifo(fifo)
    path.unlink()
    os.link(fifo, path)
    fifos.append((path, fifo, raw))
    return fifo


def release(fifo: Path) -> None:
    """End any read stuck on ``fifo``: a writer opens and closes it, the reader gets EOF."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader is waiting: nothing is stuck on it
        pass


def kenya(store: SnapshotStore) -> object:
    assert store.current is not None
    return store.current.countries["KEN"].record["Composite Readiness Score"]


# --- a hung volume ------------------------------------------------------------------------------


@gen_test(timeout=60)
async def test_refresh_current_stuck_times_out_keeps_serving_and_waits_once(
    data: Path, fifos: list[tuple[Path, Path, bytes]], caplog: pytest.LogCaptureFixture
) -> None:
    store = SnapshotStore(data, read_timeout=0.3)
    served = store.load_current()
    make_fifo(data / "CURRENT", fifos)
    with caplog.at_level(logging.ERROR, "readiness.loaders"):
        for _ in range(3):
            assert await store.refresh() is None
    assert store.current is served
    assert store.problem is not None and "CURRENT" in store.problem
    timed_out = [record for record in caplog.records if "timed out" in record.getMessage()]
    assert len(timed_out) == 1, "one stuck read, reported once, not one per poll"


@gen_test(timeout=60)
async def test_refresh_country_file_stuck_times_out_then_swaps_when_it_reads(
    data: Path, fifos: list[tuple[Path, Path, bytes]]
) -> None:
    store = SnapshotStore(data, read_timeout=LOAD_TIMEOUT)
    served = store.load_current()
    add_snapshot(data, "2026-12", kenya_score=99.5)
    path = data / "snapshots" / "2026-12" / "countries" / "KEN.json"
    raw = path.read_bytes()
    fifo = make_fifo(path, fifos)
    flip(data, "2026-12")
    assert await store.refresh() is None
    assert store.current is served and store.problem is not None and "2026-12" in store.problem
    # The volume recovers: the file reads again and the stuck read ends; a later poll swaps.
    (path.parent / "KEN.tmp").write_bytes(raw)
    os.replace(path.parent / "KEN.tmp", path)
    release(fifo)
    for _ in range(200):
        if await store.refresh() is not None:
            break
        await asyncio.sleep(0.02)
    assert store.current is not None and store.current.id == "2026-12"
    assert store.current.skipped == 0 and kenya(store) == 99.5


@gen_test(timeout=60)
async def test_archive_manifest_stuck_is_none_after_timeout_others_served(
    data: Path, fifos: list[tuple[Path, Path, bytes]]
) -> None:
    store = SnapshotStore(data, read_timeout=LOAD_TIMEOUT)
    store.load_current()
    make_fifo(data / "snapshots" / "2024-12" / "manifest.json", fifos)
    assert await store.archive("2024-12") is None
    assert await store.archive("2024-12") is None  # still stuck: fails at once, no second read
    assert store.counts.loads[("archive", "timeout")] == 2
    other = await store.archive("2025-12")
    assert other is not None and other.id == "2025-12"


@gen_test
async def test_archive_unknown_year_never_touches_the_file_system(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SnapshotStore(data)
    store.load_current()

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("file system touched on the event loop")

    monkeypatch.setattr(Path, "is_dir", forbidden)
    monkeypatch.setattr(Path, "exists", forbidden)
    monkeypatch.setattr(Path, "stat", forbidden)
    monkeypatch.setattr(os, "scandir", forbidden)
    assert await store.archive("2019-12") is None


@gen_test
async def test_refresh_lists_archives_published_later(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    assert await store.archive("2021-12") is None
    copy_tree(data / "snapshots" / "2024-12", data / "snapshots" / "2021-12")
    manifest = orjson.loads((data / "snapshots" / "2021-12" / "manifest.json").read_bytes())
    manifest["id"] = "2021-12"
    (data / "snapshots" / "2021-12" / "manifest.json").write_bytes(orjson.dumps(manifest))
    await store.refresh()
    archive = await store.archive("2021-12")
    assert archive is not None and archive.id == "2021-12"


# --- a snapshot that cannot be served yet -----------------------------------------------------------


@gen_test
async def test_refresh_current_names_a_missing_directory_then_it_appears_swaps(data: Path, tmp_path: Path) -> None:
    store = SnapshotStore(data)
    served = store.load_current()
    add_snapshot(data, "2026-12", kenya_score=99.5)
    os.rename(data / "snapshots" / "2026-12", tmp_path / "2026-12")
    flip(data, "2026-12")
    assert await store.refresh() is None
    assert store.current is served
    assert store.problem is not None and "2026-12" in store.problem
    os.rename(tmp_path / "2026-12", data / "snapshots" / "2026-12")
    assert await store.refresh() is served
    assert store.current is not None and store.current.id == "2026-12" and store.problem is None


@gen_test
async def test_refresh_refused_then_repaired_same_manifest_read_again_after_backoff(data: Path) -> None:
    clock = Clock()
    store = SnapshotStore(data, clock=clock)
    served = store.load_current()
    add_snapshot(data, "2026-12", kenya_score=99.5)
    countries = data / "snapshots" / "2026-12" / "countries"
    os.rename(countries, data / "held-back")  # no valid country: refused
    flip(data, "2026-12")
    assert await store.refresh() is None
    assert store.problem is not None and "cannot be served" in store.problem
    os.rename(data / "held-back", countries)  # the same manifest, now servable
    assert await store.refresh() is None, "read again only after the backoff"
    clock.now += 2.5
    assert await store.refresh() is served
    assert store.current is not None and store.current.id == "2026-12" and store.problem is None


@gen_test
async def test_refresh_current_with_skipped_files_picks_them_up_later(data: Path) -> None:
    clock = Clock()
    current = data / "snapshots" / "2026-11" / "countries"
    held = {code: (current / f"{code}.json").read_bytes() for code in ("KEN", "BRA", "USA")}
    for code in held:
        (current / f"{code}.json").unlink()
    store = SnapshotStore(data, clock=clock)
    partial = store.load_current()
    assert partial is not None and partial.skipped == 3
    assert store.warnings(1.0) and not store.warnings(10.0)
    for code, raw in held.items():
        (current / f"{code}.json").write_bytes(raw)
    clock.now += 2.5
    assert await store.refresh() is partial
    assert store.current is not None and store.current.skipped == 0 and "KEN" in store.current.countries
    assert store.warnings(0.0) == []


@gen_test
async def test_refresh_same_id_replaced_content_swaps(data: Path, tmp_path: Path) -> None:
    store = SnapshotStore(data)
    old = store.load_current()
    replacement = copy_tree(data / "snapshots" / "2026-11", tmp_path / "2026-11")
    rewrite_kenya(replacement, 12.34)
    shutil.rmtree(data / "snapshots" / "2026-11")
    os.rename(replacement, data / "snapshots" / "2026-11")
    assert await store.refresh() is old
    assert kenya(store) == 12.34
    assert await store.refresh() is None


@gen_test
async def test_replaced_archives_drops_an_archive_replaced_on_disk(data: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    before = await store.archive("2024-12")
    assert await store.replaced_archives() == []
    rewrite_kenya(data / "snapshots" / "2024-12", 12.34)
    assert await store.replaced_archives() == ["2024-12"]
    after = await store.archive("2024-12")
    assert before is not None and after is not None
    assert after.countries["KEN"].record["Composite Readiness Score"] == 12.34


# --- archives kept packed ---------------------------------------------------------------------------


@pytest.mark.parametrize("year", ["2023", "2024", "2025"])
def test_packed_archive_answers_byte_identical(year: str) -> None:
    snapshot = load_snapshot(SAMPLE / "snapshots" / f"{year}-12")
    revived = Packed.of(snapshot, "x").unpack()
    assert revived == snapshot
    for params in ({"year": year}, {"year": year, "code": "KEN"}, {"year": year, "sort": "score", "region": "SSA"}):
        query = Query.parse(params)
        assert compute(revived, query, routes.V1).body == compute(snapshot, query, routes.V1).body


@gen_test
async def test_archive_evicted_comes_back_packed_not_read(data: Path) -> None:
    store = SnapshotStore(data, archive_slots=1)
    store.load_current()
    for year in ("2023-12", "2024-12", "2023-12", "2024-12"):
        assert (await store.archive(year)) is not None
    assert store.counts.loads[("archive", "disk")] == 2
    assert store.counts.loads[("archive", "packed")] == 2


@gen_test
async def test_june_archive_read_after_its_summary_comes_back_packed_not_read(tmp_path: Path) -> None:
    data = tiny_data(tmp_path / "tiny", ("2024-06", "2024-12", "2026-11"))
    store = SnapshotStore(data, archive_slots=1)
    store.load_current()
    await store.summaries()  # as the server's background fill: it keeps only Decembers packed
    for snapshot_id in ("2024-06", "2024-12", "2024-06", "2024-12", "2024-06"):
        assert (await store.archive(snapshot_id)) is not None
    assert store.counts.loads[("archive", "disk")] == 1  # the June one, once; the December was packed by the fill
    assert store.counts.loads[("archive", "packed")] == 4


@gen_test
async def test_cycling_every_snapshot_churns_the_slot_the_decembers_leave_not_the_decembers(tmp_path: Path) -> None:
    ids = ("2023-06", "2023-12", "2024-06", "2024-12", "2026-11")
    data = tiny_data(tmp_path / "tiny", ids)
    store = SnapshotStore(data, archive_slots=3)
    store.load_current()
    for _ in range(3):
        for snapshot_id in ids:
            assert (await store.archive(snapshot_id)) is not None
    held = [snapshot.id for snapshot in store.loaded()]
    assert held[0] == "2026-11" and sorted(held[1:]) == ["2023-12", "2024-06", "2024-12"]
    # The Decembers were read once each; only the two Junes took turns in the one slot left.
    loads = store.counts.loads
    assert loads[("archive", "disk")] + loads[("archive", "packed")] == 4 + 2 * 2
