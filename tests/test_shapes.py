"""``shape=long`` and the indicator table over several snapshots (readiness/domain/shapes.py and
the compute functions of readiness/domain/compute.py), as plain functions on tiny snapshots."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import orjson
import pytest

from loaders import Country, JsonValue, Snapshot, Summary, series_of
from readiness.domain import routes
from readiness.domain.compute import compute_history, compute_indicators
from readiness.domain.meta import Format
from readiness.domain.query import Query
from readiness.domain.shapes import INDICATOR_LONG_COLUMNS, INDICATOR_MEASURES, long_page, text_measures
from tests.conftest import links, snapshot

ROWS: list[dict[str, JsonValue]] = [
    {"id": "A", "name": "a", "x": 1, "y": None},
    {"id": "B", "name": "b", "x": 2, "y": 20},
    {"id": "C", "name": "c", "x": 3, "y": 30},
]

CURRENT_ID = "2026-11"
"""The current snapshot's id the compute functions compare an answer's snapshot with."""


def test_long_page_one_row_per_measure_in_measure_order_nulls_kept() -> None:
    assert long_page(ROWS, ("id",), ("y", "x"), 0, None) == [
        {"id": "A", "measure": "y", "value": None}, {"id": "A", "measure": "x", "value": 1},
        {"id": "B", "measure": "y", "value": 20}, {"id": "B", "measure": "x", "value": 2},
        {"id": "C", "measure": "y", "value": 30}, {"id": "C", "measure": "x", "value": 3},
    ]


@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (1, 2), (3, 2), (5, 10), (6, 1), (2, None), (0, 6), (4, 1)])
def test_long_page_offset_and_limit_count_long_rows(offset: int, limit: int | None) -> None:
    every = long_page(ROWS, ("id", "name"), ("x", "y"), 0, None)
    stop = None if limit is None else offset + limit
    assert long_page(ROWS, ("id", "name"), ("x", "y"), offset, limit) == every[offset:stop]


def test_long_page_without_measures_has_no_rows() -> None:
    assert long_page(ROWS, ("id",), (), 0, None) == []


def _element(code: str, raw: float | None, normalized: float | None, rank: str | None) -> dict[str, JsonValue]:
    return {"indicator_code": code, "indicator_name": code.lower(), "component": "Governance", "year": 2025,
            "reported_value": raw, "data_source": "WDI", "normalized_value": normalized,
            "global_percentile": rank, "regional_percentile": "2nd", "notes": ""}


def _world(snapshot_id: str, kenya: float, notice: str | None = None) -> Snapshot:
    kenya_record: dict[str, JsonValue] = {"Country Name": "Kenya", "Country Code": "KEN",
                                          "Region": "Sub-Saharan Africa"}
    brazil_record: dict[str, JsonValue] = {"Country Name": "Brazil", "Country Code": "BRA",
                                           "Region": "Latin America & Caribbean"}
    countries = (
        Country("KEN", kenya_record, (_element("GE.EST", kenya, 40.0, "31st"), _element("IT.NET", 5.0, None, None))),
        Country("BRA", brazil_record, (_element("GE.EST", 0.5, 70.0, "80th"),)),
    )
    plain = snapshot(*countries, snapshot_id=snapshot_id)
    return Snapshot(plain.id, plain.published, plain.countries, f"digest-{snapshot_id}", notice=notice)


def test_indicators_long_has_the_four_numeric_measures_per_row() -> None:
    query = Query.parse({"codes": "KEN", "shape": "long"}, routes.INDICATORS.grammar)
    answer = compute_indicators([_world("2026-11", -0.5)], CURRENT_ID, query, routes.INDICATORS)
    data = orjson.loads(answer.body)["data"]
    assert [tuple(row) for row in data] == [INDICATOR_LONG_COLUMNS] * 8
    assert [(row["indicator_code"], row["measure"], row["value"]) for row in data] == [
        ("GE.EST", "reported_value", -0.5), ("GE.EST", "normalized_value", 40.0),
        ("GE.EST", "global_percentile_value", 31), ("GE.EST", "regional_percentile_value", 2),
        ("IT.NET", "reported_value", 5.0), ("IT.NET", "normalized_value", None),
        ("IT.NET", "global_percentile_value", None), ("IT.NET", "regional_percentile_value", 2),
    ]
    assert answer.meta.total == 8 and INDICATOR_MEASURES == tuple(row["measure"] for row in data[:4])


def test_indicators_long_limit_and_offset_page_long_rows_with_a_next_link() -> None:
    query = Query.parse({"shape": "long", "limit": "3", "offset": "2"}, routes.INDICATORS.grammar)
    answer = compute_indicators([_world("2026-11", -0.5)], CURRENT_ID, query, routes.INDICATORS)
    data = orjson.loads(answer.body)["data"]
    # BRA first (Country Code order): its 4 measures, then KEN's GE.EST.
    assert [(row["Country Code"], row["measure"]) for row in data] == [
        ("BRA", "global_percentile_value"), ("BRA", "regional_percentile_value"), ("KEN", "reported_value")]
    assert answer.meta.total == 12
    assert links(answer.meta.links)["next"] == "/api/v1/indicators?limit=3&offset=5&shape=long"


def test_indicator_years_rows_of_every_snapshot_oldest_first_newest_names_the_answer() -> None:
    old, new = _world("2025-12", -1.0, notice="old notice"), _world("2026-11", -0.5)
    query = Query.parse({"indicators": "ge.est", "years": "2025:2026"}, routes.INDICATORS.grammar)
    answer = compute_indicators([old, new], CURRENT_ID, query, routes.INDICATORS)
    document = orjson.loads(answer.body)
    assert [(row["snapshot"], row["Country Code"], row["reported_value"]) for row in document["data"]] == [
        ("2025-12", "BRA", 0.5), ("2025-12", "KEN", -1.0), ("2026-11", "BRA", 0.5), ("2026-11", "KEN", -0.5)]
    assert document["snapshot"] == "2026-11" and document["notice"] == "old notice"
    assert (answer.meta.snapshot, answer.meta.total) == ("2026-11", 4)


def test_indicator_years_csv_long_is_the_long_table_of_both_snapshots() -> None:
    parameters = {"codes": "KEN", "indicators": "GE.EST", "shape": "long", "format": "csv", "years": "2025:2026"}
    query = Query.parse(parameters, routes.INDICATORS.grammar)
    worlds = [_world("2025-12", -1.0), _world("2026-11", -0.5)]
    answer = compute_indicators(worlds, CURRENT_ID, query, routes.INDICATORS)
    table = list(csv.reader(io.StringIO(answer.body.decode("utf-8-sig"), newline="")))
    assert table[0] == [*INDICATOR_LONG_COLUMNS, "snapshot_id"]  # these snapshots have no notice
    assert [(row[4], row[6], row[7]) for row in table[1:]] == [
        ("2025-12", "reported_value", "-1.0"), ("2025-12", "normalized_value", "40.0"),
        ("2025-12", "global_percentile_value", "31"), ("2025-12", "regional_percentile_value", "2"),
        ("2026-11", "reported_value", "-0.5"), ("2026-11", "normalized_value", "40.0"),
        ("2026-11", "global_percentile_value", "31"), ("2026-11", "regional_percentile_value", "2"),
    ]


def _summary(world: Snapshot) -> Summary:
    return Summary("identity-" + world.id, len(world.countries), 0, False, (), series_of(world))


def _scored(snapshot_id: str, kenya: float) -> Snapshot:
    record: dict[str, JsonValue] = {"Country Name": "Kenya", "Country Code": "KEN", "Region": "Sub-Saharan Africa",
                                    "Composite Readiness Score": kenya, "Global Rank": 7}
    return snapshot(Country("KEN", record, ()), snapshot_id=snapshot_id)


def test_history_long_one_row_per_value_column_with_year_and_date() -> None:
    summaries = [_summary(_scored("2025-12", 41.0)), _summary(_scored("2026-11", 42.0))]
    query = Query.parse({"fields": "score,Global Rank", "shape": "long"}, routes.HISTORY.grammar)
    answer = compute_history(summaries, summaries[-1].series, query, routes.HISTORY)
    data = orjson.loads(answer.body)["data"]
    assert data[0] == {"Country Code": "KEN", "Country Name": "Kenya", "snapshot": "2025-12", "year": 2025,
                       "date": "2025-12-05", "measure": "Composite Readiness Score", "value": 41.0}
    assert [(row["snapshot"], row["measure"], row["value"]) for row in data[1:]] == [
        ("2025-12", "Global Rank", 7), ("2026-11", "Composite Readiness Score", 42.0), ("2026-11", "Global Rank", 7),
    ]
    assert answer.meta.total == 4


def test_history_long_with_a_text_field_puts_it_in_text_value_json_and_csv() -> None:
    summaries = [_summary(_scored("2025-12", 41.0)), _summary(_scored("2026-11", 42.0))]
    query = Query.parse({"fields": "Region,score", "shape": "long"}, routes.HISTORY.grammar)
    data = orjson.loads(compute_history(summaries, summaries[-1].series, query, routes.HISTORY).body)["data"]
    assert [(row["snapshot"], row["measure"], row["value"], row["text_value"]) for row in data] == [
        ("2025-12", "Region", None, "Sub-Saharan Africa"), ("2025-12", "Composite Readiness Score", 41.0, None),
        ("2026-11", "Region", None, "Sub-Saharan Africa"), ("2026-11", "Composite Readiness Score", 42.0, None),
    ]
    as_csv = compute_history(summaries, summaries[-1].series, replace(query, format=Format.CSV), routes.HISTORY)
    whole = list(csv.reader(io.StringIO(as_csv.body.decode("utf-8-sig"), newline="")))
    provenance = whole[0].index("snapshot_id")  # the columns every CSV ends with (tests/test_csv_table.py)
    table = [line[:provenance] for line in whole]
    assert table[0][-3:] == ["measure", "value", "text_value"]
    assert table[1][-3:] == ["Region", "", "Sub-Saharan Africa"] and table[2][-3:] == ["Composite Readiness Score",
                                                                                       "41.0", ""]


def test_history_long_default_has_eight_measures_per_wide_row_and_pages_long_rows() -> None:
    summaries = [_summary(_scored("2025-12", 41.0)), _summary(_scored("2026-11", 42.0))]
    current = summaries[-1].series
    wide = orjson.loads(compute_history(summaries, current, Query(), routes.HISTORY).body)["data"]
    long = compute_history(summaries, current, Query.parse({"shape": "long", "limit": "5", "offset": "6"},
                                                           routes.HISTORY.grammar), routes.HISTORY)
    assert long.meta.total == 16 and links(long.meta.links)["next"] == "/api/v1/history?limit=5&offset=11&shape=long"
    measures = [name for name in wide[0] if name not in ("Country Code", "Country Name", "snapshot", "year", "date")]
    expected = [(row["snapshot"], name, row[name]) for row in wide for name in measures][6:11]
    assert [(row["snapshot"], row["measure"], row["value"]) for row in orjson.loads(long.body)["data"]] == expected


def test_text_measures_are_the_fields_that_are_not_numbers() -> None:
    assert text_measures(("Region", "Composite Readiness Score", "FCV Status", "Global Rank", "Income Level")) == (
        "Region", "FCV Status", "Income Level"
    )
    assert text_measures(("Composite Readiness Score", "Regional Rank")) == ()


def test_long_page_text_measures_go_in_text_value_value_stays_numeric() -> None:
    rows: list[dict[str, JsonValue]] = [{"id": "A", "x": 1, "t": "south"}, {"id": "B", "x": None, "t": None}]
    assert long_page(rows, ("id",), ("t", "x"), 0, None, ("t",)) == [
        {"id": "A", "measure": "t", "value": None, "text_value": "south"},
        {"id": "A", "measure": "x", "value": 1, "text_value": None},
        {"id": "B", "measure": "t", "value": None, "text_value": None},
        {"id": "B", "measure": "x", "value": None, "text_value": None},
    ]
    assert long_page(rows, ("id",), ("t", "x"), 1, 2, ("t",)) == long_page(rows, ("id",), ("t", "x"), 0, None,
                                                                          ("t",))[1:3]
