"""The data routes' rows and documents (readiness/domain/tables.py), as plain functions on tiny snapshots."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from loaders import INDICATOR_FIELDS, Country, Forced, JsonValue, Snapshot, Summary, series_of
from readiness.domain.errors import NoSnapshotInYears
from readiness.domain.tables import (
    COUNTRY_JSON_HELD,
    HISTORY_DEFAULT,
    INDICATOR_COLUMNS,
    MOVER_COLUMNS,
    _held_json,  # the memo's bound is what is tested
    catalogue_document,
    changes_path,
    history_columns,
    history_rows,
    history_snapshots,
    indicator_json_rows,
    indicator_rows,
    invalid_history_fields,
    mover_rows,
    ordinal_value,
    snapshots_in_years,
    valid_report,
    with_directions,
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
                       "data_source": "WDI", "notes": "", "global_percentile_value": None,
                       "regional_percentile_value": None, "observed_year": None}
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


def test_indicator_json_rows_of_an_economy_are_serialized_once_and_shared_between_answers() -> None:
    world = _world()
    first = indicator_json_rows("2026-11", world.countries.values(), None)
    again = indicator_json_rows("2026-11", world.countries.values(), None)
    assert len(first) == 6 and all(a is b for a, b in zip(first, again, strict=True))
    filtered = indicator_json_rows("2026-11", world.countries.values(), ("ge.est",))
    assert [orjson.loads(orjson.dumps(json))["Country Code"] for json in filtered] == ["AGO", "BRA", "KEN"]
    assert all(any(json is kept for kept in first) for json in filtered)


def test_indicator_json_rows_follow_the_loaded_country_and_snapshot_not_the_code() -> None:
    def first_row(snapshot_id: str, economy: Country) -> dict[str, JsonValue]:
        return orjson.loads(orjson.dumps(indicator_json_rows(snapshot_id, [economy], None)[0]))  # type: ignore[no-any-return]

    kenya = _world().countries["KEN"]
    assert first_row("2026-11", kenya)["snapshot"] == "2026-11"
    assert first_row("2026-12", kenya)["snapshot"] == "2026-12"
    renamed = country("KEN", "Republic of Kenya")  # a refresh loads new Country objects
    assert first_row("2026-12", renamed)["Country Name"] == "Republic of Kenya"
    assert first_row("2026-12", kenya)["Country Name"] == "Kenya"


@pytest.mark.parametrize("indicators", [None, ("ge.est",), ("NO.SUCH",)])
def test_indicator_json_rows_are_the_rows_serialized(indicators: tuple[str, ...] | None) -> None:
    world = _world()
    rows = indicator_rows("2026-11", world.countries.values(), indicators)
    serialized = indicator_json_rows("2026-11", world.countries.values(), indicators)
    assert orjson.dumps({"data": serialized}) == orjson.dumps({"data": rows})
    assert orjson.loads(orjson.dumps(serialized)) == rows


def test_indicator_json_rows_held_are_bounded() -> None:
    countries = [country(f"C{number:04d}", f"Economy {number}") for number in range(COUNTRY_JSON_HELD + 50)]
    serialized = indicator_json_rows("2026-11", countries, None)
    assert len(serialized) == 2 * len(countries)
    assert 0 < len(_held_json) <= COUNTRY_JSON_HELD


def test_indicator_columns_are_identity_then_detail_keys_then_percentile_numbers_then_observed_year() -> None:
    assert INDICATOR_COLUMNS[:5] == ("Country Code", "Country Name", "Region", "Income Level", "snapshot")
    assert INDICATOR_COLUMNS[5:-3] == tuple(INDICATOR_FIELDS)  # the element's keys, in place
    assert INDICATOR_COLUMNS[-3:] == ("global_percentile_value", "regional_percentile_value", "observed_year")


@pytest.mark.parametrize(
    ("ordinal", "number"),
    [("31st", 31), ("1st", 1), ("2nd", 2), ("3rd", 3), ("100th", 100), ("0th", 0), ("250th", 250),
     (None, None), ("", None), ("th", None), ("31", None), ("x1st", None), ("٣rd", None), (31, None)],
)
def test_ordinal_value_reads_the_number_of_an_ordinal_string(ordinal: JsonValue, number: int | None) -> None:
    assert ordinal_value(ordinal) == number


def test_indicator_rows_match_codes_written_in_any_case_in_the_data() -> None:
    def holding(*codes: str) -> Country:
        details = tuple({"indicator_code": code, "indicator_name": code, "data_source": "WDI"} for code in codes)
        return Country("KEN", {"Country Name": "Kenya", "Country Code": "KEN"}, details)

    countries = [holding("ge.est", "IT.NET.USER.ZS", "Ge.Est"), holding("IT.NET.USER.ZS", "ge.est")]
    found = indicator_rows("x", countries, ("GE.EST",))
    assert [row["indicator_code"] for row in found] == ["ge.est", "Ge.Est", "ge.est"]
    assert [row["indicator_code"] for row in indicator_rows("x", countries, ("it.net.user.zs",))] == [
        "IT.NET.USER.ZS", "IT.NET.USER.ZS"]


def test_indicator_rows_percentile_numbers_beside_the_strings() -> None:
    element: dict[str, JsonValue] = {"indicator_code": "GE.EST", "indicator_name": "Government Effectiveness",
                                     "data_source": "WDI", "global_percentile": "31st", "regional_percentile": None,
                                     "notes": ""}
    world = snapshot(Country("KEN", {"Country Name": "Kenya", "Country Code": "KEN"}, (element,)))
    [row] = indicator_rows("2026-11", world.countries.values(), None)
    assert row["global_percentile"] == "31st" and row["global_percentile_value"] == 31
    assert row["regional_percentile"] is None and row["regional_percentile_value"] is None
    assert element == {"indicator_code": "GE.EST", "indicator_name": "Government Effectiveness",
                       "data_source": "WDI", "global_percentile": "31st", "regional_percentile": None,
                       "notes": ""}  # the snapshot's own element is untouched


# --- history -----------------------------------------------------------------------------------


def test_history_columns_default_and_narrowed_by_fields_in_serving_order() -> None:
    identity = ("Country Code", "Country Name", "snapshot", "year", "date")
    assert history_columns(None) == (*identity, *HISTORY_DEFAULT)
    assert history_columns(("Global Rank", "Region", "Composite Readiness Score")) == (
        *identity, "Region", "Composite Readiness Score", "Global Rank",
    )
    assert history_columns(("Country Name",)) == identity
    assert history_columns(("year", "date", "Global Rank")) == (*identity, "Global Rank")
    assert invalid_history_fields(("year", "date")) == []


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
    assert rows == [{"Country Code": "BRA", "Country Name": "Brazil", "snapshot": "2026-11", "year": 2026,
                     "date": "2026-11-05", "Income Level": None, "Global Rank": 1}]


def test_history_rows_year_is_the_snapshot_ids_and_date_its_publication_prebuilt_too() -> None:
    from readiness.domain.tables import default_history_rows

    june = series_of(_world("2024-06"))
    dated = Snapshot(june.id, "2024-07-02", june.countries)
    built = default_history_rows(dated)
    dates = [(row["snapshot"], row["year"], row["date"]) for row in built.values()]
    assert dates == [("2024-06", 2024, "2024-07-02")] * 3
    assert history_rows([(dated, dated.countries.values())], history_columns(None), lambda series: built) == list(
        built.values()
    )


def test_history_snapshots_decembers_and_current_within_years() -> None:
    ids = ("2022-06", "2023-12", "2024-06", "2024-12", "2026-11")
    summaries = [_summary(_world(snapshot_id)) for snapshot_id in ids]
    assert [s.id for s in history_snapshots(summaries, "2026-11", None)] == ["2023-12", "2024-12", "2026-11"]
    assert [s.id for s in history_snapshots(summaries, "2026-11", (2024, 2026))] == ["2024-12", "2026-11"]
    assert [s.id for s in history_snapshots(summaries, "2026-11", (2023, 2023))] == ["2023-12"]
    assert history_snapshots(summaries, "2026-11", (2010, 2020)) == []
    in_range = history_snapshots(summaries, "2026-11", (2024, 2026))
    assert snapshots_in_years(summaries, "2026-11", (2024, 2026)) == in_range
    with pytest.raises(NoSnapshotInYears) as raised:  # 2024 has a June, which history does not show
        snapshots_in_years(summaries, "2026-11", (2022, 2022))
    assert raised.value.status == 404 and "exist for 2023, 2024, 2026" in raised.value.message


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
        {"id": "2026-11", "year": 2026, "month": 11, "current": True, "selectable": True,
         "published": "2026-11-05", "economies": 3, "ranked_economies": 2, "synthetic": True,
         "notice": "SYNTHETIC: test", "changes": "/api/v1/snapshots/2026-11/changes", "forced": None},
        {"id": "2024-12", "year": 2024, "month": 12, "current": False, "selectable": True,
         "published": "2024-12-05", "economies": 3, "ranked_economies": 2, "synthetic": False,
         "notice": None, "changes": None, "forced": None},
    ]
    assert document["indicators"] == [{"code": "GE.EST", "name": "Government Effectiveness"}]
    cited = document["citation"]
    assert isinstance(cited, dict) and cited["snapshot"] == "2026-11" and cited["publisher"] is None
    assert cited["url"] == "/api/v1/readiness?snapshot=2026-11" and "Do not cite" in str(cited["text"])


def test_catalogue_entry_says_which_checks_a_snapshot_was_published_past_and_why() -> None:
    world = _world("2026-11")
    accepted = replace(world, forced=Forced(("rank-shift",), "the 2026 data year entered the window", ("…",)))
    older = replace(_world("2024-12"), forced=Forced((), None, ("3 economies, 3 fewer",)))
    entries = catalogue_document([_summary(older), _summary(accepted)], "2026-11", "1")["data"]
    assert isinstance(entries, list)
    assert [entry["forced"] for entry in entries] == [  # type: ignore[index, call-overload]
        {"checks": ["rank-shift"], "reason": "the 2026 data year entered the window"},
        {"checks": [], "reason": None},  # forced before the checks had names: which, unknown
    ]


def test_catalogue_citation_of_real_data_names_publisher_and_licence_and_does_not_warn() -> None:
    world = _world("2025-12")
    named = Snapshot(world.id, world.published, world.countries, publisher="Example Institute", license="CC-BY-4.0")
    cited = catalogue_document([_summary(named)], "2025-12", "1")["citation"]
    assert cited == {
        "publisher": "Example Institute", "title": "Readiness Index, snapshot 2025-12", "snapshot": "2025-12",
        "published": "2025-12-05", "url": "/api/v1/readiness?snapshot=2025-12", "license": "CC-BY-4.0",
        "text": "Example Institute (2025). Readiness Index, snapshot 2025-12 [Data set]. Published 2025-12-05. "
                "Licence: CC-BY-4.0. /api/v1/readiness?snapshot=2025-12.",
    }


def test_catalogue_without_current_summary_has_no_citation() -> None:
    assert catalogue_document([_summary(_world("2024-12"))], "2026-11", "1")["citation"] is None


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
         "code": "KEN", "name": "Kenya", "previous": 40.0, "current": 42.31, "change": 2.31, "direction": "up"},
        {"snapshot": "2026-11", "previous_snapshot": "2025-12", "measure": "Global Rank",
         "code": "KEN", "name": "Kenya", "previous": 97, "current": 91, "change": -6, "direction": "better"},
    ]
    assert all(list(row) == list(MOVER_COLUMNS) for row in rows)


def test_mover_rows_keep_the_reports_own_direction() -> None:
    ranks = {"largest": [{"code": "KEN", "change": 3, "direction": "worse"}, {"code": "AGO", "change": "x"}]}
    rows = mover_rows({"snapshot": "2026-11", "previous": "2025-12", "scores": {}, "ranks": ranks})
    assert [row["direction"] for row in rows] == ["worse", None]


def test_with_directions_fills_movers_written_without_and_leaves_the_report_untouched() -> None:
    report = {**REPORT, "ranks": {"compared": 2, "moved": 1, "largest": [
        {"code": "BRA", "change": 4}, {"code": "KEN", "change": -6, "direction": "better"}, "odd"]}}
    filled = with_directions(report)
    assert filled["scores"]["Composite Readiness Score"]["largest"][0]["direction"] == "up"  # type: ignore[index,call-overload]
    assert filled["ranks"]["largest"] == [  # type: ignore[index,call-overload]
        {"code": "BRA", "change": 4, "direction": "worse"}, {"code": "KEN", "change": -6, "direction": "better"}, "odd"]
    assert "direction" not in report["ranks"]["largest"][0]  # type: ignore[index]
    assert with_directions({"format": 1, "scores": "nonsense"}) == {"format": 1, "scores": "nonsense"}


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
    assert narrowed == [{"Country Code": "KEN", "Country Name": "Kenya", "snapshot": "2026-11", "year": 2026,
                         "date": "2026-11-05", "Global Rank": 2}]
