"""The refresh's sanity checks: reasons to refuse a valid snapshot that looks wrong.

A snapshot can pass every schema check and still be a bad month: the source dropped half the
economies, a dimension's series all vanished, a source's values were all redrawn (a broken
extract: the composite's ranking reshuffles and the typical economy moves by points, not
tenths), or one series changed its unit (its reported values jump tenfold; min-max scaling
hides that from the scores, not from the values served). ``check`` compares the new snapshot
with the current one and names each such finding, by the check that found it (``CHECKS``), with
what moved; the refresh refuses to publish while one is left that the operator did not accept
(``--accept CHECK``; docs/PUBLISHING.md#the-monthly-refresh-one-command). The limits, how they
were calibrated and why they are where they are: docs/DECISIONS.md#the-refreshs-sanity-checks.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from builder.changes import ChangeReport
from loaders import COMPOSITE, DIMENSIONS, JsonValue, Snapshot

MIN_COMPARED = 5
"""Fewer economies than this in both snapshots (for the composite, or reporting an
indicator) say nothing about a distribution: that comparison is left out."""
MOVERS = 5
"""How many of the largest composite moves a refusal names."""

ECONOMY_DROP, EMPTY_DIMENSION, RANK_SHIFT, MEDIAN_MOVE, SCALE_CHANGE = (
    "economy-drop", "empty-dimension", "rank-shift", "median-move", "scale-change")
CHECKS: dict[str, str] = {
    ECONOMY_DROP: "more of the current snapshot's economies missing than --max-economy-drop",
    EMPTY_DIMENSION: "a dimension without any score",
    RANK_SHIFT: "the composite's rank correlation with the current snapshot below --min-rank-correlation",
    MEDIAN_MOVE: "the composite's median absolute change above --max-median-move points",
    SCALE_CHANGE: "an indicator's median reported value changed by more than --max-scale-change either way",
}
"""Each check's name (what ``--accept`` takes, and the manifest records) and what it refuses."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One reason to refuse a snapshot: the check that found it (a name of CHECKS) and what moved."""

    check: str
    text: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.text}"


@dataclass(frozen=True, slots=True)
class Limits:
    """How far a new snapshot may differ from the current one before the refresh refuses it.

    ``economy_drop``: the largest share of the current snapshot's economies that may be
    missing from the new one (0.05: 5%). ``rank_correlation``: the smallest Spearman rank
    correlation of the composite scores of the economies in both (0.90). ``median_move``: the
    largest median absolute change of those composites, in points (2). ``scale_change``: the
    largest factor, either way, by which an indicator's median absolute reported value may
    change among the economies reporting it in both (3: a unit change is a power of ten).
    Calibrated on pairs of real and broken months (bench/sanity_pairs.py,
    docs/DECISIONS.md#the-refreshs-sanity-checks).
    """

    economy_drop: float = 0.05
    rank_correlation: float = 0.90
    median_move: float = 2.0
    scale_change: float = 3.0


@dataclass(frozen=True, slots=True)
class Checked:
    """What the checks found: every finding (empty: a normal month) and the measures, for the
    log (None where there was nothing to compare)."""

    findings: list[Finding]
    rank_correlation: float | None = None
    median_move: float | None = None
    scale_change: tuple[str, float] | None = None
    """The indicator whose median moved most (as a factor, either way) and that factor."""
    compared: int = 0

    def summary(self) -> str:
        """One line: passed or refused, with the measures."""
        measures = []
        if self.rank_correlation is not None:
            measures.append(f"rank correlation {self.rank_correlation:.4f}")
        if self.median_move is not None:
            measures.append(f"median move {self.median_move:.2f} points")
        if self.scale_change is not None:
            measures.append(f"largest scale change x{self.scale_change[1]:.2f} ({self.scale_change[0]})")
        said = f" ({', '.join(measures)} over {self.compared} economies)" if measures else ""
        verdict = f"{len(self.findings)} problem(s)" if self.findings else "passed"
        return verdict + said


def problems(new: Snapshot, previous: Snapshot | None, report: ChangeReport, limits: Limits) -> list[str]:
    """What every finding about ``new`` says; empty when it looks like a normal month."""
    return [finding.text for finding in check(new, previous, report, limits).findings]


