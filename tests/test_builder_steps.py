"""builder.steps: each step of the method, with hand-computed expectations."""

from __future__ import annotations

import math

import pytest

from builder.inputs import Economy, Observation
from builder.method import INDICATOR_BY_CODE, MIN_DONORS
from builder.steps import (
    Bounds,
    bounds,
    confidence,
    impute,
    latest_in_window,
    mean,
    ordinal,
    per_million,
    percentiles,
    ranks,
    scale,
    transform,
    usable,
)
from tests.builder_world import EAP, ECA, HIC, LIC, SSA, economy

ELECTRICITY = INDICATOR_BY_CODE["EG.ELC.ACCS.ZS"]
SERVERS = INDICATOR_BY_CODE["IT.NET.SECR.P6"]
ARTICLES = INDICATOR_BY_CODE["IP.JRN.ARTC.SC"]
OUT_OF_SCHOOL = INDICATOR_BY_CODE["SE.PRM.UNER.ZS"]

SERIES = tuple(Observation(year, float(year - 2000), "s") for year in (2015, 2018, 2020, 2027))


# --- window -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("first", "last", "year"),
    [(2017, 2026, 2020), (2017, 2019, 2018), (2017, 2020, 2020), (2018, 2018, 2018), (2017, 2030, 2027)],
)
def test_latest_in_window_takes_the_latest_year_inside(first: int, last: int, year: int) -> None:
    chosen = latest_in_window(SERIES, first, last)
    assert chosen is not None and chosen.year == year


@pytest.mark.parametrize(("first", "last"), [(2017, 2017), (2021, 2026), (2010, 2014)])
def test_latest_in_window_nothing_inside_is_none(first: int, last: int) -> None:
    assert latest_in_window(SERIES, first, last) is None


def test_latest_in_window_empty_series_is_none() -> None:
    assert latest_in_window((), 2017, 2026) is None


# --- transforms ---------------------------------------------------------------------------

def test_transform_log1p_series_takes_log1p() -> None:
    assert transform(SERVERS, 99.0, 5_000_000) == pytest.approx(math.log(100))
    assert transform(SERVERS, 0.0, 5_000_000) == 0.0


def test_transform_plain_series_is_unchanged() -> None:
    assert transform(ELECTRICITY, 42.5, 5_000_000) == 42.5


def test_transform_per_million_divides_by_population_then_log1p() -> None:
    # 500 articles in an economy of 2 million: 250 per million, log1p(250) = ln(251).
    assert per_million(500, 2_000_000) == 250.0
    assert transform(ARTICLES, 500, 2_000_000) == pytest.approx(math.log(251))


@pytest.mark.parametrize(("population", "expected"), [(999_999, False), (1_000_000, True), (300_000, False)])
def test_usable_per_million_needs_one_million_people(population: int, expected: bool) -> None:
    assert usable(ARTICLES, population) is expected
    assert usable(ELECTRICITY, population) is True


# --- bounds and scaling -------------------------------------------------------------------

def test_bounds_are_min_and_max() -> None:
    assert bounds([3.0, 7.0, 5.0]) == Bounds(3.0, 7.0)


@pytest.mark.parametrize("values", [[], [4.0], [4.0, 4.0]])
def test_bounds_without_spread_is_none(values: list[float]) -> None:
    assert bounds(values) is None


@pytest.mark.parametrize(("value", "expected"), [(0.0, 0.0), (5.0, 25.0), (10.0, 50.0), (20.0, 100.0), (1.0, 5.0)])
def test_scale_min_max_to_0_100(value: float, expected: float) -> None:
    assert scale(value, Bounds(0.0, 20.0), lower_is_better=False) == expected


@pytest.mark.parametrize(("value", "expected"), [(0.0, 100.0), (5.0, 75.0), (20.0, 0.0)])
def test_scale_lower_is_better_inverts(value: float, expected: float) -> None:
    assert scale(value, Bounds(0.0, 20.0), lower_is_better=True) == expected


@pytest.mark.parametrize(("value", "expected", "inverted"), [(30.0, 100.0, 0.0), (-5.0, 0.0, 100.0)])
def test_scale_outside_bounds_is_clamped(value: float, expected: float, inverted: float) -> None:
    assert scale(value, Bounds(0.0, 20.0), lower_is_better=False) == expected
    assert scale(value, Bounds(0.0, 20.0), lower_is_better=True) == inverted


def test_scale_rounds_to_two_decimals() -> None:
    assert scale(1.0, Bounds(0.0, 3.0), lower_is_better=False) == 33.33


def test_scale_of_log1p_values_is_linear_in_the_log() -> None:
    # Servers 0, 9 and 99 per million: log1p 0, ln 10, ln 100, so 9 sits halfway.
    limits = bounds([transform(SERVERS, v, 1_000_000) for v in (0.0, 99.0)])
    assert limits is not None
    assert scale(transform(SERVERS, 9.0, 1_000_000), limits, SERVERS.lower_is_better) == 50.0


def test_scale_out_of_school_rate_lower_is_better() -> None:
    assert OUT_OF_SCHOOL.lower_is_better
    assert scale(2.0, Bounds(2.0, 42.0), OUT_OF_SCHOOL.lower_is_better) == 100.0


# --- imputation ---------------------------------------------------------------------------

TARGET = economy("TGT", region=SSA, income=LIC)


def donors_of(*rows: tuple[str, str, str | None, float]) -> tuple[dict[str, float], dict[str, Economy]]:
    """Donor values and the economies table from (code, region, income, value) rows."""
    economies = {code: economy(code, region=region, income=income) for code, region, income, _ in rows}
    economies[TARGET.code] = TARGET
    return {code: value for code, _, _, value in rows}, economies


