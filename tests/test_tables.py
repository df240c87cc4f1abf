"""The data routes' rows and documents (readiness/domain/tables.py), as plain functions on tiny snapshots."""

from __future__ import annotations

import pytest

from loaders import Snapshot, Summary, series_of
from readiness.domain.tables import (
    HISTORY_DEFAULT,
    INDICATOR_COLUMNS,
    MOVER_COLUMNS,
    catalogue_document,
    changes_path,
    citation,
    history_columns,
    history_rows,
    history_snapshots,
    indicator_rows,
    invalid_history_fields,
    mover_rows,
    valid_report,
)

from tests.conftest import country, snapshot


def _world(snapshot_id: str = "2026-11", kenya: float = 42.0, with_brazil: bool = True) -> Snapshot:
    countries = [
        country("KEN", "Kenya", **{"Income Level": "Lower middle income", "Composite Readiness Score": kenya,
                                   "Global Rank": 2, "Population, total": 5}),
        country("AGO", "Angola", **{"Income Level": "Lower middle income", "Composite Readiness Score": 30.5,
                                    "Global Rank": None}),
    ]
    if with_brazil:
        countries.append(country("BRA", "Brazil", "Latin America & Caribbean",
                                 **{"Composite Readiness Score": 60.25, "Global Rank": 1}))
    return snapshot(*countries, snapshot_id=snapshot_id)


def _summary(world: Snapshot, has_changes: bool = True, synthetic: bool = False) -> Summary:
    series = series_of(world)
    if synthetic:
        series = Snapshot(series.id, series.published, series.countries, series.digest, 0, True, "SYNTHETIC: test")
    ranked = sum(1 for c in world.countries.values() if c.record.get("Global Rank") is not None)
    return Summary("identity-" + world.id, len(world.countries), ranked, has_changes,
                   ({"code": "GE.EST", "name": "Government Effectiveness"},), series)


# --- indicators --------------------------------------------------------------------------------


def test_indicator_rows_by_code_then_details_order_with_identity_first() -> None:
    world = _world()
    rows = indicator_rows("2026-11", world.countries.values(), None)
    assert [(row["Country Code"], row["indicator_code"]) for row in rows] == [
        ("AGO", "GE.EST"), ("AGO", "IT.NET.USER.ZS"), ("BRA", "GE.EST"), ("BRA", "IT.NET.USER.ZS"),
        ("KEN", "GE.EST"), ("KEN", "IT.NET.USER.ZS"),
    ]
    assert list(rows[0])[:5] == ["Country Code", "Country Name", "Region", "Income Level", "snapshot"]
    assert rows[4] == {"Country Code": "KEN", "Country Name": "Kenya", "Region": "Sub-Saharan Africa",
                       "Income Level": "Lower middle income", "snapshot": "2026-11",
                       "indicator_code": "GE.EST", "indicator_name": "Government Effectiveness",
                       "data_source": "WDI", "notes": ""}
    assert rows[2]["Income Level"] is None  # absent from the record: null, the column stays


def test_indicator_rows_sorted_by_code_whatever_the_input_order() -> None:
    world = _world()
    shuffled = [world.countries["KEN"], world.countries["AGO"]]
    assert [row["Country Code"] for row in indicator_rows("x", shuffled, ("ge.est",))] == ["AGO", "KEN"]


def test_indicator_rows_filter_by_codes_any_case_and_unknown_gives_none() -> None:
    world = _world()
    assert {row["indicator_code"] for row in indicator_rows("x", world.countries.values(), ("it.net.user.zs",))} == {
        "IT.NET.USER.ZS"
    }
    assert indicator_rows("x", world.countries.values(), ("NO.SUCH",)) == []


def test_indicator_columns_are_identity_then_detail_keys() -> None:
    assert INDICATOR_COLUMNS[:5] == ("Country Code", "Country Name", "Region", "Income Level", "snapshot")
    assert INDICATOR_COLUMNS[5] == "indicator_code" and INDICATOR_COLUMNS[-1] == "notes"


