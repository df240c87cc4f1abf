"""Score one snapshot: raw tables in, every economy's scores, ranks and details out.

Pure: ``score_snapshot`` applies the steps of ``builder.steps`` to the whole table in the
order of ``docs/METHOD.md`` (window, population and microstates, transforms, bounds,
scaling, imputation, dimension means, composite, ranks, percentiles, confidence). Writing
the result to files is ``builder.write``'s job.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from builder.inputs import Economy, Observation, RawData
from builder.method import (
    INDICATOR_BY_CODE,
    INDICATORS,
    LOW,
    MICROSTATE_POPULATION,
    MIN_DONORS,
    NOT_AVAILABLE,
    PER_MILLION_MIN_POPULATION,
    POPULATION,
    WINDOW_START,
    Indicator,
)
from builder.steps import (
    bounds,
    confidence,
    impute,
    latest_in_window,
    mean,
    per_million,
    percentiles,
    ranks,
    scale,
    transform,
    usable,
)
from loaders import DIMENSIONS

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Entry:
    """One indicator of one economy, as scored: one indicator_details element.

    ``from_report`` is true when ``normalized`` comes from the economy's own reported
    value (not imputed, not missing): confidence counts the entries where it is false.
    """

    indicator: Indicator
    reported: Observation | None
    normalized: float | None
    data_source: str
    notes: str
    from_report: bool
    global_percentile: str | None = None
    regional_percentile: str | None = None


@dataclass(frozen=True, slots=True)
class ScoredEconomy:
    """One economy's results; ``entries`` follow ``builder.method.INDICATORS``."""

    economy: Economy
    population: int
    microstate: bool
    entries: tuple[Entry, ...]
    dimensions: Mapping[str, float | None]
    confidence: Mapping[str, str]
    composite: float | None
    global_rank: int | None
    regional_rank: int | None


@dataclass(frozen=True, slots=True)
class ScoredSnapshot:
    """Every economy of one snapshot, in code order, scored from data of the window."""

    first_year: int
    last_year: int
    economies: tuple[ScoredEconomy, ...]


@dataclass(frozen=True, slots=True)
class _Context:
    """What every indicator's scoring needs to know about the snapshot's economies."""

    raw: RawData
    economies: Mapping[str, Economy]
    populations: Mapping[str, int]
    microstates: Mapping[str, bool]
    first_year: int
    last_year: int

    @property
    def window(self) -> str:
        return f"{self.first_year}-{self.last_year}"


def score_snapshot(raw: RawData, last_year: int) -> ScoredSnapshot:
    """Score every economy of ``raw`` with data from WINDOW_START to ``last_year``."""
    economies = {economy.code: economy for economy in raw.economies}
    population_entries = {
        code: _population_entry(raw, economy, last_year) for code, economy in economies.items()
    }
    populations = {
        code: _population(entry, economies[code]) for code, entry in population_entries.items()
    }
    context = _Context(
        raw=raw,
        economies=economies,
        populations=populations,
        microstates={code: people < MICROSTATE_POPULATION for code, people in populations.items()},
        first_year=WINDOW_START,
        last_year=last_year,
    )
    columns = {
        indicator.code: _with_percentiles(
            population_entries if indicator.code == POPULATION
            else _auxiliary(indicator, context) if indicator.dimension is None
            else _score_indicator(indicator, context),
            context,
        )
        for indicator in INDICATORS
    }
    rows = {code: tuple(columns[i.code][code] for i in INDICATORS) for code in economies}
    dimensions = {code: _dimension_scores(entries) for code, entries in rows.items()}
    composites = {code: _composite(scores) for code, scores in dimensions.items()}
    ranked = {
        code: value
        for code, value in composites.items()
        if value is not None and not context.microstates[code]
    }
    global_ranks = ranks(ranked)
    regional_ranks = _by_region(ranked, economies, ranks)
    scored = tuple(
        ScoredEconomy(
            economy=economies[code],
            population=populations[code],
            microstate=context.microstates[code],
            entries=rows[code],
            dimensions=dimensions[code],
            confidence=_confidence(rows[code], dimensions[code]),
            composite=composites[code],
            global_rank=global_ranks.get(code),
            regional_rank=regional_ranks.get(code),
        )
        for code in sorted(economies)
    )
    return ScoredSnapshot(WINDOW_START, last_year, scored)


def _population_entry(raw: RawData, economy: Economy, last_year: int) -> Entry:
    indicator = INDICATOR_BY_CODE[POPULATION]
    latest = latest_in_window(raw.observations(economy.code, POPULATION), WINDOW_START, last_year)
    if latest is None:
        notes = (f"No reported value in {WINDOW_START}-{last_year}; the countries table's "
                 f"population ({economy.population}) is used instead.")
        return Entry(indicator, None, None, NOT_AVAILABLE, notes, from_report=False)
    return Entry(indicator, latest, None, latest.source, _purpose(indicator), from_report=True)


def _population(entry: Entry, economy: Economy) -> int:
    return economy.population if entry.reported is None else round(entry.reported.value)


def _purpose(indicator: Indicator) -> str:
    return f"Auxiliary series: enters no score; {indicator.purpose}."