def test_impute_region_and_income_median_first() -> None:
    donors, economies = donors_of(
        ("A01", SSA, LIC, 10.0), ("A02", SSA, LIC, 20.0), ("A03", SSA, LIC, 40.0),
        ("B01", SSA, HIC, 90.0), ("C01", ECA, LIC, 80.0),
    )
    filled = impute(TARGET, donors, economies)
    assert filled is not None
    assert (filled.value, filled.level.label, filled.donors) == (20.0, "Imputed: region and income median", 3)


def test_impute_too_few_in_region_and_income_falls_back_to_region() -> None:
    donors, economies = donors_of(
        ("A01", SSA, LIC, 10.0), ("A02", SSA, LIC, 20.0),
        ("B01", SSA, HIC, 90.0), ("B02", SSA, HIC, 30.0), ("C01", ECA, LIC, 80.0),
    )
    filled = impute(TARGET, donors, economies)
    assert filled is not None
    # Region: 10, 20, 30, 90 -> median (20 + 30) / 2.
    assert (filled.value, filled.level.label, filled.donors) == (25.0, "Imputed: region median", 4)


def test_impute_too_few_in_region_falls_back_to_income() -> None:
    donors, economies = donors_of(
        ("A01", SSA, LIC, 10.0), ("B01", SSA, HIC, 90.0),
        ("C01", ECA, LIC, 80.0), ("C02", EAP, LIC, 60.0), ("C03", EAP, HIC, 5.0),
    )
    filled = impute(TARGET, donors, economies)
    assert filled is not None
    # Low income: 10, 80, 60 -> 60.
    assert (filled.value, filled.level.label, filled.donors) == (60.0, "Imputed: income median", 3)


def test_impute_too_few_in_region_and_income_group_falls_back_to_global() -> None:
    donors, economies = donors_of(
        ("A01", SSA, LIC, 10.0), ("C01", ECA, HIC, 80.0), ("C02", EAP, HIC, 60.0),
    )
    filled = impute(TARGET, donors, economies)
    assert filled is not None
    assert (filled.value, filled.level.label, filled.donors) == (60.0, "Imputed: global median", 3)


def test_impute_unclassified_income_skips_income_levels() -> None:
    target = economy("VVV", region=SSA, income=None)
    donors, economies = donors_of(
        ("C01", ECA, LIC, 80.0), ("C02", EAP, LIC, 60.0), ("C03", EAP, LIC, 5.0),
        ("A01", SSA, HIC, 1.0),
    )
    economies[target.code] = target
    filled = impute(target, donors, economies)
    assert filled is not None
    # Not the Low income median (60): region SSA has 1 donor, so all four: (5 + 60) / 2.
    assert (filled.value, filled.level.label) == (32.5, "Imputed: global median")


def test_impute_fewer_donors_than_minimum_everywhere_is_none() -> None:
    donors, economies = donors_of(*[(f"A0{i}", SSA, LIC, 10.0 * i) for i in range(1, MIN_DONORS)])
    assert impute(TARGET, donors, economies) is None


def test_impute_level_names_its_donor_group() -> None:
    donors, economies = donors_of(("A01", SSA, LIC, 1.0), ("A02", SSA, LIC, 2.0), ("A03", SSA, LIC, 3.0))
    filled = impute(TARGET, donors, economies)
    assert filled is not None
    assert filled.level.group(SSA, LIC) == "non-microstate low income economies in Sub-Saharan Africa"


# --- means --------------------------------------------------------------------------------

def test_mean_rounds_to_two_decimals() -> None:
    assert mean([50.0, 75.5, 100.0]) == 75.17  # 225.5 / 3 = 75.1666...


def test_mean_of_nothing_is_none() -> None:
    assert mean([]) is None


# --- ordinals, percentiles, ranks ---------------------------------------------------------

@pytest.mark.parametrize(
    ("number", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (23, "23rd"), (100, "100th"), (101, "101st"), (111, "111th"),
     (112, "112th"), (113, "113th")],
)
def test_ordinal_suffixes(number: int, text: str) -> None:
    assert ordinal(number) == text


def test_percentiles_share_at_or_below() -> None:
    assert percentiles({"a": 10.0, "b": 20.0, "c": 20.0, "d": 40.0}) == {
        "a": "25th", "b": "75th", "c": "75th", "d": "100th",
    }


def test_percentiles_round_half_up() -> None:
    # Of 8: 1/8 = 12.5% -> 13th, 3/8 = 37.5% -> 38th; of 3: 33.3% -> 33rd, 66.7% -> 67th.
    eight = percentiles({str(i): float(i) for i in range(8)})
    assert (eight["0"], eight["2"]) == ("13th", "38th")
    assert percentiles({"a": 1.0, "b": 2.0, "c": 3.0}) == {"a": "33rd", "b": "67th", "c": "100th"}


def test_percentiles_last_of_many_is_first_not_zeroth() -> None:
    values = {f"{i:03d}": float(i) for i in range(217)}  # 1/217 = 0.46%
    assert percentiles(values)["000"] == "1st"


def test_ranks_competition_ties_share() -> None:
    assert ranks({"a": 90.0, "b": 80.0, "c": 80.0, "d": 70.0}) == {"a": 1, "b": 2, "c": 2, "d": 4}


# --- confidence ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("unreported", "total", "level"),
    [(0, 4, "High"), (1, 4, "Moderate"), (2, 4, "Low"), (1, 3, "Moderate"), (2, 3, "Low"),
     (1, 5, "Moderate"), (2, 5, "Low"), (2, 6, "Moderate"), (3, 6, "Low"), (4, 4, "Low")],
)
def test_confidence_thresholds(unreported: int, total: int, level: str) -> None:
    assert confidence(unreported, total) == level
