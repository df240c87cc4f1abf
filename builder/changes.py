"""What changed between two snapshots: the change report written as ``changes.json``.

Users asked why scores moved between months; every publish answers with a report of the new
snapshot against the one that was current: economies added and removed, score and rank
changes with the largest movers per dimension, indicators whose reported values changed, and
imputations that appeared or disappeared, plus a one-line summary. The format is documented
in docs/PUBLISHING.md#what-changed-changesjson. Pure functions: the caller reads the snapshots.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from loaders import CHANGES_FILE as CHANGES_FILE  # where the publisher writes the report
from loaders import COMPOSITE, DIMENSIONS, RANK_MEASURE, Country, JsonValue, Snapshot, mover_direction

FORMAT = 1
TOP = 10
"""How many of the largest movers the report lists per score."""

SCORES: tuple[str, ...] = (COMPOSITE, *(f"{dimension} Score" for dimension in DIMENSIONS))
IMPUTED_PREFIX = "Imputed"
_RANK = RANK_MEASURE


@dataclass(frozen=True, slots=True)
class Movement:
    """How one score moved among the economies scored in both snapshots."""

    compared: int
    moved: int
    smallest: float | None
    """The smallest absolute change among the compared economies (None when none compared)."""
    top: tuple[str, float] | None = None
    """The name and change of the largest mover (None when none moved)."""


@dataclass(frozen=True, slots=True)
class ChangeReport:
    """The report: the facts the refresh's sanity checks use, and the whole JSON document."""

    snapshot: str
    previous: str | None
    added: tuple[str, ...]
    removed: tuple[str, ...]
    movements: Mapping[str, Movement]
    document: dict[str, JsonValue]

    def encode(self) -> bytes:
        """The file's bytes: two-space indented JSON, keys in the report's order."""
        return (json.dumps(self.document, indent=2, ensure_ascii=False) + "\n").encode()


def compare(previous: Snapshot | None, current: Snapshot, top: int = TOP) -> ChangeReport:
    """The change report of ``current`` against ``previous`` (None: the first snapshot)."""
    before = previous.countries if previous is not None else {}
    now = current.countries
    added = tuple(sorted(set(now) - set(before)))
    removed = tuple(sorted(set(before) - set(now)))
    common = sorted(set(now) & set(before))
    scores: dict[str, JsonValue] = {}
    movements: dict[str, Movement] = {}
    for score in SCORES:
        movements[score], scores[score] = _score_changes(score, common, before, now, top)
    _, ranks = _score_changes(_RANK, common, before, now, top)
    indicators = _indicator_changes(common, before, now)
    appeared, disappeared = _imputation_changes(common, before, now)
    document: dict[str, JsonValue] = {
        "format": FORMAT,
        "snapshot": current.id,
        "previous": previous.id if previous is not None else None,
        "summary": "",
        "economies": {
            "compared": len(common),
            "added": [_named(now[code]) for code in added],
            "removed": [_named(before[code]) for code in removed],
        },
        "scores": scores,
        "ranks": ranks,
        "indicators": indicators,
        "imputations": {"appeared": appeared, "disappeared": disappeared},
    }
    report = ChangeReport(current.id, previous.id if previous is not None else None,
                          added, removed, movements, document)
    document["summary"] = _summary(report, len(indicators), len(appeared), len(disappeared),
                                   sum(_count(item, "changed") for item in indicators))
    return report


def _named(country: Country) -> dict[str, JsonValue]:
    return {"code": country.code, "name": country.record.get("Country Name")}


