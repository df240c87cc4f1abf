"""The rows and documents of the data routes (docs/API.md): the indicator table, history,
the snapshot catalogue and the change report's movers. Pure functions over loaded snapshots,
their summaries and parsed change reports: no I/O, no clock. Two bounded memos: each loaded
economy's indicator rows serialized once (``_country_json``), each series' default history rows
built once (``held_history_rows``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import orjson

from loaders import (
    COMPOSITE,
    DIMENSIONS,
    INDICATOR_FIELDS,
    RANK_MEASURE,
    SERIES_FIELDS,
    Country,
    Forced,
    JsonValue,
    Snapshot,
    Summary,
    mover_direction,
)
from readiness.domain.citation import Citation
from readiness.domain.envelope import resolved
from readiness.domain.errors import NoSnapshotInYears, SnapshotNotFound

Record = dict[str, JsonValue]

INDICATOR_IDENTITY: tuple[str, ...] = ("Country Code", "Country Name", "Region", "Income Level", "snapshot")
INDICATOR_KEY: tuple[str, ...] = ("Country Code", "snapshot", "indicator_code")
"""The columns every indicator row keeps whatever ``fields`` says: which economy, snapshot and indicator it is."""
PERCENTILE_VALUES: dict[str, str] = {
    "global_percentile_value": "global_percentile",
    "regional_percentile_value": "regional_percentile",
}
"""The numeric percentile keys of an indicator row, each with the ordinal string it reads ("31st" is 31)."""
OBSERVED_YEAR = "observed_year"
"""An indicator row's observation year: the element's ``year`` under a name of its own, since
``year`` names a snapshot's year on every other route (history, aggregates, ``year=``). The
element's ``year`` stays in the row, deprecated (docs/API.md#one-year-one-snapshot-id)."""
INDICATOR_COLUMNS: tuple[str, ...] = (
    INDICATOR_IDENTITY + tuple(INDICATOR_FIELDS) + tuple(PERCENTILE_VALUES) + (OBSERVED_YEAR,)
)
"""The keys of an indicator row, in order: the economy, the snapshot id, the keys of an
indicator_details element, then the percentiles as numbers and ``observed_year``: last, so that
the element's keys keep their places (and CSV columns their positions)
(docs/API.md#get-apiv1indicators-the-indicator-values-as-one-long-table)."""

HISTORY_IDENTITY: tuple[str, ...] = ("Country Code", "Country Name", "snapshot", "year", "date")
"""The keys every history row has, first: the economy, the snapshot id, its year (a number) and
its publication date (``YYYY-MM-DD``)."""
HISTORY_DEFAULT: tuple[str, ...] = (
    COMPOSITE,
    *(f"{dimension} Score" for dimension in DIMENSIONS),
    "Global Rank",
    "Regional Rank",
)
"""The values of a history row without ``fields``, in order (docs/API.md#get-apiv1history-scores-over-time)."""

HISTORY_FIELDS: tuple[str, ...] = tuple(
    name for name in SERIES_FIELDS if name not in ("Country Code", "Country Name")
)
"""What ``fields`` may name on history, in serving order: every field a series keeps."""

MOVER_COLUMNS: tuple[str, ...] = (
    "snapshot", "previous_snapshot", "measure", "code", "name", "previous", "current", "change", "direction"
)
"""The columns of the change report's CSV: one row per listed mover, per score, then ranks;
``direction`` says which way in words (``loaders.mover_direction``)."""

CHANGES_FORMAT = 1
"""The change report format the service serves (docs/PUBLISHING.md#what-changed-changesjson)."""


def indicator_rows(snapshot_id: str, countries: Iterable[Country], indicators: Sequence[str] | None) -> list[Record]:
    """One row per (economy, indicator): ``countries`` in Country Code order, each country's
    details in their order; only the ``indicators`` codes (any case) when given."""
    return indicator_rows_between(snapshot_id, countries, indicators, 0, None)[0]


