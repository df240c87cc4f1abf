"""A tiny, hand-computable world of economies for the builder's tests.

Each economy sits at a *position* p in [0, 1]; every scoring indicator gets a value whose
transformed form is linear in p (``10 + 80p``, or ``expm1(1 + 4p)`` for log1p series, times
the population in millions for per-million ones). So after min-max scaling an economy's
normalized value is ``100 * (p - p_min) / (p_max - p_min)`` on every higher-is-better
indicator and 100 minus that on the two out-of-school rates, whatever the indicator.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from builder.inputs import Economy, Observation, RawData
from builder.method import INDICATORS, POPULATION, Indicator

SSA, ECA, EAP = "Sub-Saharan Africa", "Europe & Central Asia", "East Asia & Pacific"
LIC, HIC = "Low income", "High income"
SOURCE = "Test source"
YEAR = 2024


def economy(
    code: str,
    region: str = SSA,
    income: str | None = LIC,
    population: int = 2_000_000,
    fcv_type: str | None = None,
) -> Economy:
    """An economy of the countries table."""
    return Economy(code, f"Economy {code}", region, income, population, fcv_type is not None, fcv_type)


def value_at(indicator: Indicator, position: float, population: int) -> float:
    """A reported value whose transformed form is linear in ``position``."""
    if indicator.log1p:
        rate = math.expm1(1 + 4 * position)
        return rate * population / 1_000_000 if indicator.per_million else rate
    return 10 + 80 * position


def world(
    positions: Mapping[Economy, float],
    year: int = YEAR,
    missing: Iterable[tuple[str, str]] = (),
) -> RawData:
    """Raw data: every economy reports every series in ``year``, except the ``missing``
    (economy code, indicator code) pairs; population reports the table's population."""
    skip = set(missing)
    series: dict[tuple[str, str], tuple[Observation, ...]] = {}
    for economy_, position in positions.items():
        for indicator in INDICATORS:
            if (economy_.code, indicator.code) in skip:
                continue
            value: float | int = (
                economy_.population if indicator.code == POPULATION
                else value_at(indicator, position, economy_.population)
            )
            series[(economy_.code, indicator.code)] = (Observation(year, value, SOURCE),)
    return RawData(tuple(sorted(positions, key=lambda e: e.code)), series)


STANDARD: dict[Economy, float] = {
    economy("AAA"): 0.0,
    economy("BBB"): 0.5,
    economy("CCC"): 1.0,
    economy("DDD", region=ECA, income=HIC): 0.25,
    economy("MMM", region=EAP, income=HIC, population=100_000): 1.0,
}
"""Four ranked economies and one microstate. Normalized values on a higher-is-better
indicator: AAA 0, DDD 25, BBB 50, CCC 100 (MMM 100, clamped). Dimension scores: 100p,
except School Access (two of its five indicators are inverted): AAA 40, DDD 45, BBB 50,
CCC 60. Composites: AAA 8.0, DDD 29.0, BBB 50.0, CCC 92.0."""


def write_raw(directory: Path, raw: RawData) -> Path:
    """Write ``raw`` as the builder's two CSV tables; return ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "countries.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("iso3", "name", "region", "income_group", "population", "fcv_status", "fcv_type"))
        for e in raw.economies:
            writer.writerow((e.code, e.name, e.region, e.income or "", e.population,
                             str(e.fcv_status).lower(), e.fcv_type or ""))
    with (directory / "indicators.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("iso3", "indicator", "year", "value", "source"))
        for (code, indicator), observations in sorted(raw.series.items()):
            for observation in observations:
                writer.writerow((code, indicator, observation.year, repr(observation.value), observation.source))
    return directory


NEXT_MONTH: dict[Economy, float] = {**STANDARD, economy("EEE"): 0.75}
"""The world a month later: one more economy, EEE, and the others' scores unchanged (the
positions still span 0 to 1), so a snapshot of it is told from one of STANDARD by EEE."""