def _number(country: Country, key: str) -> float | None:
    value = country.record.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _score_changes(
    key: str, common: list[str], before: Mapping[str, Country], now: Mapping[str, Country], top: int
) -> tuple[Movement, dict[str, JsonValue]]:
    """Movement of one score (or the global rank) and its largest movers, biggest first."""
    changes: list[tuple[float, str, float, float]] = []
    for code in common:
        old, new = _number(before[code], key), _number(now[code], key)
        if old is not None and new is not None:
            changes.append((round(new - old, 2), code, old, new))
    moved = [change for change in changes if change[0] != 0]
    # For ranks a smaller number is better; "largest" still means the largest jump either way,
    # and "direction" says which way in words (a positive rank change is a worse rank).
    moved.sort(key=lambda change: (-abs(change[0]), change[1]))
    largest: list[JsonValue] = [
        {**_named(now[code]), "previous": _plain(old), "current": _plain(new), "change": _plain(delta),
         "direction": mover_direction(key, delta)}
        for delta, code, old, new in moved[:top]
    ]
    smallest = min((abs(change[0]) for change in changes), default=None)
    first = (str(now[moved[0][1]].record.get("Country Name")), moved[0][0]) if moved else None
    movement = Movement(len(changes), len(moved), smallest, first)
    return movement, {"compared": len(changes), "moved": len(moved), "largest": largest}


def _plain(value: float) -> JsonValue:
    """Ranks stay integers in the file."""
    return int(value) if value == int(value) and abs(value) < 1e15 else value


def _details(country: Country) -> dict[str, dict[str, JsonValue]]:
    return {str(element.get("indicator_code")): element for element in country.details}


def _indicator_changes(
    common: list[str], before: Mapping[str, Country], now: Mapping[str, Country]
) -> list[JsonValue]:
    """Per indicator, the economies whose reported value or its year changed."""
    changed: dict[str, list[str]] = {}
    names: dict[str, JsonValue] = {}
    for code in common:
        old, new = _details(before[code]), _details(now[code])
        for indicator, element in new.items():
            names[indicator] = element.get("indicator_name")
            previous = old.get(indicator, {})
            if (previous.get("reported_value"), previous.get("year")) != (
                element.get("reported_value"), element.get("year")
            ):
                changed.setdefault(indicator, []).append(code)
    return [
        {"indicator_code": indicator, "indicator_name": names[indicator],
         "changed": len(codes), "economies": list(codes)}
        for indicator, codes in sorted(changed.items())
    ]


def _imputation_changes(
    common: list[str], before: Mapping[str, Country], now: Mapping[str, Country]
) -> tuple[list[JsonValue], list[JsonValue]]:
    """(economy, indicator) pairs imputed now but not before, and the reverse."""
    appeared: list[JsonValue] = []
    disappeared: list[JsonValue] = []
    for code in common:
        old, new = _details(before[code]), _details(now[code])
        for indicator in sorted(set(old) | set(new)):
            was, is_ = _source(old.get(indicator)), _source(new.get(indicator))
            if _imputed(is_) and not _imputed(was):
                appeared.append({"code": code, "indicator_code": indicator, "data_source": is_})
            elif _imputed(was) and not _imputed(is_):
                disappeared.append({"code": code, "indicator_code": indicator, "data_source": is_})
    return appeared, disappeared


def _source(element: dict[str, JsonValue] | None) -> str:
    return str(element.get("data_source") or "") if element else ""


def _imputed(source: str) -> bool:
    return source.startswith(IMPUTED_PREFIX)


def _count(item: JsonValue, key: str) -> int:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, int) else 0


def _summary(report: ChangeReport, indicators: int, appeared: int, disappeared: int,
             values: int) -> str:
    if report.previous is None:
        return f"{report.snapshot} is the first snapshot: nothing to compare with."
    composite = report.movements[COMPOSITE]
    biggest = f" (largest: {composite.top[0]} {composite.top[1]:+.2f})" if composite.top else ""
    return (
        f"{report.snapshot} against {report.previous}: "
        f"{len(report.added)} economies added, {len(report.removed)} removed; "
        f"composite score moved for {composite.moved} of {composite.compared}{biggest}; "
        f"{values} reported values changed in {indicators} indicators; "
        f"{appeared} imputations appeared, {disappeared} disappeared."
    )