def indicator_rows_between(
    snapshot_id: str, countries: Iterable[Country], indicators: Sequence[str] | None, start: int, stop: int | None
) -> tuple[list[Record], int]:
    """Rows ``start`` to ``stop`` (None: to the end) of ``indicator_rows``, and how many rows
    it has: only the rows asked for are built, the others only counted, so a page of the
    table costs its rows, not the table's (``start`` may be below 0 and ``stop`` past the end,
    as when a page spans several snapshots)."""
    wanted: set[JsonValue] | None = None if indicators is None else {code.upper() for code in indicators}
    unwanted: set[JsonValue] = set()
    rows: list[Record] = []
    position = 0
    for country in sorted(countries, key=_code):
        elements = country.details if wanted is None else _wanted_details(country, wanted, unwanted)
        first, position = position, position + len(elements)
        if not elements or position <= start or (stop is not None and first >= stop):
            continue
        elements = elements[max(start - first, 0):len(elements) if stop is None else stop - first]
        record = country.record
        identity: Record = {
            "Country Code": country.code,
            "Country Name": record.get("Country Name"),
            "Region": record.get("Region"),
            "Income Level": record.get("Income Level"),
            "snapshot": snapshot_id,
        }
        for element in elements:
            row = {**identity, **element}
            for key, ordinal in PERCENTILE_VALUES.items():
                row[key] = ordinal_value(element.get(ordinal))
            row[OBSERVED_YEAR] = element.get("year")
            rows.append(row)
    return rows, position


def indicator_json_rows(
    snapshot_id: str, countries: Iterable[Country], indicators: Sequence[str] | None
) -> list[orjson.Fragment]:
    """``indicator_rows``'s rows as their JSON, each serialized once per loaded economy and
    shared (``_country_json``): orjson copies them into a body (0.1 ms for 4,600 rows, against
    1 ms serializing the dictionaries, and 4 ms building them, with the GIL held)."""
    wanted: set[JsonValue] | None = None if indicators is None else {code.upper() for code in indicators}
    unwanted: set[JsonValue] = set()
    serialized: list[orjson.Fragment] = []
    for country in sorted(countries, key=_code):
        pairs = _country_json(snapshot_id, country)
        serialized += [json for code, json in pairs if wanted is None or _is_wanted(code, wanted, unwanted)]
    return serialized


COUNTRY_JSON_HELD = 512
"""How many economies' serialized rows ``_country_json`` keeps: two snapshots' worth (2.9 MiB
each for the bundled sample's 4,991 rows); past it, it starts again from none."""
_held_json: dict[int, tuple[Country, str, tuple[tuple[JsonValue, orjson.Fragment], ...]]] = {}


def _country_json(snapshot_id: str, country: Country) -> tuple[tuple[JsonValue, orjson.Fragment], ...]:
    """Every indicator row of ``country`` in ``snapshot_id`` as (its indicator code, its JSON),
    serialized once per loaded Country and shared: a table of 200 economies otherwise built
    and serialized 4,600 dictionaries (5 ms holding the GIL) on every miss, and the event loop
    waited for the GIL meanwhile (docs/PERFORMANCE.md#the-costly-flood-and-the-indicator-rows-2026-11-27).
    Keyed by the object's identity, which the entry keeps alive (so the id is never reused
    while held): a Country never changes once loaded, and a refresh loads new ones."""
    held = _held_json.get(id(country))
    if held is not None and held[0] is country and held[1] == snapshot_id:
        return held[2]
    # A copy of each serialized row: orjson's own bytes keep the buffer it wrote into (about
    # 8 KiB a row, 39 MiB for the bundled sample's rows, against 2.9 MiB copied).
    pairs = tuple(
        (row.get("indicator_code"), orjson.Fragment(bytes(memoryview(orjson.dumps(row)))))
        for row in indicator_rows(snapshot_id, [country], None)
    )
    if len(_held_json) >= COUNTRY_JSON_HELD:
        _held_json.clear()
    _held_json[id(country)] = (country, snapshot_id, pairs)
    return pairs


def _wanted_details(country: Country, wanted: set[JsonValue], unwanted: set[JsonValue]) -> list[dict[str, JsonValue]]:
    """The details of ``country`` whose code (any case) is in ``wanted`` (``_is_wanted``)."""
    return [element for element in country.details if _is_wanted(element.get("indicator_code"), wanted, unwanted)]


