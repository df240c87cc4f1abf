"""select, sort_countries and project: filtering, ordering and shaping on tiny snapshots."""

from __future__ import annotations

from collections.abc import Iterable

from loaders import COUNTRY_FIELDS, Country, Snapshot
from readiness.domain.query import Query
from readiness.domain.select import columns, limited, missing_codes, project, select, sort_countries, unmatched
from tests.conftest import country, snapshot


def world() -> Snapshot:
    return snapshot(
        country("KEN", "Kenya",
                **{"Composite Readiness Score": 50.0, "Population, total": 55_000_000, "FCV Status": False}),
        country("NGA", "Nigeria",
                **{"Composite Readiness Score": 40.0, "Population, total": 220_000_000, "FCV Status": True}),
        country("BRA", "Brazil", "Latin America & Caribbean",
                **{"Composite Readiness Score": 65.0, "FCV Status": False}),
        country("ARG", "Argentina", "Latin America & Caribbean",
                **{"Composite Readiness Score": None, "FCV Status": False}),
        country("CIV", "Côte d'Ivoire", **{"Composite Readiness Score": 50.0, "FCV Status": False}),
        country("cmr".upper(), "cameroon", **{"Composite Readiness Score": 45.0}),
    )


def codes(countries: Iterable[Country]) -> list[str]:
    return [c.code for c in countries]


def test_select_no_parameters_all_countries_by_name() -> None:
    assert codes(select(world(), Query())) == ["ARG", "BRA", "CMR", "CIV", "KEN", "NGA"]


def test_select_name_sort_ignores_case_and_accents() -> None:
    # "cameroon" (lower case) before "Côte d'Ivoire" (accented) before "Kenya".
    names = [c.record["Country Name"] for c in select(world(), Query())]
    assert names.index("cameroon") < names.index("Côte d'Ivoire") < names.index("Kenya")


def test_select_codes_skip_unmatched_codes() -> None:
    query = Query.parse({"codes": "KEN,XXX,BRA"})
    assert codes(select(world(), query)) == ["BRA", "KEN"]
    assert missing_codes(world(), query) == ["XXX"]


def test_select_codes_and_region_intersect() -> None:
    query = Query.parse({"codes": "KEN,BRA", "region": "LAC"})
    assert codes(select(world(), query)) == ["BRA"]


def test_select_region_filters_by_full_name() -> None:
    assert codes(select(world(), Query.parse({"region": "sa"}))) == ["ARG", "BRA"]


def test_sort_number_descending_nulls_last_ties_by_code() -> None:
    ordered = sort_countries(world().countries.values(), "Composite Readiness Score", descending=True)
    # CIV and KEN tie on 50.0: Country Code breaks the tie ascending; ARG (null) is last.
    assert codes(ordered) == ["BRA", "CIV", "KEN", "CMR", "NGA", "ARG"]


def test_sort_number_ascending_nulls_still_last_ties_by_code() -> None:
    ordered = sort_countries(world().countries.values(), "Composite Readiness Score", descending=False)
    assert codes(ordered) == ["NGA", "CMR", "CIV", "KEN", "BRA", "ARG"]


def test_sort_absent_field_counts_as_null() -> None:
    ordered = sort_countries(world().countries.values(), "Population, total", descending=True)
    assert codes(ordered) == ["NGA", "KEN", "ARG", "BRA", "CIV", "CMR"]


def test_sort_boolean_ascending_false_first_absent_last() -> None:
    ordered = sort_countries(world().countries.values(), "FCV Status", descending=False)
    assert codes(ordered) == ["ARG", "BRA", "CIV", "KEN", "NGA", "CMR"]


def test_project_global_default_serves_records_without_details() -> None:
    objects = project(select(world(), Query()), Query())
    assert all("indicator_details" not in obj for obj in objects)
    assert objects[0]["Country Code"] == "ARG"


def test_project_fields_keep_only_those_in_canonical_order() -> None:
    query = Query.parse({"fields": "score,country name"})
    objects = project(select(world(), query), query)
    assert list(objects[1]) == ["Country Name", "Composite Readiness Score"]


def test_project_country_mode_keeps_details_through_fields() -> None:
    query = Query.parse({"code": "KEN", "fields": "score"})
    [kenya] = project(select(world(), query), query)
    assert list(kenya) == ["Composite Readiness Score", "indicator_details"]
    assert len(kenya["indicator_details"]) == 2


def test_project_indicators_filter_details_case_insensitively() -> None:
    query = Query.parse({"code": "KEN", "indicators": "ge.est,NOPE.X"})
    [kenya] = project(select(world(), query), query)
    assert [d["indicator_code"] for d in kenya["indicator_details"]] == ["GE.EST"]


def test_project_shortnames_add_aliases_next_to_long_names() -> None:
    query = Query.parse({"code": "KEN", "shortnames": "true"})
    [kenya] = project(select(world(), query), query)
    keys = list(kenya)
    assert keys[:5] == ["Country Name", "Country Code", "Region", "RegionShort", "Composite Readiness Score"]
    assert keys[5] == "score"
    assert kenya["RegionShort"] == "SSA"
    assert kenya["score"] == kenya["Composite Readiness Score"] == 50.0


def test_project_shortnames_after_fields_only_for_kept_fields() -> None:
    query = Query.parse({"fields": "Country Code,score", "shortnames": "1"})
    objects = project(select(world(), query), query)
    assert list(objects[0]) == ["Country Code", "Composite Readiness Score", "score"]


def test_project_never_changes_the_snapshot() -> None:
    data = world()
    query = Query.parse({"code": "KEN", "fields": "score", "shortnames": "true", "indicators": "GE.EST"})
    project(select(data, query), query)
    assert "score" not in data.countries["KEN"].record
    assert len(data.countries["KEN"].details) == 2


