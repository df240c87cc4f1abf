"""Query.parse and Query.canonical: every parameter rule of docs/API.md#parameters and
docs/DECISIONS.md#parameter-rules."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readiness.domain import routes
from readiness.domain.errors import InvalidParameter, InvalidRequest, ReadinessError, UnknownParameter
from readiness.domain.meta import Format
from readiness.domain.parameters import MAX_CODES, MAX_LIMIT
from readiness.domain.query import CANONICAL_ORDER, Grouping, Query, Shape, archive_id, parse_query_string
from readiness.domain.route import Route


def test_parse_no_parameters_is_global_summary_by_name() -> None:
    query = Query.parse({})
    assert query == Query()
    assert not query.country_mode
    assert (query.sort, query.descending) == ("Country Name", False)


@pytest.mark.parametrize(
    ("params", "codes"),
    [
        ({"code": "ken"}, ("KEN",)),
        ({"code": "KEN,bra"}, ("BRA", "KEN")),
        ({"codes": " usa , bra ,USA"}, ("BRA", "USA")),
        ({"codes": "KEN,", "code": "BRA"}, ("KEN",)),  # codes wins over code
        ({"codes": "KEN", "code": "not a code"}, ("KEN",)),  # the losing code is not read
        ({"code": "", "codes": ""}, ()),  # empty counts as absent
    ],
)
def test_parse_codes_are_trimmed_uppercased_deduplicated_sorted(
    params: dict[str, str], codes: tuple[str, ...]
) -> None:
    assert Query.parse(params).codes == codes


@pytest.mark.parametrize("level", ["global", "GLOBAL", "country", "Country"])
def test_parse_level_with_code_is_country_mode(level: str) -> None:
    assert Query.parse({"level": level, "code": "KEN"}).country_mode


def test_parse_level_country_without_code_is_invalid_request() -> None:
    with pytest.raises(InvalidRequest, match=r"^Invalid request\. level=country needs code or codes"):
        Query.parse({"level": "country"})


@pytest.mark.parametrize(
    ("raw", "region"),
    [
        ("LAC", "Latin America & Caribbean"),
        ("sa", "Latin America & Caribbean"),
        ("South America", "Latin America & Caribbean"),
        ("south america", "Latin America & Caribbean"),
        ("eap", "East Asia & Pacific"),
        ("MENA", "Middle East & North Africa"),
        ("na", "North America"),
        ("ECA", "Europe & Central Asia"),
        ("SAS", "South Asia"),
        ("ssa", "Sub-Saharan Africa"),
        ("sub-saharan africa", "Sub-Saharan Africa"),
        ("  North America ", "North America"),
    ],
)
def test_parse_region_alias_or_name_any_case_is_full_name(raw: str, region: str) -> None:
    assert Query.parse({"region": raw}).region == region


def test_parse_year_selects_december_archive() -> None:
    query = Query.parse({"year": "2024"})
    assert query.year == 2024
    assert archive_id(query.year) == "2024-12"


@pytest.mark.parametrize(("params", "current", "chosen"), [
    ({"year": "2026"}, "2026-11", "2026-11"),  # the current snapshot's year: the current snapshot
    ({"year": "2026"}, "2026-12", "2026-12"),
    ({"year": "2026"}, "2027-01", "2026-12"),  # a past year: its December
    ({"year": "2025"}, "2026-11", "2025-12"),
    ({"year": "2027"}, "2026-11", "2027-12"),  # a later year: its December, which the store has not
    ({"snapshot": "2026-06"}, "2026-11", "2026-06"),
    ({}, "2026-11", None),
])
def test_snapshot_in_year_of_the_current_snapshot_is_the_current_one(
    params: dict[str, str], current: str, chosen: str | None
) -> None:
    assert Query.parse(params).snapshot_in(current) == chosen


@pytest.mark.parametrize(
    ("params", "sort", "descending"),
    [
        ({"sort": "score"}, "Composite Readiness Score", True),  # numbers: desc by default
        ({"sort": "SCORE", "order": "ASC"}, "Composite Readiness Score", False),
        ({"sort": "country name"}, "Country Name", False),  # text: asc by default
        ({"sort": "Country Name", "order": "desc"}, "Country Name", True),
        ({"sort": "fcv status"}, "FCV Status", False),  # booleans: asc by default
        ({"sort": "population, total"}, "Population, total", True),
        ({"sort": "infra"}, "Infrastructure Score", True),
        ({"order": "desc"}, "Country Name", True),
    ],
)
def test_parse_sort_and_order_resolve_aliases_and_defaults(
    params: dict[str, str], sort: str, descending: bool
) -> None:
    query = Query.parse(params)
    assert (query.sort, query.descending) == (sort, descending)


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        ("score,Country Name", ("Country Name", "Composite Readiness Score")),  # canonical order
        ("COUNTRY CODE,country code", ("Country Code",)),
        ("access,human", ("Human Capital Score", "School Access and Gender Parity Score")),
        ("Population, total,score", ("Population, total", "Composite Readiness Score")),
        ("population,total", ("Population, total",)),  # a name with a comma, spaces trimmed
        ("indicator_details,score", ("Composite Readiness Score",)),  # details are always kept
        ("indicator_details", ()),
    ],
)
def test_parse_fields_case_insensitive_aliases_canonical_order(raw: str, fields: tuple[str, ...]) -> None:
    assert Query.parse({"fields": raw}).fields == fields


@pytest.mark.parametrize(("raw", "flag"), [("true", True), ("TRUE", True), ("1", True), ("false", False), ("0", False)])
def test_parse_shortnames_accepts_true_false_1_0(raw: str, flag: bool) -> None:
    assert Query.parse({"shortnames": raw}).shortnames is flag


def test_parse_indicators_in_country_mode_uppercased_sorted() -> None:
    query = Query.parse({"code": "KEN", "indicators": "it.net.user.zs, GE.EST,ge.est"})
    assert query.indicators == ("GE.EST", "IT.NET.USER.ZS")


def test_parse_indicators_at_global_level_ignored() -> None:
    assert Query.parse({"indicators": "GE.EST"}).indicators is None
    assert Query.parse({"indicators": "GE.EST"}) == Query.parse({})


@pytest.mark.parametrize("raw", ["\u0084", "GE.EST,no/slash", "A" * 41])
def test_parse_malformed_indicators_at_global_level_is_400(raw: str) -> None:
    """Checked, then ignored: the OpenAPI pattern holds on every route (docs/DECISIONS.md#parameter-rules)."""
    with pytest.raises(InvalidParameter, match="indicators="):
        Query.parse({"indicators": raw})


# Every malformed value of docs/DECISIONS.md#query-parameters: 400 with a message naming the
# parameter and what is accepted.
BAD_INPUT = [
    ({"code": "KE"}, "code='KE'", "three-letter ISO3 codes"),
    ({"code": "KENY"}, "code='KENY'", "three-letter ISO3 codes"),
    ({"code": "K1N"}, "code='K1N'", "three-letter ISO3 codes"),
    ({"code": "../etc/passwd"}, "code=", "three-letter ISO3 codes"),
    ({"codes": "KEN,BR"}, "codes='BR'", "three-letter ISO3 codes"),
    ({"codes": ",,"}, "codes=',,'", "three-letter ISO3 codes"),
    ({"codes": "ÄÖÜ"}, "codes='ÄÖÜ'", "three-letter ISO3 codes"),
    ({"code": "ßa"}, "code='ßa'", "three-letter ISO3 codes"),  # "ßa".upper() == "SSA"
    ({"code": "ıab"}, "code='ıab'", "three-letter ISO3 codes"),  # dotless i upper-cases to I
    ({"level": "world"}, "level='world'", "country or global"),
    ({"region": "atlantis"}, "region='atlantis'", "Latin America & Caribbean"),
    ({"region": "EURO"}, "region='EURO'", "a short code (EAP, ECA, LAC, MENA, NA, SAS, SSA)"),
    ({"year": "24"}, "year='24'", "a four-digit year"),
    ({"year": "20245"}, "year='20245'", "a four-digit year"),
    ({"year": "２０２４"}, "year=", "a four-digit year"),  # fullwidth digits are not ASCII digits
    ({"year": "-2024"}, "year='-2024'", "a four-digit year"),
    ({"sort": "rank"}, "sort='rank'", "a field name (Country Name"),
    ({"sort": "indicator_details"}, "sort='indicator_details'", "or an alias (score, access"),
    ({"order": "up"}, "order='up'", "asc or desc"),
    ({"fields": "score,bogus"}, "fields='bogus'", "comma-separated field names"),
    ({"fields": "Infrastructure Confidence"}, "fields='Infrastructure Confidence'", "field names"),
    ({"shortnames": "yes"}, "shortnames='yes'", "true, false, 1 or 0"),
    ({"code": "KEN", "indicators": "GE EST"}, "indicators='GE EST'", "indicator codes"),
    ({"code": "KEN", "indicators": "A" * 41}, "indicators=", "indicator codes"),
    ({"fields": ",,,"}, "fields=',,,'", "comma-separated field names"),
    ({"income": "middle income"}, "income='middle income'", "Low income, Lower middle income"),
    ({"income": "LMIC"}, "income='LMIC'", "short form (LIC, LMC, UMC, HIC)"),
    ({"income": "ℍIC"}, "income='ℍIC'", "an income group"),
    ({"fcv": "yes"}, "fcv='yes'", "true, false, 1 or 0"),
    ({"fcv": "2"}, "fcv='2'", "true, false, 1 or 0"),
    ({"limit": "0"}, "limit='0'", f"from 1 to {MAX_LIMIT}"),
    ({"limit": "1001"}, "limit='1001'", f"from 1 to {MAX_LIMIT}"),
    ({"limit": "-5"}, "limit='-5'", "a whole number of rows"),
    ({"limit": "ten"}, "limit='ten'", "a whole number of rows"),
    ({"limit": "1.5"}, "limit='1.5'", "a whole number of rows"),
    ({"limit": "99999999999999999999"}, "limit=", "a whole number of rows"),
    ({"limit": "１０"}, "limit=", "a whole number of rows"),  # fullwidth digits
    ({"format": "xml"}, "format='xml'", "json or csv"),
    ({"format": "text/csv"}, "format='text/csv'", "json or csv"),
    ({"format": "cſv"}, "format='cſv'", "json or csv"),  # names no field at all
    ({"fields": " , "}, "fields=", "comma-separated field names"),
    # Case-insensitive means ASCII A-Z only: Unicode folding maps look-alikes onto ASCII letters
    # (long s "ſ" casefolds to "s", the Kelvin sign "K" lower-cases to "k").
    ({"sort": "ſcore"}, "sort='ſcore'", "a field name (Country Name"),
    ({"sort": "Global Ran\u212a"}, "sort='Global Ran\u212a'", "a field name"),
    ({"region": "ſsa"}, "region='ſsa'", "a short code"),
    ({"region": "\u212aEN"}, "region=", "a short code"),
    ({"fields": "ſcore"}, "fields='ſcore'", "comma-separated field names"),
    ({"fields": "Country Name,Global Ran\u212a"}, "fields='Global Ran\u212a'", "comma-separated field names"),
    ({"level": "\u212aountry"}, "level=", "country or global"),
    ({"order": "de\u017fc"}, "order=", "asc or desc"),
    ({"shortnames": "\u0442rue"}, "shortnames=", "true, false, 1 or 0"),  # Cyrillic te
    # Surrounding spaces are ASCII spaces: U+00A0 or U+2003 are not trimmed away.
    ({"code": "\u00a0KEN"}, "code=", "three-letter ISO3 codes"),
    ({"sort": "score\u2003"}, "sort=", "a field name"),
    ({"region": "\u00a0ssa"}, "region=", "a short code"),
]


@pytest.mark.parametrize(("params", "names", "accepted"), BAD_INPUT)
def test_parse_malformed_value_names_parameter_and_accepted(
    params: dict[str, str], names: str, accepted: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse(params)
    message = raised.value.message
    assert message.startswith("Invalid request. ")
    assert names in message
    assert accepted in message
    assert raised.value.status == 400


def test_parse_too_many_codes_is_invalid() -> None:
    codes = [f"{a}{b}{c}" for a in "ABCDEFG" for b in "ABCDEFG" for c in "ABCDEFG"][: MAX_CODES + 1]
    with pytest.raises(InvalidParameter, match=f"at most {MAX_CODES}"):
        Query.parse({"codes": ",".join(codes)})
    assert len(Query.parse({"codes": ",".join(codes[:MAX_CODES])}).codes) == MAX_CODES


def test_parse_unknown_parameters_ignored_on_the_legacy_route() -> None:
    assert Query.parse({"callback": "x", "CODE": "KEN", "page": "2"}, routes.LEGACY.grammar) == Query()


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("regoin", "region"),
        ("CODE", "code"),
        ("Codes", "codes"),
        ("lmit", "limit"),
        ("incom", "income"),
        ("formats", "format"),
        ("feilds", "fields"),
        ("callback", None),
        ("", None),
        ("x" * 5000, None),
    ],
)
def test_parse_unknown_name_on_v1_is_400_with_nearest_and_accepted(name: str, suggestion: str | None) -> None:
    with pytest.raises(UnknownParameter) as raised:
        Query.parse({"code": "KEN", name: "LAC"}, routes.V1.grammar)
    message = raised.value.message
    assert raised.value.status == 400
    assert message.startswith(f"Invalid request. Unknown parameter {name[:60]!r}"[:80])
    if suggestion is None:
        assert "Did you mean" not in message
    else:
        assert f"Did you mean '{suggestion}'?" in message
    assert message.endswith("Accepted parameters: " + ", ".join(routes.V1.grammar.accepted) + ".")