def _is_wanted(code: JsonValue, wanted: set[JsonValue], unwanted: set[JsonValue]) -> bool:
    """Whether an indicator ``code`` (any case) is in ``wanted``. ``wanted`` and ``unwanted``
    also learn each code as written once seen, so every later one costs one or two set lookups
    (the same codes recur in every economy: the table over years filters some 30,000 elements
    for one indicator)."""
    return code in wanted or (code not in unwanted and _learn(code, wanted, unwanted))


def _learn(code: JsonValue, wanted: set[JsonValue], unwanted: set[JsonValue]) -> bool:
    """Whether ``code`` as written is wanted (its upper case is), remembered in one of the sets."""
    keep = str(code).upper() in wanted
    (wanted if keep else unwanted).add(code)
    return keep


def ordinal_value(ordinal: JsonValue) -> int | None:
    """The number of an ordinal string ("31st" is 31, "100th" 100); None for null, or for
    anything else that is not digits and a suffix (the loaders' schema allows nothing else)."""
    if not isinstance(ordinal, str):
        return None
    number = _ORDINALS.get(ordinal)
    digits, suffix = ordinal[:-2], ordinal[-2:]
    if number is None and suffix in ("st", "nd", "rd", "th") and digits.isascii() and digits.isdigit():
        number = int(digits)
    return number


_ORDINALS: dict[str, int] = {
    f"{number}{suffix}": number for number in range(101) for suffix in ("st", "nd", "rd", "th")
}
"""Percentiles 0 to 100 with any suffix, looked up rather than parsed: the indicator table reads
two per row."""


def history_columns(fields: Sequence[str] | None) -> tuple[str, ...]:
    """The keys of a history row: the identity, then ``fields`` (serving order) that are
    history fields, or HISTORY_DEFAULT without ``fields``. ``invalid_history_fields`` first."""
    if fields is None:
        return HISTORY_IDENTITY + HISTORY_DEFAULT
    wanted = set(fields)
    return HISTORY_IDENTITY + tuple(name for name in HISTORY_FIELDS if name in wanted)


def invalid_history_fields(fields: Sequence[str] | None) -> list[str]:
    """The names in ``fields`` that a history row cannot have (not kept in a series)."""
    allowed = set(HISTORY_FIELDS) | set(HISTORY_IDENTITY)
    return [name for name in fields or () if name not in allowed]


RowsOf = Callable[[Snapshot], Mapping[str, Record]]
"""Gives a series' rows with the default history columns, by code (``default_history_rows``;
``held_history_rows`` keeps one set per loaded series)."""


def default_history_rows(series: Snapshot) -> dict[str, Record]:
    """Every economy's history row of ``series`` with the default columns, by code: built once
    per snapshot, they are shared by every answer without ``fields`` (never modified)."""
    return {code: _history_row(series, country, HISTORY_DEFAULT) for code, country in series.countries.items()}


HISTORY_ROWS_HELD = 64
"""How many series' default history rows ``held_history_rows`` keeps: every December and June of
decades of snapshots (about 0.3 MB each for 217 economies); past it, it starts again from none."""
_held_history: dict[int, tuple[Snapshot, Mapping[str, Record]]] = {}


def held_history_rows(series: Snapshot) -> Mapping[str, Record]:
    """``default_history_rows`` of ``series``, built once per loaded series and shared by every
    history answer with the default columns. Keyed by the object's identity, which the entry keeps
    alive (so the id is never reused while held): a series never changes once read, and a
    republished snapshot is read into a new one. One assignment per entry: safe from the compute
    pool's threads, where two may at worst build the same rows twice."""
    held = _held_history.get(id(series))
    if held is not None and held[0] is series:
        return held[1]
    rows = default_history_rows(series)
    if len(_held_history) >= HISTORY_ROWS_HELD:
        _held_history.clear()
    _held_history[id(series)] = (series, rows)
    return rows


