"""The refresh's sanity checks: reasons to refuse a valid snapshot that looks wrong.

A snapshot can pass every schema check and still be a bad month: the source dropped half the
economies, a dimension's series all vanished, or every score jumped (a unit or method
change upstream). ``problems`` names each such reason; the refresh refuses to publish while
there is one, unless forced (docs/PUBLISHING.md#the-monthly-refresh-one-command).
"""

from __future__ import annotations

from dataclasses import dataclass

from loaders import COMPOSITE, DIMENSIONS, Snapshot

from builder.changes import ChangeReport


@dataclass(frozen=True, slots=True)
class Limits:
    """How far a new snapshot may differ from the current one before the refresh refuses it.

    ``economy_drop``: the largest share of the current snapshot's economies that may be
    missing from the new one (0.05: 5%). ``all_moved``: refuse when every economy scored in
    both moved its composite by more than this many points.
    """

    economy_drop: float = 0.05
    all_moved: float = 10.0


def problems(new: Snapshot, previous: Snapshot | None, report: ChangeReport, limits: Limits) -> list[str]:
    """Every reason to refuse ``new``; empty when it looks like a normal month."""
    found: list[str] = []
    for dimension in DIMENSIONS:
        key = f"{dimension} Score"
        if all(country.record.get(key) is None for country in new.countries.values()):
            found.append(f"no economy has a {key}: the dimension's series are all missing")
    if previous is not None:
        before, after = len(previous.countries), len(new.countries)
        if after < before * (1 - limits.economy_drop):
            found.append(f"{after} economies, {before - after} fewer than {previous.id}'s {before} "
                         f"(more than {limits.economy_drop:.0%}; removed: "
                         f"{', '.join(report.removed[:10])}{' ...' if len(report.removed) > 10 else ''})")
        composite = report.movements[COMPOSITE]
        if composite.compared and composite.smallest is not None and composite.smallest > limits.all_moved:
            found.append(f"every one of {composite.compared} composite scores moved by more than "
                         f"{limits.all_moved:g} points (the smallest move is {composite.smallest:g})")
    return found