def test_parse_unknown_name_message_is_the_contract_text() -> None:
    with pytest.raises(UnknownParameter) as raised:
        Query.parse({"regoin": "LAC"})
    assert raised.value.message == (
        "Invalid request. Unknown parameter 'regoin'. Did you mean 'region'? Accepted parameters: "
        "code, codes, level, region, income, fcv, year, snapshot, sort, order, fields, shortnames, indicators, "
        "limit, weights, offset, format."
    )


def test_parse_route_without_parameters_says_so() -> None:
    with pytest.raises(UnknownParameter, match="This route takes no parameters."):
        Query.parse({"format": "csv"}, routes.SNAPSHOTS.grammar)
    assert Query.parse({"_": "1"}, routes.SNAPSHOTS.grammar) == Query()


@pytest.mark.parametrize("route", list(routes.ROUTES))
def test_parse_underscore_names_ignored_on_every_route(route: Route) -> None:
    query = Query.parse({"_": "1", "_ts": "1700000000", "__proto__": "x", "_code": "BRA"}, route.grammar)
    assert query == Query()
    assert query.canonical() == ""


@pytest.mark.parametrize(
    ("route", "name"),
    [(routes.V1, "years"), (routes.LEGACY, "years"), (routes.INDICATORS, "sort"), (routes.HISTORY, "year"),
     (routes.HISTORY, "shortnames"), (routes.CHANGES, "code")],
)
def test_parse_each_route_refuses_names_it_does_not_take(route: Route, name: str) -> None:
    if route is routes.LEGACY:
        assert Query.parse({name: "2024"}, route.grammar) == Query()
        return
    with pytest.raises(UnknownParameter, match=f"Unknown parameter '{name}'"):
        Query.parse({name: "2024"}, route.grammar)