# --- history -----------------------------------------------------------------------------------


def test_history_columns_default_and_narrowed_by_fields_in_serving_order() -> None:
    assert history_columns(None) == ("Country Code", "Country Name", "snapshot", *HISTORY_DEFAULT)
    assert history_columns(("Global Rank", "Region", "Composite Readiness Score")) == (
        "Country Code", "Country Name", "snapshot", "Region", "Composite Readiness Score", "Global Rank",
    )
    assert history_columns(("Country Name",)) == ("Country Code", "Country Name", "snapshot")


def test_invalid_history_fields_names_fields_a_series_lacks() -> None:
    assert invalid_history_fields(None) == []
    assert invalid_history_fields(("Composite Readiness Score", "FCV Status", "Country Code")) == []
    assert invalid_history_fields(("Population, total", "Microstate", "Global Rank")) == [
        "Population, total", "Microstate"
    ]


def test_history_rows_oldest_snapshot_first_then_code_absent_country_has_no_row() -> None:
    old = series_of(_world("2024-12", kenya=40.0, with_brazil=False))
    new = series_of(_world("2026-11", kenya=42.0))
    columns = history_columns(("Composite Readiness Score",))
    rows = history_rows([(old, old.countries.values()), (new, new.countries.values())], columns)
    assert [(row["snapshot"], row["Country Code"], row["Composite Readiness Score"]) for row in rows] == [
        ("2024-12", "AGO", 30.5), ("2024-12", "KEN", 40.0),
        ("2026-11", "AGO", 30.5), ("2026-11", "BRA", 60.25), ("2026-11", "KEN", 42.0),
    ]
    assert list(rows[0]) == list(columns)


def test_history_rows_missing_value_is_null_and_only_selected_countries() -> None:
    new = series_of(_world())
    rows = history_rows([(new, [new.countries["BRA"]])], history_columns(("Income Level", "Global Rank")))
    assert rows == [{"Country Code": "BRA", "Country Name": "Brazil", "snapshot": "2026-11",
                     "Income Level": None, "Global Rank": 1}]


def test_history_snapshots_decembers_and_current_within_years() -> None:
    ids = ("2022-06", "2023-12", "2024-06", "2024-12", "2026-11")
    summaries = [_summary(_world(snapshot_id)) for snapshot_id in ids]
    assert [s.id for s in history_snapshots(summaries, "2026-11", None)] == ["2023-12", "2024-12", "2026-11"]
    assert [s.id for s in history_snapshots(summaries, "2026-11", (2024, 2026))] == ["2024-12", "2026-11"]
    assert [s.id for s in history_snapshots(summaries, "2026-11", (2023, 2023))] == ["2023-12"]
    assert history_snapshots(summaries, "2026-11", (2010, 2020)) == []


def test_series_keeps_scores_ranks_and_filter_fields_without_details() -> None:
    series = series_of(_world())
    kenya = series.countries["KEN"]
    assert kenya.details == ()
    assert "Population, total" not in kenya.record
    assert kenya.record["Income Level"] == "Lower middle income" and kenya.record["Global Rank"] == 2
    assert list(series.countries) == ["AGO", "BRA", "KEN"]


# --- catalogue ---------------------------------------------------------------------------------


