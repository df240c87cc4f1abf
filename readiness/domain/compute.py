"""Every route's answer, computed without any cache: from one snapshot (``/readiness``,
``/indicators``), from every snapshot's summary (``/history``, ``/snapshots``) or from a
change report's bytes (``/snapshots/{id}/changes``). The service caches what these return
(``readiness/service.py``); the warm-up computes the same answers ahead of time.

A new route adds its compute function here, and its cost estimate if its answers are not
priced like ``/readiness`` (docs/ARCHITECTURE.md#adding-a-query-route). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import orjson

from loaders import JsonValue, Snapshot, Summary

from readiness.domain.answer import Answer
from readiness.domain.csv_table import to_csv
from readiness.domain.envelope import API_VERSION, answer_body
from readiness.domain.errors import ChangeReportNotFound, CountryNotFound, InvalidParameter, NotFound
from readiness.domain.meta import AnswerMeta, Format
from readiness.domain.query import PAGED_ROUTES, Query, Route
from readiness.domain.select import columns, limited, missing_codes, project, select
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

RECORD_BYTES = 450
"""About how many bytes one country's record serializes to, without its indicator details
(the sample's 217-economy global answer: 98,192 bytes)."""

DETAILS_BYTES = 7500
"""About how many bytes one country's indicator details add (the sample's one-country
answer for KEN: 7,956 bytes)."""

INDICATOR_ROW_BYTES = 490
"""About how many bytes one indicator row serializes to (the sample's global table: 4,991
rows, 2.42 MB)."""

HISTORY_ROW_BYTES = 220
"""About how many bytes one history row serializes to."""


def answer_meta(
    snapshot: Snapshot, query: Query, download: str, total: int | None, next_page: str | None = None
) -> AnswerMeta:
    """What an answer from ``snapshot`` says in its headers (docs/API.md#headers): the
    query's format, the snapshot's id and publication date, ``total`` rows before ``limit``,
    ``download`` (the route's name) to name a CSV file, and the ``next_page`` URL."""
    return AnswerMeta(query.format, snapshot.id, snapshot.published, total, download, next_page)


def next_page(query: Query, route: Route, shown: int, total: int) -> str | None:
    """The relative URL of the page after the ``shown`` rows ``query`` served on a paged
    route (``PAGED_ROUTES``), while rows remain: the canonical query with ``offset`` advanced
    past them, so the next page's cache key is the canonical one. None on the last page and on
    routes that do not page (the legacy route keeps its headers)."""
    path = PAGED_ROUTES.get(route)
    if path is None or query.offset + shown >= total or not shown:
        return None
    return f"{path}?{replace(query, offset=query.offset + shown).canonical()}"


def table_body(snapshot_id: str | None, rows: Sequence[Record]) -> bytes:
    """The JSON envelope of a table answer: ``{"apiVersion", "snapshot", "count", "data"}``,
    ``snapshot`` the id the rows come from (the newest, for history)."""
    return orjson.dumps({"apiVersion": API_VERSION, "snapshot": snapshot_id, "count": len(rows), "data": rows})


def compute_readiness(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """The answer of ``/api/v1/readiness`` and ``/api/readiness``: JSON or CSV, ``limit`` rows
    of the countries that match after ``offset`` (v1), ``X-Total-Count`` all of them, ``Link``
    the next page while rows remain (v1).

    On the legacy route an unmatched code is an error (docs/DECISIONS.md#the-legacy-route); on
    v1 it only lowers the count (docs/API.md#the-response).
    """
    if route is Route.LEGACY:
        missing = missing_codes(snapshot, query)
        if missing:
            raise CountryNotFound(missing)
    matched = select(snapshot, query)
    rows = project(limited(matched, query.limit, query.offset), query)
    meta = answer_meta(snapshot, query, "readiness", len(matched), next_page(query, route, len(rows), len(matched)))
    if query.format is Format.CSV:
        return Answer.of(to_csv(columns(query), rows), meta)
    label = snapshot.id if query.pinned else "current"
    return Answer.of(answer_body(query, label, rows, len(matched)), meta)


def compute_indicators(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/indicators``: one row per (economy, indicator) of ``snapshot``, economies by
    Country Code after the code, region, income and FCV filters, details filtered by
    ``indicators``; ``limit`` rows, ``X-Total-Count`` all of them."""
    matched = indicator_rows(snapshot.id, select(snapshot, _by_code(query)), query.indicators)
    rows = limited(matched, query.limit, query.offset)
    meta = answer_meta(
        snapshot, query, "indicators", len(matched), next_page(query, route, len(rows), len(matched))
    )
    if query.format is Format.CSV:
        return Answer.of(to_csv(INDICATOR_COLUMNS, rows), meta)
    return Answer.of(table_body(snapshot.id, rows), meta)


Compute = Callable[[Snapshot, Query, Route], Answer]
"""How a route's answer is made from one snapshot and a query."""

COMPUTE: dict[Route, Compute] = {
    Route.V1: compute_readiness,
    Route.LEGACY: compute_readiness,
    Route.INDICATORS: compute_indicators,
}
"""The routes answered from one snapshot, each with its compute function."""


def compute(snapshot: Snapshot, query: Query, route: Route) -> Answer:
    """The answer to ``query`` on ``route`` from one snapshot. Raises NotFound for a route
    not answered from one snapshot (none is served that way)."""
    computer = COMPUTE.get(route)
    if computer is None:
        raise NotFound(f"/{route.value}")
    return computer(snapshot, query, route)


def estimated_bytes(snapshot: Snapshot, query: Query) -> int:
    """About how many bytes the ``/readiness`` answer to ``query`` will have: what computing
    it costs, since serializing, hashing and gzip are linear in bytes. Cheap (no selection,
    no sorting) and never much below the truth: a region filter, ``fields`` and
    ``indicators`` only make answers smaller, and are not counted."""
    if query.country_mode:
        found = sum(1 for code in query.codes if code in snapshot.countries)
        return found * (RECORD_BYTES + DETAILS_BYTES)
    return len(snapshot.countries) * RECORD_BYTES


def indicators_cost(snapshot: Snapshot, query: Query) -> int:
    """About how many bytes the indicator table answer will have (never much below it)."""
    economies = len(query.codes) if query.country_mode else len(snapshot.countries)
    per_country = max((len(country.details) for country in snapshot.countries.values()), default=0)
    if query.indicators is not None:
        per_country = min(per_country, len(query.indicators))
    return economies * per_country * INDICATOR_ROW_BYTES


def cost(snapshot: Snapshot, query: Query, route: Route) -> int:
    """About how many bytes the answer of a route in ``COMPUTE`` will have: how the compute
    pool prices its miss (``readiness/work.py``)."""
    return indicators_cost(snapshot, query) if route is Route.INDICATORS else estimated_bytes(snapshot, query)


def history_cost(summaries: Sequence[Summary]) -> int:
    """About how many bytes the largest history answer over ``summaries`` has."""
    return HISTORY_ROW_BYTES * sum(summary.economies for summary in summaries)


def check_history(query: Query) -> None:
    """Raise InvalidParameter when ``fields`` names a field history rows do not have."""
    invalid = invalid_history_fields(query.fields)
    if invalid:
        raise InvalidParameter(
            "fields", ",".join(invalid), "fields history rows have: " + ", ".join(HISTORY_IDENTITY[:2] + HISTORY_FIELDS)
        )


def compute_history(
    summaries: Sequence[Summary], current_id: str, query: Query, rows_of: RowsOf | None = None
) -> Answer:
    """``/api/v1/history``: one row per (economy, snapshot) of every December and the current
    snapshot (``years`` narrows them), oldest first, then by Country Code; each snapshot's own
    values decide the filters. ``snapshot`` and the headers name the newest snapshot shown.
    ``rows_of`` supplies rows built before (``readiness.domain.tables.default_history_rows``)."""
    check_history(query)
    chosen = history_snapshots(summaries, current_id, query.years)
    by_code = _by_code(query)
    selected = [(series, select(series, by_code)) for series in chosen]
    matched = history_rows(selected, history_columns(query.fields), rows_of)
    rows = limited(matched, query.limit, query.offset)
    newest = chosen[-1] if chosen else None
    meta = AnswerMeta(
        query.format, newest.id if newest else None, newest.published if newest else None, len(matched), "history",
        next_page(query, Route.HISTORY, len(rows), len(matched)),
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


def _by_code(query: Query) -> Query:
    """``query`` selecting the same countries in Country Code order, the order of the data
    routes' rows: ``select`` then sorts input already in that order, which costs nothing."""
    if query.sort == "Country Code" and not query.descending:
        return query
    return replace(query, sort="Country Code", descending=False)