def test_route_parameters_are_the_contract() -> None:
    assert routes.V1.grammar.names == tuple(
        "code codes level region income fcv year snapshot sort order fields shortnames indicators limit weights offset "
        "format".split()
    )
    assert routes.V1.grammar.accepted == (*routes.V1.grammar.names, "country", "per_page", "page")
    assert routes.LEGACY.grammar.names == tuple(
        "code codes level region income fcv year sort order fields shortnames indicators limit format".split()
    )
    assert set(routes.INDICATORS.grammar.names) == set(
        "code codes region income fcv indicators year years mrv snapshot fields shape limit offset format".split()
    )
    assert set(routes.HISTORY.grammar.names) == set(
        "code codes region income fcv fields years mrv snapshot shape limit offset format".split()
    )
    assert set(routes.AGGREGATES.grammar.names) == set(
        "by region income fcv year years mrv snapshot limit offset format".split()
    )
    assert routes.SNAPSHOTS.grammar.names == ()
    assert routes.CHANGES.grammar.names == ("format",)
    assert [route for route in routes.ROUTES if not route.grammar.strict] == [routes.LEGACY]


@pytest.mark.parametrize(
    ("raw", "income"),
    [("Low income", "Low income"), ("low INCOME", "Low income"), ("LIC", "Low income"), ("lmc", "Lower middle income"),
     (" UMC ", "Upper middle income"), ("high income", "High income"), ("Hic", "High income")],
)
def test_parse_income_full_names_and_short_forms_any_case(raw: str, income: str) -> None:
    assert Query.parse({"income": raw}).income == income


