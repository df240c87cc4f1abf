"""The method's steps as small pure functions, each testable with hand-computed numbers.

No I/O and no global state: ``builder.score`` applies them to a whole snapshot in the order
of ``docs/METHOD.md``; the constants they apply come from ``builder.method``.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from builder.inputs import Economy, Observation
from builder.method import (
    DECIMALS,
    HIGH,
    IMPUTATION_LEVELS,
    LOW,
    MIN_DONORS,
    MODERATE,
    MODERATE_MAX_SHARE,
    PER_MILLION_MIN_POPULATION,
    ImputationLevel,
    Indicator,
)

_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}


@dataclass(frozen=True, slots=True)
class Bounds:
    """The min-max scaling bounds of one indicator in one snapshot (transformed units)."""

    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Imputation:
    """A filled value: the donors' median (0-100), the level used and how many donors."""

    value: float
    level: ImputationLevel
    donors: int


def latest_in_window(
    observations: Sequence[Observation], first_year: int, last_year: int
) -> Observation | None:
    """The observation of the latest year within [first_year, last_year], or None.

    ``observations`` are sorted by year (as ``RawData`` keeps them).
    """
    for observation in reversed(observations):
        if first_year <= observation.year <= last_year:
            return observation
    return None


def usable(indicator: Indicator, population: int) -> bool:
    """Whether an economy's reported value of ``indicator`` may be scored at all.

    Per-million rates of economies under PER_MILLION_MIN_POPULATION are too noisy.
    """
    return not indicator.per_million or population >= PER_MILLION_MIN_POPULATION


def per_million(value: float, population: int) -> float:
    """``value`` per million people."""
    return value / (population / 1_000_000)


def transform(indicator: Indicator, value: float, population: int) -> float:
    """Apply the indicator's pre-scaling transforms: per million people, then log1p."""
    if indicator.per_million:
        value = per_million(value, population)
    if indicator.log1p:
        value = math.log1p(value)
    return value


def bounds(values: Iterable[float]) -> Bounds | None:
    """Min and max of ``values``; None when there are fewer than two distinct values.

    The caller passes observed values of non-microstates only: imputed values and
    microstates never set bounds.
    """
    collected = list(values)
    if not collected or min(collected) == max(collected):
        return None
    return Bounds(min(collected), max(collected))


def scale(value: float, limits: Bounds, lower_is_better: bool) -> float:
    """Min-max scale to 0-100, clamped (a microstate may lie outside), inverted if asked."""
    share = (value - limits.low) / (limits.high - limits.low)
    scaled = 100 * min(1.0, max(0.0, share))
    return round(100 - scaled if lower_is_better else scaled, DECIMALS)


def impute(
    target: Economy, donors: Mapping[str, float], economies: Mapping[str, Economy]
) -> Imputation | None:
    """Fill ``target``'s missing value with the median of its peers' values.

    ``donors`` maps economy codes to scored observed values (non-microstates only). The
    levels of IMPUTATION_LEVELS are tried in order; a level needs MIN_DONORS donors, and
    a level matching on income is skipped for an economy without an income group. None
    when no level has enough donors.
    """
    for level in IMPUTATION_LEVELS:
        if level.same_income and target.income is None:
            continue
        values = [
            value
            for code, value in donors.items()
            if (not level.same_region or economies[code].region == target.region)
            and (not level.same_income or economies[code].income == target.income)
        ]
        if len(values) >= MIN_DONORS:
            return Imputation(round(statistics.median(values), DECIMALS), level, len(values))
    return None


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean with two decimals; None for no values."""
    collected = list(values)
    return round(statistics.fmean(collected), DECIMALS) if collected else None


def ordinal(number: int) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 11 -> "11th", 21 -> "21st", 111 -> "111th"."""
    suffix = "th" if 10 <= number % 100 <= 20 else _SUFFIXES.get(number % 10, "th")
    return f"{number}{suffix}"


def percentiles(values: Mapping[str, float]) -> dict[str, str]:
    """Each value's percentile among ``values`` as an ordinal string.

    The share of values at or below it, times 100, rounded half up, at least "1st" (so a
    last place among more than 200 is "1st", never "0th"); the top value is "100th".
    """
    ordered = sorted(values.values())
    count = len(ordered)
    shares = {code: bisect_right(ordered, value) for code, value in values.items()}
    return {code: ordinal(max(1, (200 * at_or_below + count) // (2 * count)))
            for code, at_or_below in shares.items()}


def ranks(values: Mapping[str, float]) -> dict[str, int]:
    """Competition ranks, 1 = highest; equal values share a rank ("1, 2, 2, 4")."""
    descending = sorted(-value for value in values.values())
    return {code: 1 + bisect_left(descending, -value) for code, value in values.items()}


def confidence(unreported: int, total: int) -> str:
    """A dimension's confidence from how many of its ``total`` indicators lack a scored
    reported value: none High, at most MODERATE_MAX_SHARE Moderate, more Low."""
    if unreported == 0:
        return HIGH
    return MODERATE if unreported <= MODERATE_MAX_SHARE * total else LOW