def filters_world() -> Snapshot:
    return snapshot(
        country("KEN", "Kenya",
                **{"Income Level": "Lower middle income", "FCV Status": False, "Composite Readiness Score": 50.0}),
        country("SOM", "Somalia",
                **{"Income Level": "Low income", "FCV Status": True, "Composite Readiness Score": 20.0}),
        country("MLI", "Mali",
                **{"Income Level": "Low income", "FCV Status": True, "Composite Readiness Score": 25.0}),
        country("RWA", "Rwanda",
                **{"Income Level": "Low income", "FCV Status": False, "Composite Readiness Score": 40.0}),
        country("VEN", "Venezuela", "Latin America & Caribbean", **{"Income Level": None, "FCV Status": False}),
    )


def test_select_income_keeps_that_group_only() -> None:
    assert codes(select(filters_world(), Query.parse({"income": "LIC"}))) == ["MLI", "RWA", "SOM"]
    assert codes(select(filters_world(), Query.parse({"income": "high income"}))) == []


def test_select_fcv_true_or_false() -> None:
    assert codes(select(filters_world(), Query.parse({"fcv": "true"}))) == ["MLI", "SOM"]
    assert codes(select(filters_world(), Query.parse({"fcv": "0"}))) == ["KEN", "RWA", "VEN"]


def test_select_fcv_without_fcv_status_passes_neither_true_nor_false() -> None:
    # FCV Status is not a required field of the data contract: unknown is neither status.
    unknown = country("XKX", "Kosovo", "Europe & Central Asia", **{"Composite Readiness Score": 60.0})
    world_ = snapshot(*filters_world().countries.values(), unknown)
    assert codes(select(world_, Query.parse({"fcv": "false"}))) == ["KEN", "RWA", "VEN"]
    assert codes(select(world_, Query.parse({"fcv": "true"}))) == ["MLI", "SOM"]
    assert "XKX" in codes(select(world_, Query.parse({})))


def test_select_all_filters_apply_together() -> None:
    query = Query.parse({"codes": "SOM,RWA,KEN,XXX", "income": "LIC", "fcv": "false"})
    assert codes(select(filters_world(), query)) == ["RWA"]


def test_limited_cuts_after_sorting_and_keeps_everything_without_a_limit() -> None:
    matched = select(filters_world(), Query.parse({"sort": "score", "limit": "2"}))
    assert codes(matched) == ["KEN", "RWA", "MLI", "SOM", "VEN"]  # select never cuts: the total
    assert codes(limited(matched, 2)) == ["KEN", "RWA"]
    assert codes(limited(matched, 1000)) == codes(matched)
    assert codes(limited(matched, None)) == codes(matched)


def test_limited_applies_offset_then_limit() -> None:
    matched = select(filters_world(), Query.parse({"sort": "score", "limit": "2", "offset": "1"}))
    assert codes(limited(matched, 2, 1)) == ["RWA", "MLI"]
    assert codes(limited(matched, 2, 4)) == ["VEN"]
    assert codes(limited(matched, 2, 5)) == [] and codes(limited(matched, None, 9)) == []
    assert codes(limited(matched, None, 3)) == ["SOM", "VEN"]
    assert codes(limited(matched, 2, 0)) == codes(limited(matched, 2))
    pages = [codes(limited(matched, 2, start)) for start in range(0, len(matched), 2)]
    assert sum(pages, []) == codes(matched)


def test_columns_are_the_keys_project_gives_without_details(sample_current: Snapshot) -> None:
    kenya = sample_current.countries["KEN"]  # a loaded record: its keys in serving order
    for params in [{}, {"shortnames": "true"}, {"fields": "score,Region"},
                   {"fields": "score,Region", "shortnames": "1"},
                   {"code": "KEN"}, {"code": "KEN", "fields": "indicator_details"}]:
        query = Query.parse(params)
        projected = project([kenya], query)[0]
        assert [key for key in projected if key != "indicator_details"] == list(columns(query))


def test_columns_default_is_every_field_in_serving_order() -> None:
    assert columns(Query()) == tuple(field.name for field in COUNTRY_FIELDS)
    assert columns(Query.parse({"fields": "score,Region", "shortnames": "true"})) == (
        "Region", "RegionShort", "Composite Readiness Score", "score",
    )
    assert columns(Query.parse({"fields": "indicator_details"})) == ()


def test_unmatched_names_codes_and_indicators_no_snapshot_has() -> None:
    query = Query(codes=("KEN", "XXX", "ZZZ"), indicators=("GE.EST", "NO.SUCH"))
    assert unmatched([world()], query) == {"codes": ["XXX", "ZZZ"], "indicators": ["NO.SUCH"]}
    assert unmatched([world()], Query(codes=("KEN",), indicators=("ge.est".upper(),))) == {}


def test_unmatched_code_in_any_snapshot_matched_and_filters_do_not_count() -> None:
    older = snapshot(country("SSD", "South Sudan"), snapshot_id="2023-12")
    assert unmatched([older, world()], Query(codes=("KEN", "SSD"))) == {}
    assert unmatched([world()], Query(codes=("KEN", "SSD"))) == {"codes": ["SSD"]}
    assert unmatched([world()], Query(codes=("BRA",), region="Sub-Saharan Africa", fcv=True)) == {}


def test_unmatched_indicators_only_when_the_query_filters_details() -> None:
    assert unmatched([world()], Query()) == {}
    assert unmatched([world()], Query(indicators=("NO.SUCH",))) == {"indicators": ["NO.SUCH"]}
    assert unmatched([], Query(codes=("KEN",), indicators=("GE.EST",))) == {"codes": ["KEN"], "indicators": ["GE.EST"]}