def history_rows(
    selected: Iterable[tuple[Snapshot, Iterable[Country]]], columns: Sequence[str], rows_of: RowsOf | None = None
) -> list[Record]:
    """One row per (economy, snapshot): ``selected`` pairs a series with its countries that
    passed the filters, oldest snapshot first; within one, by Country Code. A country absent
    from a snapshot has no row for it; a value absent from a record is null. With the default
    columns, ``rows_of`` (when given) supplies the rows already built."""
    values = tuple(name for name in columns if name not in HISTORY_IDENTITY)
    prebuilt = rows_of if rows_of is not None and values == HISTORY_DEFAULT else None
    rows: list[Record] = []
    for series, countries in selected:
        ordered = sorted(countries, key=_code)
        if prebuilt is not None:
            by_code = prebuilt(series)
            rows += [by_code[country.code] for country in ordered]
        else:
            rows += [_history_row(series, country, values) for country in ordered]
    return rows


def _history_row(series: Snapshot, country: Country, values: Sequence[str]) -> Record:
    record = country.record
    row: Record = {
        "Country Code": country.code,
        "Country Name": record.get("Country Name"),
        "snapshot": series.id,
        "year": int(series.id[:4]),
        "date": series.published,
    }
    for name in values:
        row[name] = record.get(name)
    return row


def history_snapshots(summaries: Sequence[Summary], current_id: str, years: tuple[int, int] | None) -> list[Snapshot]:
    """The series history shows, oldest first: every December and the current snapshot, those
    whose year is in ``years`` (inclusive) when given."""
    chosen = []
    for summary in summaries:
        if not (summary.id.endswith("-12") or summary.id == current_id):
            continue
        year = int(summary.id[:4])
        if years is None or years[0] <= year <= years[1]:
            chosen.append(summary.series)
    return chosen


def snapshots_in_years(summaries: Sequence[Summary], current_id: str, years: tuple[int, int]) -> list[Snapshot]:
    """``history_snapshots`` for a ``years`` range that must select one (history, the indicator
    table over years, aggregates); raises NoSnapshotInYears, naming the years that have one."""
    chosen = history_snapshots(summaries, current_id, years)
    if not chosen:
        shown = sorted({int(series.id[:4]) for series in history_snapshots(summaries, current_id, None)})
        raise NoSnapshotInYears(years, shown)
    return chosen


def snapshots_over_time(
    summaries: Sequence[Summary], current_id: str, years: tuple[int, int] | None, recent: int | None
) -> list[Snapshot]:
    """The series a query over time reads, oldest first: those ``years`` selects (every
    December and the current snapshot without it), the ``recent`` newest of them when given
    (``mrv``, the World Bank's most recent values). Raises NoSnapshotInYears when ``years``
    selects none."""
    chosen = history_snapshots(summaries, current_id, None) if years is None else (
        snapshots_in_years(summaries, current_id, years))
    return chosen if recent is None else chosen[-recent:]


def shown_over_time(
    summaries: Sequence[Summary], current_id: str, years: tuple[int, int] | None, recent: int | None
) -> list[Snapshot]:
    """``snapshots_over_time`` without its 404: none when ``years`` selects none (what a cache
    key names before the answer is computed)."""
    chosen = history_snapshots(summaries, current_id, years)
    return chosen if recent is None else chosen[-recent:]


def listed_snapshots(summaries: Sequence[Summary], ids: Sequence[str]) -> list[Snapshot]:
    """The series of the snapshots ``ids`` names (history's ``snapshot``), oldest first, June
    archives too. Raises SnapshotNotFound for the first id the catalogue does not list."""
    by_id = {summary.id: summary.series for summary in summaries}
    for snapshot_id in ids:
        if snapshot_id not in by_id:
            raise SnapshotNotFound(snapshot_id)
    return [by_id[snapshot_id] for snapshot_id in sorted(ids)]


def catalogue_document(summaries: Sequence[Summary], current_id: str, api_version: str) -> Record:
    """The answer of ``/api/v1/snapshots``: every snapshot up to the current one, newest
    first, with its facts and a link to its change report when it has one; the current
    snapshot's indicator catalogue; its citation (``readiness.domain.citation``); last, the
    current snapshot's ``notice`` when its manifest has one (docs/API.md#get-apiv1snapshots-what-data-exists)."""
    entries: list[JsonValue] = [_catalogue_entry(summary, current_id) for summary in reversed(summaries)]
    current = next((summary for summary in summaries if summary.id == current_id), None)
    document: Record = {
        "apiVersion": api_version,
        "snapshot": current_id,
        **resolved(current_id, current_id),
        "count": len(entries),
        "data": entries,
        "indicators": list[JsonValue](current.indicators if current is not None else ()),
        "citation": Citation.of(current.series).document() if current is not None else None,
    }
    if current is not None and current.series.notice is not None:
        document["notice"] = current.series.notice
    return document