def test_catalogue_newest_first_with_facts_links_and_current_catalogue() -> None:
    summaries = [_summary(_world("2024-12"), has_changes=False), _summary(_world("2026-11"), synthetic=True)]
    document = catalogue_document(summaries, "2026-11", "1")
    assert document["apiVersion"] == "1" and document["snapshot"] == "2026-11" and document["count"] == 2
    assert document["data"] == [
        {"id": "2026-11", "year": 2026, "month": 11, "current": True, "selectable": False,
         "published": "2026-11-05", "economies": 3, "ranked_economies": 2, "synthetic": True,
         "notice": "SYNTHETIC: test", "changes": "/api/v1/snapshots/2026-11/changes"},
        {"id": "2024-12", "year": 2024, "month": 12, "current": False, "selectable": True,
         "published": "2024-12-05", "economies": 3, "ranked_economies": 2, "synthetic": False,
         "notice": None, "changes": None},
    ]
    assert document["indicators"] == [{"code": "GE.EST", "name": "Government Effectiveness"}]
    citation_text = document["citation"]
    assert isinstance(citation_text, str) and "2026-11" in citation_text and "Do not cite" in citation_text


def test_citation_of_real_data_does_not_warn() -> None:
    text = citation(_summary(_world("2025-12")))
    assert "snapshot 2025-12 (published 2025-12-05)" in text and "synthetic" not in text


def test_changes_path() -> None:
    assert changes_path("2026-11") == "/api/v1/snapshots/2026-11/changes"


# --- change reports ----------------------------------------------------------------------------

REPORT = {
    "format": 1,
    "snapshot": "2026-11",
    "previous": "2025-12",
    "scores": {
        "Composite Readiness Score": {"compared": 2, "moved": 1, "largest": [
            {"code": "KEN", "name": "Kenya", "previous": 40.0, "current": 42.31, "change": 2.31}]},
        "Governance Score": {"compared": 2, "moved": 0, "largest": []},
    },
    "ranks": {"compared": 2, "moved": 1, "largest": [
        {"code": "KEN", "name": "Kenya", "previous": 97, "current": 91, "change": -6}, "not an object"]},
}


def test_mover_rows_every_score_then_ranks() -> None:
    rows = mover_rows(REPORT)
    assert rows == [
        {"snapshot": "2026-11", "previous_snapshot": "2025-12", "measure": "Composite Readiness Score",
         "code": "KEN", "name": "Kenya", "previous": 40.0, "current": 42.31, "change": 2.31},
        {"snapshot": "2026-11", "previous_snapshot": "2025-12", "measure": "Global Rank",
         "code": "KEN", "name": "Kenya", "previous": 97, "current": 91, "change": -6},
    ]
    assert all(list(row) == list(MOVER_COLUMNS) for row in rows)


def test_mover_rows_first_snapshot_or_odd_report_has_none() -> None:
    assert mover_rows({"format": 1, "snapshot": "2022-06", "previous": None, "scores": {}, "ranks": {}}) == []
    assert mover_rows({"scores": "nonsense", "ranks": []}) == []


@pytest.mark.parametrize(
    ("report", "valid"),
    [
        (REPORT, True),
        ({**REPORT, "format": 2}, False),
        ({**REPORT, "snapshot": "2025-12"}, False),
        (["not", "an", "object"], False),
        (None, False),
    ],
)
def test_valid_report_only_known_format_about_this_snapshot(report: object, valid: bool) -> None:
    assert valid_report(report, "2026-11") is valid  # type: ignore[arg-type]


def test_history_rows_with_default_columns_reuse_the_rows_built_once() -> None:
    from readiness.domain.tables import default_history_rows

    new = series_of(_world())
    built = default_history_rows(new)
    assert list(built) == ["AGO", "BRA", "KEN"] and tuple(built["KEN"]) == history_columns(None)
    rows = history_rows(
        [(new, [new.countries["KEN"], new.countries["AGO"]])], history_columns(None), lambda series: built
    )
    assert rows[0] is built["AGO"] and rows[1] is built["KEN"]
    assert rows == history_rows([(new, [new.countries["AGO"], new.countries["KEN"]])], history_columns(None))
    narrowed = history_rows([(new, [new.countries["KEN"]])], history_columns(("Global Rank",)), lambda series: built)
    assert narrowed == [{"Country Code": "KEN", "Country Name": "Kenya", "snapshot": "2026-11", "Global Rank": 2}]
