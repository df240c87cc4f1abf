"""The rows and documents of the data routes (docs/API.md): the indicator table, history,
the snapshot catalogue and the change report's movers. Pure functions over loaded snapshots,
their summaries and parsed change reports: no I/O, no clock, no cache.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from loaders import COMPOSITE, DIMENSIONS, INDICATOR_FIELDS, SERIES_FIELDS, Country, JsonValue, Snapshot, Summary

Record = dict[str, JsonValue]

INDICATOR_IDENTITY: tuple[str, ...] = ("Country Code", "Country Name", "Region", "Income Level", "snapshot")
INDICATOR_COLUMNS: tuple[str, ...] = INDICATOR_IDENTITY + tuple(INDICATOR_FIELDS)
"""The keys of an indicator row, in order: the economy, the snapshot id, then the keys of an
indicator_details element (docs/API.md#get-apiv1indicators-the-indicator-values-as-one-long-table)."""

HISTORY_IDENTITY: tuple[str, ...] = ("Country Code", "Country Name", "snapshot")
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
    "snapshot", "previous_snapshot", "measure", "code", "name", "previous", "current", "change"
)
"""The columns of the change report's CSV: one row per listed mover, per score, then ranks."""

CHANGES_FORMAT = 1
"""The change report format the service serves (docs/PUBLISHING.md#what-changed-changesjson)."""

CITATION = (
    "If you publish work based on the index, cite the publisher of the index, the snapshot id "
    "and the date you retrieved the data, e.g. \"Readiness Index, snapshot {id} (published "
    "{published}), retrieved <date> from <this service's URL>\"."
)
SYNTHETIC_CITATION = " Do not cite this snapshot: its data is synthetic ({notice})."
"""The citation request the catalogue serves (README.md#citing), filled with the current
snapshot; a synthetic snapshot's adds that it must not be cited."""


def indicator_rows(snapshot_id: str, countries: Iterable[Country], indicators: Sequence[str] | None) -> list[Record]:
    """One row per (economy, indicator): ``countries`` in Country Code order, each country's
    details in their order; only the ``indicators`` codes (any case) when given."""
    wanted = None if indicators is None else {code.upper() for code in indicators}
    rows: list[Record] = []
    for country in sorted(countries, key=_code):
        record = country.record
        identity: Record = {
            "Country Code": country.code,
            "Country Name": record.get("Country Name"),
            "Region": record.get("Region"),
            "Income Level": record.get("Income Level"),
            "snapshot": snapshot_id,
        }
        for element in country.details:
            if wanted is None or str(element.get("indicator_code", "")).upper() in wanted:
                rows.append({**identity, **element})
    return rows


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
"""Gives a series' rows with the default history columns, by code (``default_history_rows``,
kept by whoever may reuse them: the service keeps one set per snapshot)."""


def default_history_rows(series: Snapshot) -> dict[str, Record]:
    """Every economy's history row of ``series`` with the default columns, by code: built once
    per snapshot, they are shared by every answer without ``fields`` (never modified)."""
    return {code: _history_row(series.id, country, HISTORY_DEFAULT) for code, country in series.countries.items()}


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
            rows += [_history_row(series.id, country, values) for country in ordered]
    return rows


def _history_row(snapshot_id: str, country: Country, values: Sequence[str]) -> Record:
    record = country.record
    row: Record = {"Country Code": country.code, "Country Name": record.get("Country Name"), "snapshot": snapshot_id}
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


def catalogue_document(summaries: Sequence[Summary], current_id: str, api_version: str) -> Record:
    """The answer of ``/api/v1/snapshots``: every snapshot up to the current one, newest
    first, with its facts and a link to its change report when it has one; the current
    snapshot's indicator catalogue; the citation request (docs/API.md#get-apiv1snapshots-what-data-exists)."""
    entries: list[JsonValue] = [_catalogue_entry(summary, current_id) for summary in reversed(summaries)]
    current = next((summary for summary in summaries if summary.id == current_id), None)
    return {
        "apiVersion": api_version,
        "snapshot": current_id,
        "count": len(entries),
        "data": entries,
        "indicators": list[JsonValue](current.indicators if current is not None else ()),
        "citation": citation(current) if current is not None else None,
    }


def citation(summary: Summary) -> str:
    """The citation request for the snapshot ``summary`` describes."""
    series = summary.series
    text = CITATION.format(id=series.id, published=series.published)
    if series.synthetic:
        text += SYNTHETIC_CITATION.format(notice=series.notice or "the manifest says so")
    return text


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
    the global rank's (``measure`` "Global Rank"). Entries that are not objects are skipped."""
    snapshot, previous = report.get("snapshot"), report.get("previous")
    measures: list[tuple[str, JsonValue]] = []
    scores = report.get("scores")
    if isinstance(scores, dict):
        measures += list(scores.items())
    measures.append(("Global Rank", report.get("ranks")))
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
                    }
                )
    return rows


def _catalogue_entry(summary: Summary, current_id: str) -> Record:
    series = summary.series
    return {
        "id": series.id,
        "year": int(series.id[:4]),
        "month": int(series.id[5:]),
        "current": series.id == current_id,
        "selectable": series.id.endswith("-12"),
        "published": series.published,
        "economies": summary.economies,
        "ranked_economies": summary.ranked,
        "synthetic": series.synthetic,
        "notice": series.notice,
        "changes": changes_path(series.id) if summary.has_changes else None,
    }


def _code(country: Country) -> str:
    return country.code
