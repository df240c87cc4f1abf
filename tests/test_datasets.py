"""The data routes' compute functions (readiness/domain/compute.py) as plain functions, and how the
service keys and fills their answers (readiness/service.py): history never reads an archive
into the LRU, and its key names every snapshot shown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from loaders import Snapshot, SnapshotStore, Summary, series_of
from readiness.cache.answers import AnswerCache
from readiness.cache.keys import collection_key, snapshots_key
from readiness.domain import routes
from readiness.domain.compute import (
    LONG_ROW_BYTES,
    check_history,
    compute_catalogue,
    compute_changes,
    compute_history,
    compute_indicators,
    indicators_cost,
    indicators_total_cost,
)
from readiness.domain.errors import ChangeReportNotFound, InvalidParameter
from readiness.domain.meta import Format
from readiness.domain.query import Query, Shape
from readiness.metrics import Metrics
from readiness.service import CacheOutcome, ReadinessService, RedisTtl
from tests.conftest import country, gen_test, snapshot, tiny_data

CURRENT_ID = "2026-11"
"""The current snapshot's id the compute functions compare an answer's snapshot with."""


def _world(snapshot_id: str = "2026-11") -> Snapshot:
    return snapshot(
        country("KEN", "Kenya", **{"Composite Readiness Score": 42.0, "Global Rank": 2, "FCV Status": False}),
        country("SOM", "Somalia", **{"Composite Readiness Score": 12.5, "Global Rank": 3, "FCV Status": True}),
        snapshot_id=snapshot_id,
    )


def _summary(world: Snapshot) -> Summary:
    return Summary("identity", len(world.countries), 2, False, (), series_of(world))


def test_compute_indicators_json_and_csv_share_rows_and_total() -> None:
    world = _world()
    answer = compute_indicators([world], CURRENT_ID, Query(limit=3), routes.INDICATORS)
    document = orjson.loads(answer.body)
    assert document["count"] == 3 and answer.meta.total == 4 and answer.meta.snapshot == "2026-11"
    as_csv = compute_indicators([world], CURRENT_ID, Query(limit=3, format=Format.CSV), routes.INDICATORS)
    assert as_csv.body.decode("utf-8-sig").count("\r\n") == 4  # header and three rows
    assert as_csv.meta.download == "indicators"


def test_compute_indicators_fcv_filter_uses_the_record() -> None:
    document = orjson.loads(compute_indicators([_world()], CURRENT_ID, Query(fcv=True), routes.INDICATORS).body)
    assert {row["Country Code"] for row in document["data"]} == {"SOM"}


def test_indicators_cost_never_much_below_the_answer() -> None:
    world = _world()
    for query in (Query(), Query(codes=("KEN",)), Query(indicators=("GE.EST",)), Query(limit=1, offset=2),
                  Query(shape=Shape.LONG, offset=5)):
        body = compute_indicators([world], CURRENT_ID, query, routes.INDICATORS).body
        assert indicators_cost(world, query) >= len(body) * 0.5


def test_indicators_cost_prices_the_page_not_the_table() -> None:
    worlds = [_world("2024-12"), _world("2025-12"), _world("2026-11")]
    whole = indicators_total_cost(worlds, Query(shape=Shape.LONG))
    page = indicators_total_cost(worlds, Query(shape=Shape.LONG, limit=2, offset=10))
    past_the_end = indicators_total_cost(worlds, Query(shape=Shape.LONG, limit=2, offset=10_000))
    assert past_the_end < page < whole / 5
    assert page - past_the_end == 2 * LONG_ROW_BYTES  # two long rows beyond counting the economies


@pytest.mark.parametrize("shape", [Shape.WIDE, Shape.LONG])
@pytest.mark.parametrize("output", [Format.JSON, Format.CSV])
@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (3, 2), (3, 5), (7, None), (0, None), (2, 100), (1000, 5)])
def test_a_page_over_snapshots_is_the_whole_tables_slice(
    shape: Shape, output: Format, offset: int, limit: int | None
) -> None:
    # Pages that start and end inside one economy's rows, span two economies and two
    # snapshots, or lie past the end: only the rows shown are built, the same rows all the same.
    worlds = [_world("2025-12"), _world("2026-11")]
    whole = compute_indicators(worlds, CURRENT_ID, Query(shape=shape, format=output), routes.INDICATORS)
    paged = compute_indicators(worlds, CURRENT_ID, Query(shape=shape, format=output, offset=offset, limit=limit),
                               routes.INDICATORS)
    rows, shown = _rows(whole.body, output), _rows(paged.body, output)
    end = None if limit is None else offset + limit
    assert shown == rows[offset:end] and (shown or offset >= len(rows))
    assert paged.meta.total == whole.meta.total == len(rows) == (32 if shape is Shape.LONG else 8)  # 2 x 2 x 2


def _rows(body: bytes, output: Format) -> list[object]:
    """An indicator answer's rows: JSON's ``data``, or a CSV file's lines after its header."""
    if output is Format.JSON:
        return list(orjson.loads(body)["data"])
    return list(body.decode("utf-8-sig").split("\r\n")[1:-1])


