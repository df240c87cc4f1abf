"""Snapshot summaries (loaders/summary.py) and how the store keeps them: what the catalogue and
history answer from, without loading archives into the LRU on every request."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from builder import Release, build_snapshot
from loaders import (
    CHANGES_FILE,
    INDICATORS_FILE,
    SnapshotStore,
    load_snapshot,
    mover_direction,
    read_snapshot,
    series_of,
    summarize,
)
from loaders.compact import Packed
from tests.builder_world import STANDARD, world
from tests.conftest import flip, gen_test, place_snapshot, tiny_data


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Tiny snapshots 2022-06, 2023-12, 2024-12 and the current 2026-11."""
    return tiny_data(tmp_path / "data", ("2022-06", "2023-12", "2024-12", "2026-11"))


def loaded(store: SnapshotStore) -> SnapshotStore:
    store.load_current()
    return store


def test_snapshot_carries_the_manifests_synthetic_flag_and_notice(data: Path) -> None:
    snapshot = load_snapshot(data / "snapshots" / "2026-11")
    assert snapshot.synthetic is True and snapshot.notice == "SYNTHETIC: test data"
    revived = Packed.of(snapshot, "x").unpack()
    assert (revived.synthetic, revived.notice) == (True, "SYNTHETIC: test data")


def test_snapshot_without_the_flag_is_not_synthetic(data: Path) -> None:
    directory = data / "snapshots" / "2026-11"
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    del manifest["synthetic"], manifest["notice"]
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest))
    snapshot = load_snapshot(directory)
    assert (snapshot.synthetic, snapshot.notice) == (False, None)


def test_snapshot_carries_the_manifests_publisher_and_licence_through_packing_and_its_series(tmp_path: Path) -> None:
    release = Release.parse("2026-11", publisher="Example Institute", license="CC-BY-4.0")
    snapshot = load_snapshot(build_snapshot(world(STANDARD), release, tmp_path).directory)
    assert (snapshot.publisher, snapshot.license) == ("Example Institute", "CC-BY-4.0")
    revived = Packed.of(snapshot, "x").unpack()
    assert revived == snapshot
    assert (series_of(snapshot).publisher, series_of(snapshot).license) == ("Example Institute", "CC-BY-4.0")


def test_older_manifest_without_publisher_or_licence_stays_valid(data: Path) -> None:
    directory = data / "snapshots" / "2026-11"
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    assert "publisher" not in manifest and "license" not in manifest  # as builders wrote them before
    snapshot, problems = read_snapshot(directory)
    assert problems == [] and snapshot is not None
    assert (snapshot.publisher, snapshot.license) == (None, None)


@pytest.mark.parametrize(("extra", "valid"), [
    ({"publisher": "Example Institute", "license": None}, True),
    ({"license": "CC-BY-4.0"}, True),
    ({"publisher": ""}, False),
    ({"publisher": None}, False),
    ({"license": ""}, False),
    ({"license": 4}, False),
])
def test_manifest_publisher_and_licence_schema(data: Path, extra: dict[str, object], valid: bool) -> None:
    directory = data / "snapshots" / "2026-11"
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    (directory / "manifest.json").write_bytes(orjson.dumps({**manifest, **extra}))
    snapshot, problems = read_snapshot(directory)
    assert (snapshot is not None) is valid, problems
    if valid:
        assert snapshot is not None and snapshot.license == extra.get("license")


@pytest.mark.parametrize(("measure", "change", "direction"), [
    ("Global Rank", 3, "worse"), ("Global Rank", -2, "better"), ("Global Rank", 0, "same"),
    ("Composite Readiness Score", 0.79, "up"), ("Governance Score", -1.5, "down"), ("Governance Score", 0, "same"),
])
def test_mover_direction_a_positive_rank_change_is_worse(measure: str, change: float, direction: str) -> None:
    assert mover_direction(measure, change) == direction


def test_summarize_reads_the_builders_indicator_catalogue_and_sees_the_change_report(data: Path) -> None:
    directory = data / "snapshots" / "2026-11"
    snapshot = load_snapshot(directory)
    summary = summarize(snapshot, "id", directory)
    assert (summary.id, summary.economies, summary.has_changes) == ("2026-11", len(snapshot.countries), False)
    assert summary.ranked == sum(1 for c in snapshot.countries.values() if c.record.get("Global Rank") is not None)
    assert summary.indicators[0]["code"] == "EG.ELC.ACCS.ZS"
    assert summary.indicators[0]["direction"] == "higher is better"
    out_of_school = next(entry for entry in summary.indicators if entry["code"] == "SE.PRM.UNER.ZS")
    assert out_of_school["direction"] == "lower is better"
    assert out_of_school["transform"] == ["min-max scaled to 0-100", "100 minus the scaled value"]
    population = next(entry for entry in summary.indicators if entry["code"] == "SP.POP.TOTL")
    assert (population["dimension"], population["direction"], population["transform"]) == (None, None, [])
    assert isinstance(population["purpose"], str) and population["sources"]
    (directory / CHANGES_FILE).write_text("{}")
    assert summarize(snapshot, "id", directory).has_changes is True


