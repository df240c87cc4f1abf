"""The rows of ``/api/v1/aggregates`` (docs/API.md#get-apiv1aggregates-summary-statistics-by-group):
per snapshot, group of economies and score, how many economies have a value and the mean,
median, minimum, maximum and quartiles of those values. Pure functions over snapshots' series
(``loaders/summary.py``): no I/O, and plain Python (``math.fsum`` and a quantile of our own, not
numpy), so that the service needs nothing the request path does not already load.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from loaders import COMPOSITE, DIMENSIONS, REGION_SHORT, Country, JsonValue, Snapshot, Summary
from readiness.domain.errors import ArchiveNotFound, SnapshotNotFound
from readiness.domain.query import Grouping, Query
from readiness.domain.tables import Record, snapshots_over_time
from readiness.domain.vocabulary import INCOME_GROUPS

MEASURES: tuple[str, ...] = (COMPOSITE, *(f"{dimension} Score" for dimension in DIMENSIONS))
"""The scores aggregated, in the order of each group's rows: the composite, then the five
dimension scores in DIMENSIONS order."""

STATISTICS: tuple[str, ...] = ("count", "mean", "median", "min", "max", "p25", "p75")
AGGREGATE_COLUMNS: tuple[str, ...] = ("snapshot", "year", "group", "measure", *STATISTICS)
"""The keys of an aggregates row, in order: its CSV columns."""

DECIMALS = 2
"""Every statistic but ``count`` is rounded to two decimals, as the scores are published."""

WORLD = "World"
FCV_GROUPS: dict[bool, str] = {True: "FCV", False: "Not FCV"}
UNCLASSIFIED = "Not classified"
"""The group of an economy without a value for the grouping field (one sample economy has no
``Income Level``): shown last, so every economy of the world is in exactly one group."""

GROUP_ORDER: dict[Grouping, tuple[str, ...]] = {
    Grouping.WORLD: (WORLD,),
    Grouping.REGION: tuple(REGION_SHORT),
    Grouping.INCOME: tuple(INCOME_GROUPS.values()),
    Grouping.FCV: tuple(FCV_GROUPS.values()),
}
"""The groups of each grouping, in row order: regions by name, income groups from low to high,
FCV before the others. A group without an economy has no rows."""


def quantile(ordered: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of non-empty ``ordered`` (ascending): linear interpolation between
    the closest ranks, at position ``(n - 1) * fraction``, as numpy's default and pandas'
    ``Series.quantile`` compute it (interpolating from the nearer rank, as numpy does, so that
    the two agree to the last bit)."""
    position = (len(ordered) - 1) * fraction
    below = math.floor(position)
    weight = position - below
    low = ordered[below]
    if weight == 0:
        return low
    high = ordered[below + 1]
    if weight >= 0.5:
        return high - (high - low) * (1 - weight)
    return low + (high - low) * weight


def numbers(values: Iterable[JsonValue]) -> list[float]:
    """The finite numbers among ``values``, as floats: nulls (and anything else) left out."""
    # type() rather than isinstance: a bool is an int, and is no score.
    return [float(value) for value in values
            if (type(value) is float or type(value) is int) and math.isfinite(value)]


def describe(values: Iterable[float]) -> Record:
    """``STATISTICS`` of ``values`` (``numbers`` first): ``count`` of them, and the others rounded
    to DECIMALS, null when there is none. The mean is the correctly rounded sum over the count
    (``statistics.fmean``'s), what pandas' compensated ``groupby().mean()`` gives; the median of an
    even count the mean of the middle two (``statistics.median``'s, numpy's); the quartiles
    ``quantile``'s. So a recomputation with pandas rounds to the same hundredths, even for a value
    halfway between two of them. Written out rather than called: 42 groups and scores per answer
    by region, where the statistics module's checks cost more than the arithmetic."""
    ordered = sorted(values)
    count = len(ordered)
    if not count:
        return {"count": 0, **dict.fromkeys(STATISTICS[1:])}
    middle = count // 2
    median = ordered[middle] if count % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {
        "count": count,
        "mean": round(math.fsum(ordered) / count, DECIMALS),
        "median": round(median, DECIMALS),
        "min": round(ordered[0], DECIMALS),
        "max": round(ordered[-1], DECIMALS),
        "p25": round(quantile(ordered, 0.25), DECIMALS),
        "p75": round(quantile(ordered, 0.75), DECIMALS),
    }


def group_of(record: Mapping[str, JsonValue], by: Grouping) -> str:
    """The name of the group an economy's record falls in under ``by``: ``World``, its
    ``Region``, its ``Income Level``, ``FCV`` or ``Not FCV``; UNCLASSIFIED without the field."""
    if by is Grouping.WORLD:
        return WORLD
    if by is Grouping.FCV:
        status = record.get("FCV Status")
        return FCV_GROUPS[status] if isinstance(status, bool) else UNCLASSIFIED
    value = record.get("Region" if by is Grouping.REGION else "Income Level")
    return value if isinstance(value, str) and value else UNCLASSIFIED


def aggregate_rows(selected: Iterable[tuple[Snapshot, Iterable[Country]]], by: Grouping) -> list[Record]:
    """One row per (snapshot, group, measure): ``selected`` pairs a series with its economies that
    passed the filters, oldest first; groups in GROUP_ORDER (others by name, then UNCLASSIFIED),
    measures in MEASURES order. Microstates count like every economy: they have scores, they are
    only unranked."""
    rows: list[Record] = []
    for series, countries in selected:
        groups: dict[str, list[Country]] = {}
        for country in countries:
            groups.setdefault(group_of(country.record, by), []).append(country)
        year = int(series.id[:4])
        for group in _ordered(groups, by):
            members = groups[group]
            for measure in MEASURES:
                rows.append({
                    "snapshot": series.id,
                    "year": year,
                    "group": group,
                    "measure": measure,
                    **describe(numbers([country.record.get(measure) for country in members])),
                })
    return rows


def aggregate_snapshots(summaries: Sequence[Summary], current_id: str, query: Query) -> list[Snapshot]:
    """The series ``query`` aggregates, oldest first: the current snapshot by default, the
    December of ``year`` (the current snapshot for its year: ``Query.snapshot_in``), the listed
    snapshot ``snapshot`` (a June too), or with ``years`` every December and the current snapshot
    in that range, as history chooses them (the ``mrv`` newest of them with ``mrv``).

    Raises ArchiveNotFound, SnapshotNotFound or NoSnapshotInYears when they select none."""
    if query.over_time:
        return snapshots_over_time(summaries, current_id, query.years, query.recent)
    wanted = query.snapshot_in(current_id) or current_id
    found = next((summary.series for summary in summaries if summary.id == wanted), None)
    if found is None:
        raise ArchiveNotFound(query.year) if query.year is not None else SnapshotNotFound(wanted)
    return [found]


def _ordered(groups: Iterable[str], by: Grouping) -> list[str]:
    known = GROUP_ORDER[by]
    position = {name: index for index, name in enumerate(known)}
    return sorted(groups, key=lambda name: (name == UNCLASSIFIED, position.get(name, len(known)), name))