def test_check_history_refuses_fields_history_lacks() -> None:
    check_history(Query(fields=("Composite Readiness Score", "Region")))
    with pytest.raises(InvalidParameter, match="fields='Population, total'"):
        check_history(Query(fields=("Population, total",)))


def test_compute_history_names_the_newest_snapshot_shown() -> None:
    summaries = [_summary(_world("2024-12")), _summary(_world("2025-06")), _summary(_world("2026-11"))]
    answer = compute_history(summaries, summaries[-1].series, Query(years=(2024, 2025)), routes.HISTORY)
    document = orjson.loads(answer.body)
    assert document["snapshot"] == "2024-12" and [row["snapshot"] for row in document["data"]] == ["2024-12"] * 2
    assert (answer.meta.snapshot, answer.meta.published, answer.meta.total) == ("2024-12", "2024-12-05", 2)


def test_compute_catalogue_meta_names_the_current_snapshot() -> None:
    current = _world()
    answer = compute_catalogue([_summary(_world("2025-12")), _summary(current)], current, Query(), routes.SNAPSHOTS)
    assert answer.meta.snapshot == "2026-11" and answer.meta.total == 2
    assert orjson.loads(answer.body)["data"][0]["id"] == "2026-11"


@pytest.mark.parametrize("raw", [b"", b"{", b"[]", b'{"format": 1, "snapshot": "2025-12"}'])
def test_compute_changes_refuses_what_is_not_this_snapshots_report(raw: bytes) -> None:
    with pytest.raises(ChangeReportNotFound, match="cannot be read"):
        compute_changes(_world(), CURRENT_ID, raw, Query(), routes.CHANGES)


def test_compute_changes_json_wraps_the_report_as_is() -> None:
    raw = b'{"format": 1, "snapshot": "2026-11", "previous": null, "summary": "first"}'
    answer = compute_changes(_world(), CURRENT_ID, raw, Query(), routes.CHANGES)
    assert orjson.loads(answer.body) == {
        "apiVersion": "1", "snapshot": "2026-11", "snapshot_id": "2026-11", "current": True, "count": 1,
        "data": orjson.loads(raw),
    }
    assert answer.meta.total is None
    archived = compute_changes(_world(), "2027-01", raw, Query(), routes.CHANGES)
    assert orjson.loads(archived.body)["current"] is False


def test_collection_key_names_every_snapshot_shown() -> None:
    current = _world()
    summaries = [_summary(_world("2025-12")), _summary(current)]
    key = collection_key(current, summaries, "history|")
    assert key.startswith("2026-11|") and key.endswith("|history|")
    assert collection_key(current, list(summaries), "history|") == key
    replaced = Summary("other", 2, 2, False, (), replace(summaries[0].series, digest="another content"))
    assert collection_key(current, [replaced, summaries[1]], "history|") != key
    assert collection_key(current, summaries[1:], "history|") != key
    assert collection_key(current, summaries, "snapshots|") != key


def test_snapshots_key_of_whole_snapshots_equals_their_series_key_and_names_each_digest() -> None:
    current, december = _world(), replace(_world("2025-12"), digest="december content")
    summaries = [_summary(december), _summary(current)]
    key = snapshots_key(current, [december, current], "indicators|years=2025:2026")
    assert key == snapshots_key(current, [summary.series for summary in summaries], "indicators|years=2025:2026")
    assert key == collection_key(current, summaries, "indicators|years=2025:2026")  # one way of naming them
    assert key.startswith("2026-11|")
    republished = replace(december, digest="replaced content")
    assert snapshots_key(current, [republished, current], "indicators|years=2025:2026") != key


@gen_test
async def test_history_misses_read_no_archive_again(tmp_path: Path, reads: list[str]) -> None:
    store = SnapshotStore(tiny_data(tmp_path / "data"))
    store.load_current()
    service = ReadinessService(store, AnswerCache(1 << 20), Metrics(lambda: None, lambda: False), None, RedisTtl(1, 1))
    first, outcome = await service.answer(Query(), routes.HISTORY)
    assert outcome is CacheOutcome.MISS
    read_once = list(reads)
    for query in (Query(codes=("AAA",)), Query(years=(2024, 2025)), Query(limit=1), Query(region="Sub-Saharan Africa")):
        assert (await service.answer(query, routes.HISTORY))[1] is CacheOutcome.MISS
    assert reads == read_once and sorted(read_once) == ["2023-12", "2024-12", "2025-12", "2026-11"]
    assert store.loaded() == [store.current]
    assert (await service.answer(Query(), routes.HISTORY)) == (first, CacheOutcome.HIT)
    assert service.from_memory(Query(), routes.HISTORY) == first