@pytest.mark.parametrize(("raw", "flag"), [("true", True), ("TRUE", True), ("1", True), ("false", False), ("0", False)])
def test_parse_fcv_accepts_true_false_1_0(raw: str, flag: bool) -> None:
    assert Query.parse({"fcv": raw}).fcv is flag


@pytest.mark.parametrize(("raw", "limit"), [("1", 1), ("10", 10), ("010", 10), (str(MAX_LIMIT), MAX_LIMIT)])
def test_parse_limit_1_to_max(raw: str, limit: int) -> None:
    assert Query.parse({"limit": raw}).limit == limit


@pytest.mark.parametrize(
    ("raw", "chosen"), [("json", Format.JSON), ("JSON", Format.JSON), ("csv", Format.CSV), ("CsV", Format.CSV)]
)
def test_parse_format_json_or_csv_any_case(raw: str, chosen: Format) -> None:
    assert Query.parse({"format": raw}).format is chosen


@pytest.mark.parametrize(
    ("raw", "years"),
    [("2024", (2024, 2024)), ("2022:2025", (2022, 2025)), ("2024:2024", (2024, 2024)), (" 2023:2024 ", (2023, 2024)),
     ("2025:2022", (2022, 2025))],
)
def test_parse_years_one_year_or_inclusive_range(raw: str, years: tuple[int, int]) -> None:
    assert Query.parse({"years": raw}, routes.HISTORY.grammar).years == years


