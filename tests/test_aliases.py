"""The conventions analysts know (readiness/domain/aliases.py, docs/API.md#aliases): each alias
reads as the canonical query it stands for, refuses what it cannot read naming itself, and is a 400
naming both when given beside what it stands for."""

from __future__ import annotations

import pytest

from readiness.domain import routes
from readiness.domain.aliases import DEFAULT_PER_PAGE
from readiness.domain.errors import ConflictingParameters, InvalidParameter, UnknownParameter
from readiness.domain.route import Route


def canonical(route: Route, raw: str) -> str:
    return route.parse(raw).canonical()


@pytest.mark.parametrize(
    ("route", "alias", "same"),
    [
        (routes.V1, "per_page=10&page=3", "limit=10&offset=20"),
        (routes.V1, "page=1&limit=7", "limit=7"),
        (routes.V1, "page=3&per_page=0010", "limit=10&offset=20"),
        (routes.HISTORY, "page=2", f"limit={DEFAULT_PER_PAGE}&offset={DEFAULT_PER_PAGE}"),
        (routes.HISTORY, "date=2025:2023", "years=2023:2025"),
        (routes.AGGREGATES, "date=2024", "years=2024"),
        (routes.HISTORY, "time=2022..2025", "years=2022:2025"),
        (routes.HISTORY, "time=2022:2025", "years=2022:2025"),
        (routes.HISTORY, "time=2024", "years=2024"),
        (routes.INDICATORS, "time=2020..latest", "years=2020:9999"),
        (routes.INDICATORS, "time=2020..", "years=2020:9999"),
        (routes.HISTORY, "time=earliest..2024", "years=0000:2024"),
        (routes.HISTORY, "time=..", "years=0000:9999"),
        (routes.HISTORY, "time=LATEST", "mrv=1"),
        (routes.V1, "country=KEN~bra", "codes=BRA,KEN"),
        (routes.V1, "country=~USA", "codes=USA"),
        (routes.HISTORY, "country=KEN;BRA", "codes=BRA,KEN"),
        (routes.RANKING_CHANGES, "country= ken , bra ", "codes=BRA,KEN"),
    ],
)
def test_alias_reads_as_what_it_stands_for(route: Route, alias: str, same: str) -> None:
    assert canonical(route, alias) == canonical(route, same)
    assert route.parse(alias) == route.parse(same)  # one Query: one answer, one cache key


@pytest.mark.parametrize(
    ("route", "raw", "names"),
    [
        (routes.V1, "per_page=5&limit=5", ("per_page", "limit")),
        (routes.HISTORY, "page=2&offset=1", ("page", "offset")),
        (routes.HISTORY, "date=2024&years=2024", ("date", "years")),
        (routes.INDICATORS, "time=2024&years=2024", ("time", "years")),
        (routes.HISTORY, "time=2024&date=2024", ("time", "date")),
        (routes.HISTORY, "time=latest&mrv=2", ("time", "mrv")),
        (routes.V1, "country=KEN&codes=BRA", ("country", "codes")),
        (routes.V1, "country=KEN&code=KEN", ("country", "code")),
    ],
)
def test_alias_beside_what_it_stands_for_is_a_400_naming_both(route: Route, raw: str, names: tuple[str, str]) -> None:
    with pytest.raises(ConflictingParameters) as raised:
        route.parse(raw)
    assert raised.value.status == 400
    assert raised.value.message.startswith(f"Invalid request. {names[0]} and {names[1]} were both given")
    assert raised.value.message.endswith("give one of them.")


@pytest.mark.parametrize(
    ("route", "raw", "accepted"),
    [
        (routes.V1, "per_page=0", "per_page='0' is not valid; use a whole number of rows per page from 1 to 1000"),
        (routes.V1, "per_page=x&page=2", "per_page='x'"),
        (routes.V1, "page=0", "page='0' is not valid; use a page number from 1"),
        (routes.V1, "page=10001&per_page=1000", "page='10001'"),  # its first row past offset's bound
        (routes.HISTORY, "date=2024M01", "date='2024M01' is not valid; use a four-digit year"),
        (routes.HISTORY, "time=earliest", "time='earliest' is not valid; use a four-digit year (2024), a range"),
        (routes.HISTORY, "time=latest..2020", "time='latest..2020'"),
        (routes.V1, "country=Kenya", "country='Kenya' is not valid; use ISO3 codes joined with ~, ; or ,"),
        (routes.V1, "country=~", "country='~'"),
        (routes.HISTORY, "mrv=0", "mrv='0' is not valid; use a whole number of snapshots from 1 to 999"),
        (routes.HISTORY, "mrv=01", "mrv='01'"),
        (routes.HISTORY, "snapshot=2024-13", "snapshot='2024-13'"),
        (routes.INDICATORS, "fields=score", "fields='score' is not valid; use comma-separated column names"),
    ],
)
def test_a_value_an_alias_cannot_read_is_a_400_naming_the_alias(route: Route, raw: str, accepted: str) -> None:
    with pytest.raises(InvalidParameter, match="^Invalid request. ") as raised:
        route.parse(raw)
    assert accepted in raised.value.message


def test_a_limit_page_cannot_read_is_refused_naming_limit() -> None:
    with pytest.raises(InvalidParameter, match="limit='x'"):
        routes.V1.parse("limit=x&page=2")


@pytest.mark.parametrize("raw", ["per_page=5", "page=2", "country=KEN", "date=2024", "time=2024"])
def test_the_legacy_route_ignores_the_aliases_as_any_name_it_does_not_take(raw: str) -> None:
    assert routes.LEGACY.parse(raw) == routes.LEGACY.parse("")


@pytest.mark.parametrize(("route", "raw"), [(routes.V1, "date=2024"), (routes.V1, "mrv=1"),
                                             (routes.AGGREGATES, "country=KEN"), (routes.SNAPSHOTS, "page=2")])
def test_a_route_refuses_an_alias_it_does_not_take(route: Route, raw: str) -> None:
    with pytest.raises(UnknownParameter, match="Unknown parameter"):
        route.parse(raw)


def test_mrv_is_read_beside_years_and_dropped_when_year_or_snapshot_chooses() -> None:
    assert canonical(routes.INDICATORS, "mrv=2&years=2020:2030") == "years=2020:2030&mrv=2"
    assert canonical(routes.INDICATORS, "mrv=2&year=2025") == "year=2025"
    assert canonical(routes.AGGREGATES, "mrv=2&snapshot=2024-06") == "snapshot=2024-06"
    assert routes.HISTORY.parse("mrv=3").over_time and not routes.INDICATORS.parse("year=2025").over_time


def test_history_snapshot_lists_ids_sorted_and_chooses_over_years_and_mrv() -> None:
    query = routes.HISTORY.parse("snapshot=2025-12, 2024-06&snapshot=2024-06&years=2020&mrv=1")
    assert query.snapshots == ("2024-06", "2025-12") and query.years is None and query.recent is None
    assert query.canonical() == "snapshot=2024-06,2025-12"
    assert routes.AGGREGATES.parse("snapshot=2024-06").snapshot == "2024-06"  # one id where one is taken


def test_indicator_fields_are_columns_in_their_order_any_case() -> None:
    assert routes.INDICATORS.parse("fields=REPORTED_VALUE,country name,reported_value").fields == (
        "Country Name", "reported_value")
