"""What the catalogue and history need of a snapshot, kept after the snapshot itself is gone.

A ``Summary`` is built once, in the store's worker thread, whenever a snapshot is read (the
current one, an archive, or a background read for the catalogue). It holds the manifest's
facts, whether the snapshot has a change report, its indicator catalogue, and its *series*:
the snapshot slimmed to the score and rank fields of each economy, without indicator details
(its size: docs/PERFORMANCE.md#a-snapshots-series-in-memory). History answers are computed from the series of every
December archive and the current snapshot, so a history miss never loads an archive and never
evicts one from the store's LRU (docs/CACHING.md#history-the-catalogue-and-change-reports).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import orjson

from loaders.contract import COMPOSITE, COUNTRY_FIELDS, DIMENSIONS
from loaders.model import Country, JsonValue, Snapshot

log = logging.getLogger("readiness.loaders")

CHANGES_FILE = "changes.json"
"""The change report the publisher writes into a snapshot directory (docs/PUBLISHING.md)."""

INDICATORS_FILE = "indicators.json"
"""The indicator catalogue the builder writes into a snapshot directory (docs/DATA.md)."""

RANK_MEASURE = "Global Rank"
"""The change report's ranked measure (its ``ranks``), whose smaller number is the better one."""


def mover_direction(measure: str, change: float) -> str:
    """Which way one change-report mover went, in words (docs/PUBLISHING.md#what-changed-changesjson):
    for ``RANK_MEASURE`` a positive ``change`` is a worse rank ("worse", "better", "same"); for
    a score, "up", "down" or "same". The builder writes it and the service derives it for a
    report written without it, so the rule lives here, below both. Pure."""
    if change == 0:
        return "same"
    if measure == RANK_MEASURE:
        return "worse" if change > 0 else "better"
    return "up" if change > 0 else "down"

_SERIES_NAMES = frozenset(
    {
        "Country Name",
        "Country Code",
        "Region",
        "Income Level",
        COMPOSITE,
        *(f"{dimension} Score" for dimension in DIMENSIONS),
        "FCV Status",
        "Global Rank",
        "Regional Rank",
    }
)
SERIES_FIELDS: tuple[str, ...] = tuple(field.name for field in COUNTRY_FIELDS if field.name in _SERIES_NAMES)
"""The fields a series keeps, in serving order: names, the filters' fields (region, income,
FCV), the composite, the five dimension scores and the ranks."""

CATALOGUE_KEYS: tuple[str, ...] = ("code", "name", "dimension", "direction", "transform", "purpose", "sources")
"""Keys of one indicator catalogue entry, in order (docs/DATA.md#indicatorsjson)."""


@dataclass(frozen=True, slots=True)
class Summary:
    """One snapshot's catalogue facts and its series (``series``: a Snapshot whose countries
    hold only SERIES_FIELDS and no details; same id, published date and digest)."""

    identity: str
    """The manifest digest of the files it was read from (as the store's)."""
    economies: int
    ranked: int
    has_changes: bool
    indicators: tuple[dict[str, JsonValue], ...]
    series: Snapshot

    @property
    def id(self) -> str:
        """The snapshot id, ``YYYY-MM``."""
        return self.series.id


def series_of(snapshot: Snapshot) -> Snapshot:
    """``snapshot`` slimmed to SERIES_FIELDS, without indicator details. Pure."""
    return Snapshot(
        snapshot.id,
        snapshot.published,
        {
            code: Country(code, {name: country.record[name] for name in SERIES_FIELDS if name in country.record}, ())
            for code, country in snapshot.countries.items()
        },
        snapshot.digest,
        snapshot.skipped,
        snapshot.synthetic,
        snapshot.notice,
        snapshot.publisher,
        snapshot.license,
        snapshot.forced,
    )


def derived_catalogue(snapshot: Snapshot) -> tuple[dict[str, JsonValue], ...]:
    """The indicator catalogue as far as the served data tells it, for a snapshot without
    ``indicators.json`` (built by another builder): code, name and dimension in details order,
    the reported sources seen; direction, transform and purpose unknown (null). Pure."""
    entries: dict[str, dict[str, JsonValue]] = {}
    sources: dict[str, set[str]] = {}
    for country in snapshot.countries.values():
        for element in country.details:
            code = str(element.get("indicator_code"))
            if code not in entries:
                entries[code] = {
                    "code": code,
                    "name": element.get("indicator_name"),
                    "dimension": element.get("component"),
                    "direction": None,
                    "transform": None,
                    "purpose": None,
                    "sources": [],
                }
                sources[code] = set()
            if element.get("reported_value") is not None:
                sources[code].add(str(element.get("data_source")))
    for code, entry in entries.items():
        entry["sources"] = list[JsonValue](sorted(sources[code]))
    return tuple(entries.values())


def summarize(snapshot: Snapshot, identity: str, directory: Path) -> Summary:
    """The Summary of ``snapshot``, read from ``directory``: reads ``indicators.json`` (its
    catalogue, else the derived one) and looks for ``changes.json``. File I/O: call it in a
    worker thread, as the store does."""
    ranked = sum(1 for country in snapshot.countries.values() if country.record.get("Global Rank") is not None)
    return Summary(
        identity,
        len(snapshot.countries),
        ranked,
        (directory / CHANGES_FILE).is_file(),
        _catalogue(directory) or derived_catalogue(snapshot),
        series_of(snapshot),
    )


def _catalogue(directory: Path) -> tuple[dict[str, JsonValue], ...] | None:
    """The entries of ``indicators.json``, or None when it is absent or unusable (logged)."""
    path = directory / INDICATORS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("snapshot %s: skipped %s: cannot read: %s", directory.name, INDICATORS_FILE, error)
        return None
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        log.warning("snapshot %s: skipped %s: not valid JSON: %s", directory.name, INDICATORS_FILE, error)
        return None
    entries = document.get("indicators") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("format") != 1
        or not isinstance(entries, list)
        or not all(isinstance(entry, dict) and isinstance(entry.get("code"), str) for entry in entries)
    ):
        log.warning("snapshot %s: skipped %s: not format 1 with a list of indicators", directory.name, INDICATORS_FILE)
        return None
    return tuple(
        {key: cast(dict[str, JsonValue], entry).get(key) for key in CATALOGUE_KEYS} for entry in entries
    )