def changes_path(snapshot_id: str) -> str:
    """Where the service serves a snapshot's change report."""
    return f"/api/v1/snapshots/{snapshot_id}/changes"


def valid_report(report: JsonValue, snapshot_id: str) -> bool:
    """Whether a parsed ``changes.json`` is a report this service serves: an object of the
    known format about ``snapshot_id``."""
    return (
        isinstance(report, dict)
        and report.get("format") == CHANGES_FORMAT
        and report.get("snapshot") == snapshot_id
    )


def mover_rows(report: Mapping[str, JsonValue]) -> list[Record]:
    """The change report's largest movers as rows: every score's, in the report's order, then
    the global rank's (``measure`` "Global Rank"). Entries that are not objects are skipped;
    ``direction`` is the report's, or derived from ``change`` for a report written without it."""
    snapshot, previous = report.get("snapshot"), report.get("previous")
    measures: list[tuple[str, JsonValue]] = []
    scores = report.get("scores")
    if isinstance(scores, dict):
        measures += list(scores.items())
    measures.append((RANK_MEASURE, report.get("ranks")))
    rows: list[Record] = []
    for measure, movement in measures:
        largest = movement.get("largest") if isinstance(movement, dict) else None
        for mover in largest if isinstance(largest, list) else ():
            if isinstance(mover, dict):
                rows.append(
                    {
                        "snapshot": snapshot,
                        "previous_snapshot": previous,
                        "measure": measure,
                        **{key: mover.get(key) for key in ("code", "name", "previous", "current", "change")},
                        "direction": _direction(measure, mover),
                    }
                )
    return rows


def with_directions(report: Mapping[str, JsonValue]) -> Record:
    """``report`` (a parsed change report) with a ``direction`` on every mover of its scores
    and ranks that lacks one (a report written before the builder wrote them), derived from its
    ``change``; a copy, ``report`` untouched (docs/PUBLISHING.md#what-changed-changesjson)."""
    copied: Record = dict(report)
    scores = report.get("scores")
    if isinstance(scores, dict):
        copied["scores"] = {name: _movement_with_directions(name, movement) for name, movement in scores.items()}
    if "ranks" in report:
        copied["ranks"] = _movement_with_directions(RANK_MEASURE, report["ranks"])
    return copied


def _movement_with_directions(measure: str, movement: JsonValue) -> JsonValue:
    largest = movement.get("largest") if isinstance(movement, dict) else None
    if not isinstance(movement, dict) or not isinstance(largest, list):
        return movement
    movers: list[JsonValue] = [
        {**mover, "direction": _direction(measure, mover)} if isinstance(mover, dict) else mover for mover in largest
    ]
    return {**movement, "largest": movers}


def _direction(measure: str, mover: Mapping[str, JsonValue]) -> JsonValue:
    """A mover's ``direction``: the report's own, else derived from a numeric ``change``."""
    if "direction" in mover:
        return mover["direction"]
    change = mover.get("change")
    if isinstance(change, (int, float)) and not isinstance(change, bool):
        return mover_direction(measure, change)
    return None


def _catalogue_entry(summary: Summary, current_id: str) -> Record:
    series = summary.series
    return {
        "id": series.id,
        "year": int(series.id[:4]),
        "month": int(series.id[5:]),
        "current": series.id == current_id,
        "selectable": series.id.endswith("-12") or series.id == current_id,
        "published": series.published,
        "economies": summary.economies,
        "ranked_economies": summary.ranked,
        "synthetic": series.synthetic,
        "notice": series.notice,
        "changes": changes_path(series.id) if summary.has_changes else None,
        "forced": _forced(series.forced),
    }


def _forced(forced: Forced | None) -> Record | None:
    """The sanity checks a refresh published the snapshot past, and why; None when none did."""
    if forced is None:
        return None
    return {"checks": list[JsonValue](forced.checks), "reason": forced.reason}


def _code(country: Country) -> str:
    return country.code