@pytest.mark.parametrize("route", [routes.HISTORY, routes.INDICATORS, routes.AGGREGATES])
def test_parse_years_reversed_is_the_same_range_and_key(route: Route) -> None:
    reversed_range = Query.parse({"years": "2026:2024"}, route.grammar)
    assert reversed_range == Query.parse({"years": "2024:2026"}, route.grammar)
    assert reversed_range.canonical() == "years=2024:2026"


@pytest.mark.parametrize(
    "raw", ["24", "2024-2025", "2024:", ":2024", "2024:2025:2026", "２０２４", "2024 : 2025"]
)
def test_parse_years_malformed_names_parameter(raw: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse({"years": raw}, routes.HISTORY.grammar)
    assert raised.value.name == "years"
    assert "a four-digit year such as 2024, or an inclusive range such as 2022:2025" in raised.value.message


def test_parse_indicators_read_without_codes_on_the_indicator_table() -> None:
    assert Query.parse({"indicators": "ge.est"}, routes.INDICATORS.grammar).indicators == ("GE.EST",)


# Equivalent requests share one canonical form; requests with different answers never do.
EQUIVALENT = [
    [{"code": "KEN,BRA"}, {"codes": "bra,ken,KEN"}, {"codes": "BRA,KEN", "level": "global"}],
    [{"region": "LAC"}, {"region": "sa"}, {"region": "South America"}, {"region": "latin america & caribbean"}],
    [{"sort": "score"}, {"sort": "Composite Readiness Score", "order": "DESC"}],
    [{}, {"sort": "country name", "order": "asc"}, {"level": "GLOBAL"}, {"_utm_source": "x"}, {"format": "JSON"}],
    [{"income": "LIC"}, {"income": "low income"}, {"income": "Low income"}],
    [{"fcv": "1"}, {"fcv": "TRUE"}],
    [{"limit": "10"}, {"limit": "010"}],
    [{"format": "csv"}, {"format": "CSV", "_": "123"}],
    [{"fields": "score,Country Name"}, {"fields": "country name,SCORE,score"}],
    [{"code": "KEN", "fields": "score"}, {"code": "KEN", "fields": "score,indicator_details"}],
    [{"shortnames": "false"}, {"shortnames": "0"}, {}],
]


@pytest.mark.parametrize("group", EQUIVALENT)
def test_canonical_equivalent_requests_share_one_form(group: list[dict[str, str]]) -> None:
    assert len({Query.parse(params).canonical() for params in group}) == 1


def test_canonical_different_answers_different_forms() -> None:
    distinct = [
        {}, {"code": "KEN"}, {"codes": "KEN,BRA"}, {"region": "EAP"}, {"year": "2024"},
        {"sort": "score"}, {"sort": "score", "order": "asc"}, {"fields": "score"},
        {"fields": "indicator_details"}, {"shortnames": "true"},
        {"code": "KEN", "indicators": "GE.EST"}, {"code": "KEN", "fields": "indicator_details"},
        {"income": "LIC"}, {"income": "HIC"}, {"fcv": "true"}, {"fcv": "false"}, {"limit": "10"},
        {"limit": "11"}, {"format": "csv"}, {"format": "csv", "limit": "10"},
    ]
    forms = [Query.parse(params).canonical() for params in distinct]
    assert len(set(forms)) == len(forms)


def test_canonical_parses_back_to_the_same_query() -> None:
    query = Query.parse(
        {"codes": "ken,bra", "region": "lac", "year": "2024", "sort": "human", "order": "asc",
         "fields": "Population, total,score,indicator_details", "shortnames": "1", "indicators": "ge.est",
         "income": "lmc", "fcv": "0", "limit": "5", "format": "CSV"}
    )
    assert Query.parse(dict(parse_qsl(query.canonical()))) == query
    history = Query.parse({"codes": "KEN", "years": "2022:2025", "income": "LIC"}, routes.HISTORY.grammar)
    assert history.canonical() == "codes=KEN&income=Low%20income&years=2022:2025"
    assert Query.parse(dict(parse_qsl(history.canonical())), routes.HISTORY.grammar) == history
    single = Query.parse({"years": "2024:2024"}, routes.HISTORY.grammar)
    assert single.canonical() == "years=2024" and Query.parse({"years": "2024"}, routes.HISTORY.grammar) == single


def test_canonical_writes_names_in_canonical_order_a_routes_own_after() -> None:
    # The edge writes its keys in this order (readiness/edge_vocabulary.py): one list, one order.
    query = Query.parse({"format": "csv", "weights": "2,1,1,1,1", "offset": "5", "limit": "5", "indicators": "GE.EST",
                         "shortnames": "1", "fields": "score", "sort": "custom", "snapshot": "2024-06",
                         "fcv": "1", "income": "LIC", "region": "lac", "codes": "KEN"})
    names = [name for name, _ in parse_qsl(query.canonical())]
    assert names == [name for name in CANONICAL_ORDER if name in names]
    movers = Query.parse({"measure": "rank", "format": "csv", "from": "2025-12"}, routes.RANKING_CHANGES.grammar)
    assert movers.canonical() == "format=csv&from=2025-12&measure=rank"


# Whatever a client sends, parsing returns a valid Query or raises the client error: never
# anything else (the property behind "nothing a client sends may produce a 500").
PARAMETERS = ["code", "codes", "level", "region", "year", "sort", "order", "fields",
              "shortnames", "indicators", "income", "fcv", "limit", "format", "years", "other", "_x"]
VALUE_PARTS = ["KEN", "bra", ",", " ", "global", "country", "LAC", "sa", "2024", "score",
               "asc", "desc", "true", "0", "Population, total", "indicator_details", "GE.EST", "%", "\x00", "é",
               "LIC", "low income", "10", "1000", "csv", "json", ":", "2022"]
values = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(VALUE_PARTS), max_size=6).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from(PARAMETERS) | st.text(max_size=8), values, max_size=8),
    st.sampled_from(list(routes.ROUTES)),
)
def test_parse_arbitrary_parameters_valid_query_or_client_error(params: dict[str, str], route: Route) -> None:
    try:
        query = Query.parse(params, route.grammar)
    except ReadinessError as error:
        # Raising is one of the two valid outcomes here, so pytest.raises does not fit.
        assert isinstance(error, (InvalidParameter, InvalidRequest, UnknownParameter))  # noqa: PT017
        assert error.message.startswith("Invalid request. ")  # noqa: PT017
        return
    assert Query.parse(dict(parse_qsl(query.canonical(), keep_blank_values=True)), route.grammar) == query
    assert all(len(code) == 3 and code.isascii() and code.isupper() for code in query.codes)