def _score_indicator(indicator: Indicator, context: _Context) -> dict[str, Entry]:
    """Scale the observed values, then impute the missing ones, for one scoring indicator."""
    latest = {
        code: latest_in_window(
            context.raw.observations(code, indicator.code), context.first_year, context.last_year
        )
        for code in context.economies
    }
    transformed = {
        code: transform(indicator, observation.value, context.populations[code])
        for code, observation in latest.items()
        if observation is not None and usable(indicator, context.populations[code])
    }
    limits = bounds(value for code, value in transformed.items() if not context.microstates[code])
    if limits is None:
        notes = (f"Fewer than two distinct reported values among non-microstates in "
                 f"{context.window}: the indicator is left out of every score.")
        return {
            code: Entry(indicator, observation,
                        None, NOT_AVAILABLE if observation is None else observation.source,
                        notes, from_report=False)
            for code, observation in latest.items()
        }
    normalized = {
        code: scale(value, limits, indicator.lower_is_better) for code, value in transformed.items()
    }
    donors = {code: value for code, value in normalized.items() if not context.microstates[code]}
    entries: dict[str, Entry] = {}
    for code, economy in context.economies.items():
        observation = latest[code]
        if code in normalized and observation is not None:
            entries[code] = Entry(indicator, observation, normalized[code], observation.source,
                                  _reported_notes(indicator, observation, context.populations[code]),
                                  from_report=True)
            continue
        why = (f"No reported value in {context.window}" if observation is None else
               f"Reported value not scored: per-million rates are unreliable for economies "
               f"under {PER_MILLION_MIN_POPULATION:,} people")
        filled = impute(economy, donors, context.economies)
        if filled is None:
            entries[code] = Entry(indicator, observation, None, NOT_AVAILABLE,
                                  f"{why}; fewer than {MIN_DONORS} donors at every imputation "
                                  f"level: left out of the {indicator.dimension} Score.",
                                  from_report=False)
        else:
            group = filled.level.group(economy.region, economy.income)
            entries[code] = Entry(indicator, observation, filled.value, filled.level.label,
                                  f"{why}; imputed with the median of {group} with a "
                                  f"reported value ({filled.donors}).",
                                  from_report=False)
    return entries


def _reported_notes(indicator: Indicator, observation: Observation, population: int) -> str:
    """Per-million rates are not in the data: show the one that was scored."""
    if not indicator.per_million:
        return ""
    return f"Scored per million people: {per_million(observation.value, population):.2f}."


def _auxiliary(indicator: Indicator, context: _Context) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for code in context.economies:
        observation = latest_in_window(
            context.raw.observations(code, indicator.code), context.first_year, context.last_year
        )
        if observation is None:
            notes = f"No reported value in {context.window}; auxiliary series, not imputed."
            entries[code] = Entry(indicator, None, None, NOT_AVAILABLE, notes, from_report=False)
        else:
            entries[code] = Entry(indicator, observation, None, observation.source,
                                  _purpose(indicator), from_report=True)
    return entries


def _with_percentiles(column: Mapping[str, Entry], context: _Context) -> dict[str, Entry]:
    """Add percentiles among ranked economies (non-microstates) that have a value."""
    peers = {
        code: entry.normalized
        for code, entry in column.items()
        if entry.normalized is not None and not context.microstates[code]
    }
    if not peers:
        return dict(column)
    global_ = percentiles(peers)
    regional = _by_region(peers, context.economies, percentiles)
    return {
        code: replace(entry, global_percentile=global_[code], regional_percentile=regional[code])
        if code in peers else entry
        for code, entry in column.items()
    }


def _by_region(
    values: Mapping[str, float],
    economies: Mapping[str, Economy],
    within: Callable[[Mapping[str, float]], dict[str, _T]],
) -> dict[str, _T]:
    """Apply ``within`` (ranks or percentiles) to each region's values separately."""
    groups: dict[str, dict[str, float]] = defaultdict(dict)
    for code, value in values.items():
        groups[economies[code].region][code] = value
    result: dict[str, _T] = {}
    for group in groups.values():
        result.update(within(group))
    return result


def _dimension_scores(entries: tuple[Entry, ...]) -> dict[str, float | None]:
    return {
        dimension: mean(
            entry.normalized
            for entry in entries
            if entry.indicator.dimension == dimension and entry.normalized is not None
        )
        for dimension in DIMENSIONS
    }


def _composite(dimensions: Mapping[str, float | None]) -> float | None:
    """The mean of the five dimensions; null when one is null (it would not compare)."""
    values = [value for value in dimensions.values() if value is not None]
    return mean(values) if len(values) == len(DIMENSIONS) else None


def _confidence(entries: tuple[Entry, ...], dimensions: Mapping[str, float | None]) -> dict[str, str]:
    levels: dict[str, str] = {}
    for dimension, value in dimensions.items():
        own = [entry for entry in entries if entry.indicator.dimension == dimension]
        unreported = sum(not entry.from_report for entry in own)
        levels[dimension] = LOW if value is None else confidence(unreported, len(own))
    return levels