def check(new: Snapshot, previous: Snapshot | None, report: ChangeReport, limits: Limits) -> Checked:
    """Compare ``new`` with ``previous`` (the current snapshot; None for a first one)."""
    found: list[Finding] = []
    for dimension in DIMENSIONS:
        key = f"{dimension} Score"
        if all(country.record.get(key) is None for country in new.countries.values()):
            found.append(Finding(EMPTY_DIMENSION, f"no economy has a {key}: the dimension's series are all missing"))
    if previous is None:
        return Checked(found)
    before, after = len(previous.countries), len(new.countries)
    if after < before * (1 - limits.economy_drop):
        found.append(Finding(ECONOMY_DROP, f"{after} economies, {before - after} fewer than {previous.id}'s "
                             f"{before} (more than {limits.economy_drop:.0%}; removed: "
                             f"{', '.join(report.removed[:10])}{' ...' if len(report.removed) > 10 else ''})"))
    old, now = _composites(previous), _composites(new)
    common = sorted(set(old) & set(now))
    rho = median = None
    if len(common) >= MIN_COMPARED:
        rho = spearman([old[code] for code in common], [now[code] for code in common])
        median = statistics.median(abs(now[code] - old[code]) for code in common)
        movers = _movers(report)
        if rho is not None and rho < limits.rank_correlation:
            found.append(Finding(RANK_SHIFT, f"the composite's ranking reshuffled: rank correlation {rho:.3f} "
                                             f"with {previous.id} over {len(common)} economies (below "
                                             f"{limits.rank_correlation:g}); {movers}"))
        if median > limits.median_move:
            moved = sum(now[code] != old[code] for code in common)
            found.append(Finding(MEDIAN_MOVE, f"the typical economy's composite moved {median:.2f} points "
                                              f"(median; more than {limits.median_move:g}): {moved} of "
                                              f"{len(common)} moved; {movers}"))
    scales = _scale_changes(previous, new)
    for code, name, was, is_, factor in scales:
        if factor > limits.scale_change:
            found.append(Finding(SCALE_CHANGE, f"{code} ({name}) changed scale: its median reported value is "
                                               f"{is_:.4g} against {was:.4g} in {previous.id} (x{is_ / was:.3g}; "
                                               f"more than x{limits.scale_change:g} either way): a unit change "
                                               "upstream?"))
    largest = max(scales, key=lambda scale: scale[4], default=None)
    return Checked(found, rho, median, (largest[0], largest[4]) if largest else None, len(common))


def spearman(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Spearman's rank correlation: Pearson's of the ranks, ties at their mean rank.
    None when either side has no spread (every value equal)."""
    x, y = _ranks(first), _ranks(second)
    mean_x, mean_y = statistics.fmean(x), statistics.fmean(y)
    covariance = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y, strict=True))
    spread = math.sqrt(sum((a - mean_x) ** 2 for a in x) * sum((b - mean_y) ** 2 for b in y))
    return covariance / spread if spread else None


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _number(value: JsonValue) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _composites(snapshot: Snapshot) -> dict[str, float]:
    found = {code: _number(country.record.get(COMPOSITE)) for code, country in snapshot.countries.items()}
    return {code: value for code, value in found.items() if value is not None}


def _movers(report: ChangeReport) -> str:
    """The largest composite moves, from the change report: ``largest: Kenya -43.70, ...``."""
    scores = report.document.get("scores")
    entry = scores.get(COMPOSITE) if isinstance(scores, dict) else None
    largest = entry.get("largest") if isinstance(entry, dict) else None
    named = [
        f"{mover.get('name')} {_number(mover.get('change')) or 0:+.2f}"
        for mover in (largest if isinstance(largest, list) else [])[:MOVERS]
        if isinstance(mover, dict)
    ]
    return f"largest moves: {', '.join(named)}" if named else "no economy moved"


def _reported(snapshot: Snapshot) -> dict[str, dict[str, float]]:
    """Indicator code -> economy -> reported value."""
    values: dict[str, dict[str, float]] = {}
    for code, country in snapshot.countries.items():
        for element in country.details:
            value = _number(element.get("reported_value"))
            if value is not None:
                values.setdefault(str(element.get("indicator_code")), {})[code] = value
    return values


def _names(snapshot: Snapshot) -> Mapping[str, str]:
    return {
        str(element.get("indicator_code")): str(element.get("indicator_name"))
        for country in snapshot.countries.values()
        for element in country.details
    }


def _scale_changes(previous: Snapshot, new: Snapshot) -> list[tuple[str, str, float, float, float]]:
    """Per indicator reported by enough economies in both: (code, name, previous median,
    new median, factor >= 1 either way) of the absolute reported values."""
    old, now = _reported(previous), _reported(new)
    names = _names(new)
    found = []
    for code in sorted(set(old) & set(now)):
        common = set(old[code]) & set(now[code])
        if len(common) < MIN_COMPARED:
            continue
        was = statistics.median(abs(old[code][economy]) for economy in common)
        is_ = statistics.median(abs(now[code][economy]) for economy in common)
        if was > 0 and is_ > 0:
            found.append((code, names.get(code, code), was, is_, max(is_ / was, was / is_)))
    return found