def test_parse_query_string_last_value_wins_and_is_memoized() -> None:
    query = parse_query_string("code=KEN&code=bra&_utm=1")
    assert query.codes == ("BRA",)
    assert parse_query_string("code=KEN&code=bra&_utm=1") is query  # parsed once
    assert parse_query_string("code=KEN&code=bra&_utm=1", routes.LEGACY.grammar) == query  # memoized per route
    assert parse_query_string("code=KEN&code=bra&utm=1", routes.LEGACY.grammar) == query
    with pytest.raises(UnknownParameter):
        parse_query_string("code=KEN&code=bra&utm=1", routes.V1.grammar)


def test_parse_query_string_bytes_not_utf8_name_the_parameter() -> None:
    with pytest.raises(InvalidParameter, match="code="):
        parse_query_string("code=%FF%FE%FD")
    assert parse_query_string("other=%FF", routes.LEGACY.grammar) == Query()
    with pytest.raises(UnknownParameter, match="Unknown parameter 'other'"):
        parse_query_string("other=%FF")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("sort=sc\xc3\xb6re", "sort='scöre'"),  # raw UTF-8 bytes, as Tornado gives them (Latin-1)
        ("sort=sc%C3%B6re", "sort='scöre'"),  # the same bytes percent-encoded
        ("sort=sc%C3\xb6re", "sort='scöre'"),  # half and half
        ("sort=sc\xf6re", "sort='sc\ufffdre'"),  # not UTF-8: U+FFFD, never a Latin-1 guess
        ("code=\xff\xfe", "code='\ufffd\ufffd'"),
    ],
)
def test_parse_query_string_bytes_are_utf8_or_replacement(raw: str, shown: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        parse_query_string(raw)
    assert shown in raised.value.message


def test_parse_query_string_raw_non_ascii_names_are_unknown() -> None:
    assert parse_query_string("c\xc3\xb6de=KEN&code=BRA", routes.LEGACY.grammar).codes == ("BRA",)
    with pytest.raises(UnknownParameter) as raised:
        parse_query_string("c\xc3\xb6de=KEN&code=BRA")
    assert raised.value.message.startswith("Invalid request. Unknown parameter 'cöde'. Did you mean 'code'?")


# --- offset: paging the v1 list routes (docs/API.md#parameters: offset) -------------------------


@pytest.mark.parametrize("route", [routes.V1, routes.INDICATORS, routes.HISTORY])
@pytest.mark.parametrize(
    ("raw", "offset"), [("0", 0), ("50", 50), ("007", 7), (" 12 ", 12), ("", 0), ("9999999", 9999999)]
)
def test_parse_offset_non_negative_whole_number(route: Route, raw: str, offset: int) -> None:
    assert Query.parse({"offset": raw}, route.grammar).offset == offset


@pytest.mark.parametrize("raw", ["-1", "1.5", "ten", "1e3", "10000000", "+5", "٣"])
def test_parse_bad_offset_is_400_naming_it_and_what_it_accepts(raw: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse({"offset": raw})
    assert raised.value.status == 400
    assert raised.value.name == "offset" and raised.value.message.startswith("Invalid request. offset=")
    assert raised.value.message.endswith("use a whole number of rows to skip from 0 to 9999999.")


def test_offset_is_not_a_legacy_parameter() -> None:
    assert "offset" not in routes.LEGACY.grammar.names
    # ignored, as unknown names are
    assert Query.parse({"offset": "5", "limit": "2"}, routes.LEGACY.grammar).offset == 0
    assert Query.parse({"offset": "5"}, routes.LEGACY.grammar).canonical() == ""
    with pytest.raises(UnknownParameter):
        Query.parse({"offset": "5"}, routes.SNAPSHOTS.grammar)
    with pytest.raises(UnknownParameter):
        Query.parse({"offset": "5"}, routes.CHANGES.grammar)


def test_canonical_includes_offset_only_when_non_zero() -> None:
    assert Query.parse({"limit": "50", "offset": "0"}).canonical() == "limit=50"
    assert Query.parse({"limit": "50", "offset": "0050"}).canonical() == "limit=50&offset=50"
    assert Query.parse({"offset": "3"}).canonical() == "offset=3"
    paged = Query.parse({"region": "lac", "limit": "5", "offset": "10", "format": "csv"}, routes.INDICATORS.grammar)
    assert paged.canonical() == "region=Latin%20America%20%26%20Caribbean&limit=5&offset=10&format=csv"
    assert parse_query_string(paged.canonical(), routes.INDICATORS.grammar) == paged
    assert Query.parse({"offset": "1"}) != Query.parse({"offset": "2"})



def test_parse_query_string_repeated_list_parameters_are_merged() -> None:
    """Generated clients send arrays exploded (``fields=A&fields=B``): every value counts."""
    query = parse_query_string("fields=score&fields=Country%20Code&codes=KEN&codes=bra&indicators=GE.EST&indicators=x")
    assert query.fields == ("Country Code", "Composite Readiness Score")
    assert query.codes == ("BRA", "KEN")
    assert query.indicators == ("GE.EST", "X")
    assert query == parse_query_string("fields=score,Country%20Code&codes=KEN,bra&indicators=GE.EST,x")
    assert parse_query_string("limit=5&limit=7").limit == 7  # a scalar: the last wins
    assert parse_query_string("fields=&fields=score").fields == ("Composite Readiness Score",)


@pytest.mark.parametrize(
    ("raw", "weights"),
    [
        ("1,1,1,1,1", (1, 1, 1, 1, 1)),
        ("2,2,2,2,2", (1, 1, 1, 1, 1)),  # proportional weightings are one weighting
        ("0.5,1,0,0,0", (1, 2, 0, 0, 0)),
        ("infrastructure:2,human:1", (2, 1, 0, 0, 0)),
        ("Human Capital:1, INFRA:2", (2, 1, 0, 0, 0)),
        ("governance score:0.25", (0, 0, 0, 0, 1)),
        ("access:3,innovation:3,governance:0", (0, 0, 1, 1, 0)),
    ],
)
def test_parse_weights_are_whole_numbers_without_common_divisor(raw: str, weights: tuple[int, ...]) -> None:
    query = Query.parse({"weights": raw})
    assert query.weights == weights
    assert parse_query_string(query.canonical()) == query


@pytest.mark.parametrize(
    "raw", ["0,0,0,0,0", "1,1,1,1", "1,1,1,1,1,1", "infra:1,infrastructure:2", "bogus:1", "human", "-1,1,1,1,1",
            "1e3,1,1,1,1", "10000,1,1,1,1", "1.00001,1,1,1,1", "human:1,2"],
)
def test_parse_bad_weights_is_400_naming_it(raw: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse({"weights": raw})
    assert raised.value.message.startswith("Invalid request. weights=")
    assert "dimension order" in raised.value.message


def test_weights_are_v1_only() -> None:
    with pytest.raises(UnknownParameter):
        Query.parse({"weights": "1,1,1,1,1"}, routes.INDICATORS.grammar)
    assert Query.parse({"weights": "1,1,1,1,1"}, routes.LEGACY.grammar).weights is None  # ignored there


@pytest.mark.parametrize("route", [routes.V1, routes.INDICATORS, routes.AGGREGATES])
def test_parse_snapshot_pins_the_answer(route: Route) -> None:
    query = Query.parse({"snapshot": "2024-06"}, route.grammar)
    assert (query.snapshot, query.snapshot_id, query.pinned) == ("2024-06", "2024-06", True)
    assert Query.parse({"year": "2024"}, route.grammar).snapshot_id == "2024-12"
    assert not Query.parse({}, route.grammar).pinned
    assert parse_query_string(query.canonical(), route.grammar) == query


@pytest.mark.parametrize("raw", ["2024-13", "2024-00", "2024-6", "202406", "2024-06-01", "current"])
def test_parse_bad_snapshot_is_400_naming_it(raw: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse({"snapshot": raw})
    assert "snapshot id YYYY-MM" in raised.value.message


@pytest.mark.parametrize(
    ("params", "route", "chooser"),
    [
        ({"year": "2024", "snapshot": "2024-06"}, routes.V1, "year"),
        ({"year": "2024", "snapshot": "2024-06", "years": "2020:2021"}, routes.INDICATORS, "year"),
        ({"years": "2023:2024", "snapshot": "2024-06"}, routes.AGGREGATES, "snapshot"),
        ({"year": "2024", "years": "2023:2024"}, routes.INDICATORS, "year"),
        ({"year": "2019", "years": "2023:2024"}, routes.AGGREGATES, "year"),
    ],
)
def test_parse_snapshot_choices_together_year_then_snapshot_chooses(
    params: dict[str, str], route: Route, chooser: str
) -> None:
    """One of them chooses, as given alone: the same Query, so the same answer and cache key."""
    assert Query.parse(params, route.grammar) == Query.parse({chooser: params[chooser]}, route.grammar)


@pytest.mark.parametrize(
    ("params", "name"),
    [({"year": "2024", "snapshot": "2024-13"}, "snapshot"), ({"snapshot": "2024-06", "years": "2024:"}, "years"),
     ({"year": "24", "snapshot": "2024-06"}, "year")],
)
def test_parse_snapshot_choice_left_unread_is_still_checked(params: dict[str, str], name: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse(params, routes.INDICATORS.grammar)
    assert raised.value.name == name


def test_parse_shape_and_by_any_case_with_canonical_defaults_left_out() -> None:
    query = Query.parse({"shape": "LONG"}, routes.HISTORY.grammar)
    assert query.shape is Shape.LONG and query.canonical() == "shape=long"
    assert Query.parse({"shape": "wide"}, routes.HISTORY.grammar).canonical() == ""
    grouped = Query.parse({"by": "Income"}, routes.AGGREGATES.grammar)
    assert grouped.by is Grouping.INCOME and grouped.canonical() == "by=income"
    assert Query.parse({"by": "world"}, routes.AGGREGATES.grammar).canonical() == ""
    for name, value in (("shape", "tall"), ("by", "continent")):
        route = routes.HISTORY if name == "shape" else routes.AGGREGATES
        with pytest.raises(InvalidParameter) as raised:
            Query.parse({name: value}, route.grammar)
        assert raised.value.message.startswith(f"Invalid request. {name}=")


@pytest.mark.parametrize("raw", ["bogus", "Population, total", "Microstate", "indicator_details", "score,FCV Type"])
def test_parse_history_fields_error_lists_history_fields_only(raw: str) -> None:
    with pytest.raises(InvalidParameter, match="fields=") as refused:
        Query.parse({"fields": raw}, routes.HISTORY.grammar)
    accepted = refused.value.message.partition("; use ")[2]
    assert "Country Code" in accepted and "Regional Rank" in accepted and "or aliases (score, access" in accepted
    assert not any(other in accepted for other in ("Population, total", "Microstate", "FCV Type", "indicator_details"))


def test_parse_history_fields_accepts_its_names_and_aliases() -> None:
    query = Query.parse({"fields": "regional rank,score,Region,infra"}, routes.HISTORY.grammar)
    assert query.fields == ("Region", "Composite Readiness Score", "Infrastructure Score", "Regional Rank")
    assert Query.parse({"fields": "Microstate,indicator_details"}, routes.V1.grammar).fields == ("Microstate",)