@pytest.mark.parametrize(
    "damage", [None, b"{", b'{"format": 2, "indicators": []}', b'{"format": 1, "indicators": [1]}']
)
def test_summarize_without_a_usable_catalogue_derives_it_from_the_details(
    data: Path, damage: bytes | None, caplog: pytest.LogCaptureFixture
) -> None:
    directory = data / "snapshots" / "2026-11"
    if damage is None:
        (directory / INDICATORS_FILE).unlink()
    else:
        (directory / INDICATORS_FILE).write_bytes(damage)
    snapshot = load_snapshot(directory)
    with caplog.at_level(logging.WARNING, "readiness.loaders"):
        summary = summarize(snapshot, "id", directory)
    first = next(iter(snapshot.countries.values())).details[0]
    assert summary.indicators[0] == {
        "code": first["indicator_code"], "name": first["indicator_name"], "dimension": first["component"],
        "direction": None, "transform": None, "purpose": None, "sources": summary.indicators[0]["sources"],
    }
    assert len(summary.indicators) == len(next(iter(snapshot.countries.values())).details)
    assert (damage is not None) == any(INDICATORS_FILE in record.message for record in caplog.records)


@gen_test
async def test_summaries_of_every_snapshot_up_to_current_without_filling_the_archive_lru(
    data: Path, reads: list[str]
) -> None:
    place_snapshot(data, "2026-12")  # placed for publishing, not current: not in the catalogue
    store = loaded(SnapshotStore(data))
    assert store.summaries_now() is None  # the archives are not summarized yet
    summaries = await store.summaries()
    assert [summary.id for summary in summaries] == ["2022-06", "2023-12", "2024-12", "2026-11"]
    assert sorted(reads) == ["2022-06", "2023-12", "2024-12", "2026-11"]  # current read once, at load
    assert store.loaded() == [store.current]  # no archive entered the LRU
    assert store.summaries_now() == summaries
    assert await store.summaries() == summaries
    assert len(reads) == 4  # nothing read again
    assert summaries[-1].series.countries.keys() == store.current.countries.keys()  # type: ignore[union-attr]
    assert all(country.details == () for country in summaries[0].series.countries.values())


@gen_test
async def test_summaries_come_from_archive_reads_and_a_swap_too(data: Path, reads: list[str]) -> None:
    store = loaded(SnapshotStore(data))
    await store.archive("2024-12")
    place_snapshot(data, "2026-12")
    flip(data, "2026-12")
    await store.refresh()
    await store.summaries()
    assert reads.count("2024-12") == 1 and reads.count("2026-12") == 1


@gen_test
async def test_summaries_leave_out_a_refused_snapshot_until_it_is_fixed(data: Path) -> None:
    manifest = data / "snapshots" / "2023-12" / "manifest.json"
    good = manifest.read_bytes()
    manifest.write_text("{")
    store = loaded(SnapshotStore(data))
    assert [summary.id for summary in await store.summaries()] == ["2022-06", "2024-12", "2026-11"]
    now = store.summaries_now()
    assert now is not None and [summary.id for summary in now] == ["2022-06", "2024-12", "2026-11"]
    manifest.write_bytes(good)
    store._retries.clear()  # the retry is due (the backoff itself is the store tests' subject)
    assert [summary.id for summary in await store.summaries()] == ["2022-06", "2023-12", "2024-12", "2026-11"]


@gen_test
async def test_replaced_archive_drops_its_summary(data: Path) -> None:
    store = loaded(SnapshotStore(data))
    before = {summary.id: summary for summary in await store.summaries()}
    directory = data / "snapshots" / "2022-06"
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    manifest["notice"] = "replaced"
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest))
    assert await store.replaced_archives() == ["2022-06"]
    assert store.summaries_now() is None
    after = {summary.id: summary for summary in await store.summaries()}
    assert after["2022-06"].series.notice == "replaced" and after["2024-12"] is before["2024-12"]


@gen_test
async def test_change_report_only_for_listed_ids_up_to_current(data: Path) -> None:
    (data / "snapshots" / "2024-12" / CHANGES_FILE).write_bytes(b'{"format": 1}')
    place_snapshot(data, "2026-12")
    (data / "snapshots" / "2026-12" / CHANGES_FILE).write_bytes(b"{}")
    store = loaded(SnapshotStore(data))
    await store.summaries()
    assert await store.change_report("2024-12") == b'{"format": 1}'
    assert await store.change_report("2023-12") is None  # no report
    assert await store.change_report("2026-12") is None  # placed, not published
    for bad in ("../2024-12", "2024-12/../2024-12", "2019-12", "CHANGES"):
        assert await store.change_report(bad) is None


@gen_test
async def test_read_summaries_one_at_a_time_then_the_store_is_settled(data: Path, reads: list[str]) -> None:
    store = loaded(SnapshotStore(data))
    await store.read_summaries()
    assert reads == ["2026-11", "2022-06", "2023-12", "2024-12"]  # current at load, then oldest first
    assert store.summaries_now() is not None and store.loaded() == [store.current]
    assert await store.settled(1.0)
    await store.read_summaries()
    assert len(reads) == 4  # nothing read again
