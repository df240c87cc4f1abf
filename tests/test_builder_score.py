"""builder.score: a whole snapshot of the tiny world, every number computed by hand.

See tests/builder_world.py: AAA, BBB, CCC (Sub-Saharan Africa, low income) and DDD
(Europe & Central Asia, high income) at positions 0, 0.5, 1 and 0.25; MMM a microstate
(East Asia & Pacific, high income, 100,000 people) at position 1.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from builder.inputs import Observation, RawData
from builder.method import AUXILIARY, INDICATORS, SCORING
from builder.score import Entry, ScoredEconomy, ScoredSnapshot, score_snapshot
from loaders.contract import DIMENSIONS
from tests.builder_world import ECA, HIC, SSA, STANDARD, YEAR, economy, world

INFRASTRUCTURE, HUMAN_CAPITAL, ACCESS, INNOVATION, GOVERNANCE = DIMENSIONS


def scored(raw: RawData, last_year: int = YEAR) -> dict[str, ScoredEconomy]:
    return {e.economy.code: e for e in score_snapshot(raw, last_year).economies}


def entry(result: ScoredEconomy, code: str) -> Entry:
    return next(e for e in result.entries if e.indicator.code == code)


@pytest.fixture(scope="module")
def standard() -> dict[str, ScoredEconomy]:
    return scored(world(STANDARD))


def test_score_snapshot_economies_in_code_order() -> None:
    snapshot = score_snapshot(world(STANDARD), YEAR)
    assert isinstance(snapshot, ScoredSnapshot)
    assert [e.economy.code for e in snapshot.economies] == ["AAA", "BBB", "CCC", "DDD", "MMM"]
    assert (snapshot.first_year, snapshot.last_year) == (2017, YEAR)


def test_score_entries_follow_the_method_order(standard: dict[str, ScoredEconomy]) -> None:
    assert [e.indicator for e in standard["AAA"].entries] == [*SCORING, *AUXILIARY]
    assert [e.indicator for e in standard["AAA"].entries] == list(INDICATORS)


@pytest.mark.parametrize(
    ("code", "normalized"), [("AAA", 0.0), ("DDD", 25.0), ("BBB", 50.0), ("CCC", 100.0), ("MMM", 100.0)]
)
def test_score_normalized_is_min_max_over_ranked_economies(
    standard: dict[str, ScoredEconomy], code: str, normalized: float
) -> None:
    for indicator in SCORING:
        if indicator.code == "IP.JRN.ARTC.SC" and code == "MMM":
            continue  # under 1 million people: imputed, see below
        expected = 100 - normalized if indicator.lower_is_better else normalized
        assert entry(standard[code], indicator.code).normalized == expected, indicator.code


@pytest.mark.parametrize(
    ("code", "infrastructure", "access", "composite"),
    [("AAA", 0.0, 40.0, 8.0), ("DDD", 25.0, 45.0, 29.0), ("BBB", 50.0, 50.0, 50.0), ("CCC", 100.0, 60.0, 92.0)],
)
def test_score_dimensions_and_composite_are_means(
    standard: dict[str, ScoredEconomy], code: str, infrastructure: float, access: float, composite: float
) -> None:
    result = standard[code]
    assert result.dimensions[INFRASTRUCTURE] == infrastructure
    assert result.dimensions[HUMAN_CAPITAL] == infrastructure
    assert result.dimensions[ACCESS] == access  # (3 n + 2 (100 - n)) / 5
    assert result.composite == composite


def test_score_ranks_global_and_regional(standard: dict[str, ScoredEconomy]) -> None:
    ranks = {code: (r.global_rank, r.regional_rank) for code, r in standard.items()}
    assert ranks == {"CCC": (1, 1), "BBB": (2, 2), "DDD": (3, 1), "AAA": (4, 3), "MMM": (None, None)}


def test_score_microstate_scored_but_not_ranked(standard: dict[str, ScoredEconomy]) -> None:
    microstate = standard["MMM"]
    assert microstate.microstate and not standard["AAA"].microstate
    assert microstate.composite is not None
    assert (microstate.global_rank, microstate.regional_rank) == (None, None)
    assert all(e.global_percentile is None and e.regional_percentile is None for e in microstate.entries)


def test_score_microstate_value_does_not_set_bounds() -> None:
    # MMM reports far more than anyone: CCC still scores 100 and MMM is clamped at 100.
    raw = world(STANDARD)
    series = dict(raw.series)
    series[("MMM", "EG.ELC.ACCS.ZS")] = (Observation(YEAR, 1000.0, "s"),)
    results = scored(replace(raw, series=series))
    assert entry(results["CCC"], "EG.ELC.ACCS.ZS").normalized == 100.0
    assert entry(results["DDD"], "EG.ELC.ACCS.ZS").normalized == 25.0
    assert entry(results["MMM"], "EG.ELC.ACCS.ZS").normalized == 100.0


def test_score_percentiles_among_ranked_economies(standard: dict[str, ScoredEconomy]) -> None:
    # Ranked: AAA 0, DDD 25, BBB 50, CCC 100; in Sub-Saharan Africa: AAA, BBB, CCC.
    got = {code: (entry(r, "GE.EST").global_percentile, entry(r, "GE.EST").regional_percentile)
           for code, r in standard.items()}
    assert got == {"AAA": ("25th", "33rd"), "DDD": ("50th", "100th"), "BBB": ("75th", "67th"),
                   "CCC": ("100th", "100th"), "MMM": (None, None)}


def test_score_missing_value_imputed_and_bounds_from_observed_only() -> None:
    # Without AAA's value: bounds 30..90 (DDD..CCC): DDD 0, BBB 33.33, CCC 100. AAA has
    # 2 peers in its region and income group (too few), 2 in its region, 2 in its income
    # group: the global median of the 3 ranked donors, 33.33.
    results = scored(world(STANDARD, missing=[("AAA", "EG.ELC.ACCS.ZS")]))
    assert [entry(results[c], "EG.ELC.ACCS.ZS").normalized for c in ("DDD", "BBB", "CCC")] == [0.0, 33.33, 100.0]
    filled = entry(results["AAA"], "EG.ELC.ACCS.ZS")
    assert (filled.normalized, filled.data_source, filled.reported, filled.from_report) == (
        33.33, "Imputed: global median", None, False)
    assert filled.notes == ("No reported value in 2017-2024; imputed with the median of all "
                            "non-microstate economies with a reported value (3).")
    assert results["AAA"].dimensions[INFRASTRUCTURE] == 8.33  # (33.33 + 0 + 0 + 0) / 4
    assert results["AAA"].confidence[INFRASTRUCTURE] == "Moderate"  # 1 of 4


def test_score_imputed_value_gets_a_percentile() -> None:
    results = scored(world(STANDARD, missing=[("AAA", "EG.ELC.ACCS.ZS")]))
    # AAA 33.33 ties BBB: 3 of 4 ranked values at or below.
    assert entry(results["AAA"], "EG.ELC.ACCS.ZS").global_percentile == "75th"


def test_score_region_and_income_imputation_in_a_larger_group() -> None:
    positions = {**STANDARD, economy("EEE"): 0.75}
    results = scored(world(positions, missing=[("EEE", "GE.EST")]))
    filled = entry(results["EEE"], "GE.EST")
    # Low income Sub-Saharan donors AAA 0, BBB 50, CCC 100: median 50.
    assert (filled.normalized, filled.data_source) == (50.0, "Imputed: region and income median")
    assert filled.notes.endswith("median of non-microstate low income economies in "
                                 "Sub-Saharan Africa with a reported value (3).")


def test_score_per_million_small_economy_imputed_keeps_its_report() -> None:
    results = scored(world(STANDARD))
    articles = entry(results["MMM"], "IP.JRN.ARTC.SC")
    assert articles.reported is not None  # shown, but not scored
    # Donors: AAA 0, DDD 25, BBB 50, CCC 100 (no other East Asia & Pacific or 3 high income).
    assert (articles.normalized, articles.data_source) == (37.5, "Imputed: global median")
    assert articles.notes.startswith("Reported value not scored: per-million rates are unreliable "
                                     "for economies under 1,000,000 people; imputed")
    assert results["MMM"].confidence[INNOVATION] == "Moderate"


def test_score_per_million_reported_notes_show_the_rate(standard: dict[str, ScoredEconomy]) -> None:
    # CCC: expm1(5) per million = 147.41.
    assert entry(standard["CCC"], "IP.JRN.ARTC.SC").notes == "Scored per million people: 147.41."
    assert entry(standard["CCC"], "EG.ELC.ACCS.ZS").notes == ""


def test_score_window_ignores_later_years() -> None:
    raw = world(STANDARD, year=2025)
    assert all(e.reported is None for e in scored(raw, 2024)["AAA"].entries)
    assert scored(raw, 2025)["AAA"].entries[0].reported is not None


def test_score_nothing_imputable_leaves_indicator_out_and_dimension_null() -> None:
    # Two donors, fewer than MIN_DONORS at every level: AAA's Governance stays null.
    positions = {economy("AAA"): 0.0, economy("BBB"): 0.5, economy("CCC"): 1.0}
    governance = [i.code for i in SCORING if i.dimension == GOVERNANCE]
    results = scored(world(positions, missing=[("AAA", code) for code in governance]))
    missing = entry(results["AAA"], "GE.EST")
    assert (missing.normalized, missing.data_source) == (None, "Not available")
    assert "left out of the Governance Score" in missing.notes
    assert results["AAA"].dimensions[GOVERNANCE] is None
    assert results["AAA"].confidence[GOVERNANCE] == "Low"
    assert results["AAA"].composite is None
    assert [results[c].global_rank for c in ("AAA", "BBB", "CCC")] == [None, 2, 1]


def test_score_indicator_without_spread_is_left_out_of_every_score() -> None:
    raw = world(STANDARD)
    series = {k: (Observation(YEAR, 5.0, "s"),) if k[1] == "EG.ELC.ACCS.ZS" else v for k, v in raw.series.items()}
    results = scored(replace(raw, series=series))
    flat = entry(results["CCC"], "EG.ELC.ACCS.ZS")
    assert (flat.normalized, flat.data_source) == (None, "s")
    assert results["CCC"].dimensions[INFRASTRUCTURE] == 100.0  # the other three
    assert results["CCC"].confidence[INFRASTRUCTURE] == "Moderate"


def test_score_confidence_counts_unreported_indicators() -> None:
    access = [i.code for i in SCORING if i.dimension == ACCESS]  # five
    positions = {**STANDARD, economy("EEE"): 0.75}
    results = scored(world(positions, missing=[("EEE", access[0]), ("BBB", access[0]), ("BBB", access[1])]))
    assert results["EEE"].confidence[ACCESS] == "Moderate"  # 1 of 5
    assert results["BBB"].confidence[ACCESS] == "Low"  # 2 of 5
    assert results["CCC"].confidence == dict.fromkeys(DIMENSIONS, "High")


def test_score_population_from_the_series_latest_in_window() -> None:
    raw = world(STANDARD)
    series = dict(raw.series)
    series[("AAA", "SP.POP.TOTL")] = (Observation(2020, 250_000, "s"), Observation(2026, 5, "s"))
    result = scored(replace(raw, series=series))["AAA"]
    assert (result.population, result.microstate) == (250_000, True)
    population = entry(result, "SP.POP.TOTL")
    assert (population.normalized, population.indicator.dimension, population.reported) == (
        None, None, Observation(2020, 250_000, "s"))
    assert population.notes.startswith("Auxiliary series: enters no score")


def test_score_population_missing_falls_back_to_the_countries_table() -> None:
    result = scored(world(STANDARD, missing=[("AAA", "SP.POP.TOTL")]))["AAA"]
    assert result.population == 2_000_000
    population = entry(result, "SP.POP.TOTL")
    assert (population.reported, population.data_source) == (None, "Not available")
    assert "countries table's population (2000000)" in population.notes


def test_score_auxiliary_series_missing_is_not_imputed() -> None:
    result = scored(world(STANDARD, missing=[("AAA", "SE.SEC.CMPT.LO.MA.ZS")]))["AAA"]
    male = entry(result, "SE.SEC.CMPT.LO.MA.ZS")
    assert (male.normalized, male.data_source) == (None, "Not available")
    assert result.confidence[ACCESS] == "High"  # auxiliary series never count


def test_score_economies_of_other_regions_do_not_change_regional_ranks() -> None:
    positions = {**STANDARD, economy("FFF", region=ECA, income=HIC): 0.9}
    results = scored(world(positions))
    assert (results["FFF"].regional_rank, results["DDD"].regional_rank) == (1, 2)
    assert [results[c].regional_rank for c in ("CCC", "BBB", "AAA")] == [1, 2, 3]


def test_score_unclassified_income_is_scored() -> None:
    positions = {**STANDARD, economy("VVV", region=SSA, income=None): 0.5}
    results = scored(world(positions, missing=[("VVV", "GE.EST")]))
    filled = entry(results["VVV"], "GE.EST")
    assert (filled.normalized, filled.data_source) == (50.0, "Imputed: region median")
    assert results["VVV"].global_rank is not None

