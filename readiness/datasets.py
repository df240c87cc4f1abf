"""The answers of the data routes (docs/API.md): ``/api/v1/indicators``, ``/api/v1/history``,
``/api/v1/snapshots`` and ``/api/v1/snapshots/{id}/changes``, computed without any cache from a
snapshot, the store's summaries or a change report's bytes. The service caches them like every
answer (``readiness/service.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import orjson

from loaders import JsonValue, Snapshot, Summary

from readiness.cache.answers import Answer
from readiness.domain.csv_table import to_csv
from readiness.domain.envelope import API_VERSION
from readiness.domain.errors import ChangeReportNotFound, InvalidParameter
from readiness.domain.meta import AnswerMeta, Format
from readiness.domain.query import Query, Route
from readiness.domain.select import limited, select
from readiness.domain.tables import (
    HISTORY_FIELDS,
    HISTORY_IDENTITY,
    INDICATOR_COLUMNS,
    MOVER_COLUMNS,
    Record,
    RowsOf,
    catalogue_document,
    history_columns,
    history_rows,
    history_snapshots,
    indicator_rows,
    invalid_history_fields,
    mover_rows,
    valid_report,
)

ROW_BYTES = 490
"""About how many bytes one indicator row serializes to (the sample's global table: 4,991
rows, 2.42 MB): what the compute pool is told a miss costs."""


def _by_code(query: Query) -> Query:
    """``query`` selecting the same countries in Country Code order, the order of the data
    routes' rows: ``select`` then sorts input already in that order, which costs nothing."""
    return query if query.sort == "Country Code" and not query.descending else replace(query, sort="Country Code", descending=False)


def table_body(snapshot_id: str | None, rows: Sequence[Record]) -> bytes:
    """The JSON envelope of a table answer: ``{"apiVersion", "snapshot", "count", "data"}``,
    ``snapshot`` the id the rows come from (the newest, for history)."""
    return orjson.dumps({"apiVersion": API_VERSION, "snapshot": snapshot_id, "count": len(rows), "data": rows})


def compute_indicators(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/indicators``: one row per (economy, indicator) of ``snapshot``, economies by
    Country Code after the code, region, income and FCV filters, details filtered by
    ``indicators``; ``limit`` rows, ``X-Total-Count`` all of them."""
    matched = indicator_rows(snapshot.id, select(snapshot, _by_code(query)), query.indicators)
    rows = limited(matched, query.limit)
    meta = AnswerMeta(query.format, snapshot.id, snapshot.published, len(matched), "indicators")
    if query.format is Format.CSV:
        return Answer.of(to_csv(INDICATOR_COLUMNS, rows), meta)
    return Answer.of(table_body(snapshot.id, rows), meta)


def indicators_cost(snapshot: Snapshot, query: Query) -> int:
    """About how many bytes the indicator table answer will have (never much below it)."""
    economies = len(query.codes) if query.country_mode else len(snapshot.countries)
    per_country = max((len(country.details) for country in snapshot.countries.values()), default=0)
    if query.indicators is not None:
        per_country = min(per_country, len(query.indicators))
    return economies * per_country * ROW_BYTES


def check_history(query: Query) -> None:
    """Raise InvalidParameter when ``fields`` names a field history rows do not have."""
    invalid = invalid_history_fields(query.fields)
    if invalid:
        raise InvalidParameter(
            "fields", ",".join(invalid), "fields history rows have: " + ", ".join(HISTORY_IDENTITY[:2] + HISTORY_FIELDS)
        )


def compute_history(summaries: Sequence[Summary], current_id: str, query: Query, rows_of: RowsOf | None = None) -> Answer:
    """``/api/v1/history``: one row per (economy, snapshot) of every December and the current
    snapshot (``years`` narrows them), oldest first, then by Country Code; each snapshot's own
    values decide the filters. ``snapshot`` and the headers name the newest snapshot shown.
    ``rows_of`` supplies rows built before (``readiness.domain.tables.default_history_rows``)."""
    check_history(query)
    chosen = history_snapshots(summaries, current_id, query.years)
    by_code = _by_code(query)
    selected = [(series, select(series, by_code)) for series in chosen]
    matched = history_rows(selected, history_columns(query.fields), rows_of)
    rows = limited(matched, query.limit)
    newest = chosen[-1] if chosen else None
    meta = AnswerMeta(
        query.format, newest.id if newest else None, newest.published if newest else None, len(matched), "history"
    )
    if query.format is Format.CSV:
        return Answer.of(to_csv(history_columns(query.fields), rows), meta)
    return Answer.of(table_body(newest.id if newest else None, rows), meta)


def compute_catalogue(summaries: Sequence[Summary], current: Snapshot) -> Answer:
    """``/api/v1/snapshots``: the catalogue document (``readiness.domain.tables.catalogue_document``)."""
    document = catalogue_document(summaries, current.id, API_VERSION)
    meta = AnswerMeta(Format.JSON, current.id, current.published, len(summaries))
    return Answer.of(orjson.dumps(document), meta)


def compute_changes(snapshot: Snapshot, raw: bytes, query: Query) -> Answer:
    """``/api/v1/snapshots/{id}/changes``: the change report of ``snapshot`` (the bytes of its
    ``changes.json``) as ``data``, or its movers as CSV rows. Raises ChangeReportNotFound
    when the bytes are not a report of the known format about this snapshot."""
    try:
        report: JsonValue = orjson.loads(raw)
    except orjson.JSONDecodeError:
        report = None
    if not isinstance(report, dict) or not valid_report(report, snapshot.id):
        raise ChangeReportNotFound(snapshot.id, damaged=True)
    if query.format is Format.CSV:
        rows = mover_rows(report)
        meta = AnswerMeta(Format.CSV, snapshot.id, snapshot.published, len(rows), "changes")
        return Answer.of(to_csv(MOVER_COLUMNS, rows), meta)
    meta = AnswerMeta(Format.JSON, snapshot.id, snapshot.published, None, "changes")
    return Answer.of(
        orjson.dumps({"apiVersion": API_VERSION, "snapshot": snapshot.id, "count": 1, "data": report}), meta
    )
