"""The data routes' answers, computed without any cache: from whole snapshots (``/readiness``,
``/indicators``), from every snapshot's summary (``/history``, ``/aggregates``, ``/snapshots``)
or from a change report's bytes (``/snapshots/{id}/changes``), each with what its miss costs.
The route table (``readiness/domain/routes.py``) names each route's functions; the service
caches what they return (``readiness/service.py``), and the warm-up computes the same answers
ahead of time. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import orjson

from loaders import JsonValue, Snapshot, Summary
from readiness.domain.aggregates import AGGREGATE_COLUMNS, aggregate_rows, aggregate_snapshots
from readiness.domain.answer import Answer
from readiness.domain.csv_table import Provenance, to_csv
from readiness.domain.envelope import API_VERSION, answer_body, page_fields, resolved, with_extras
from readiness.domain.errors import (
    ChangeReportNotFound,
    CountryNotFound,
    InvalidParameter,
    NotFound,
)
from readiness.domain.meta import AnswerMeta, Format
from readiness.domain.parameters import HISTORY_ROW_FIELDS
from readiness.domain.query import Query, Shape
from readiness.domain.route import FromSnapshots, Route
from readiness.domain.select import columns, limited, missing_codes, project, select, unmatched
from readiness.domain.shapes import (
    INDICATOR_LONG_IDENTITY,
    INDICATOR_MEASURES,
    LONG_KEYS,
    TEXT_VALUE,
    long_page,
    text_measures,
)
from readiness.domain.tables import (
    HISTORY_DEFAULT,
    HISTORY_IDENTITY,
    INDICATOR_COLUMNS,
    INDICATOR_KEY,
    MOVER_COLUMNS,
    Record,
    catalogue_document,
    held_history_rows,
    history_columns,
    history_rows,
    indicator_json_rows,
    indicator_rows_between,
    invalid_history_fields,
    listed_snapshots,
    mover_rows,
    snapshots_over_time,
    valid_report,
    with_directions,
)
from readiness.domain.vocabulary import accepted_fields
from readiness.domain.weights import custom_scores

RECORD_BYTES = 450
"""About how many bytes one country's record serializes to, without its indicator details
(the sample's 217-economy global answer: 98,192 bytes)."""

DETAILS_BYTES = 7500
"""About how many bytes one country's indicator details add (the sample's one-country
answer for KEN: 7,956 bytes)."""

INDICATOR_ROW_BYTES = 550
"""About how many bytes one indicator row serializes to (the sample's global table: 4,991
rows, 2.73 MB)."""

HISTORY_ROW_BYTES = 330
"""About how many bytes one history row serializes to (the sample's six snapshots as history:
1,302 rows, 426 KB)."""

LONG_ROW_BYTES = 200
"""About how many bytes one long row (``shape=long``) serializes to: an indicator row gives
four, a default history row eight."""

SCAN_BYTES = 40
"""What selecting one economy of one snapshot and counting its rows costs, in bytes of an
answer that takes as long: what a page of a large table costs beyond its own rows."""

AGGREGATE_ECONOMY_BYTES = 250
"""What aggregating one economy of one snapshot costs, in bytes of a ``/readiness`` answer that
takes as long (the sample's 217 economies by region: about half the time of its global answer,
whose records are 98 KB; docs/PERFORMANCE.md#aggregates-one-snapshots-statistics)."""


def answer_meta(
    snapshot: Snapshot, query: Query, download: str, total: int | None, links: str | None = None
) -> AnswerMeta:
    """What an answer from ``snapshot`` says in its headers (docs/API.md#headers): the
    query's format, the snapshot's id and publication date, ``total`` rows before ``limit``,
    ``download`` (the route's name) to name a CSV file, and the ``links`` to other pages; a synthetic
    snapshot's CSV file name says so."""
    return AnswerMeta(query.format, snapshot.id, snapshot.published, total, download, links, snapshot.synthetic)


def page_links(query: Query, route: Route, shown: int, total: int) -> str | None:
    """The ``Link`` header of the page of ``shown`` rows ``query`` served of ``total`` on a paged
    route (``Route.paged``), as GitHub's API writes it: ``first`` and ``prev`` past the first
    page, ``next`` and ``last`` while rows remain; each the canonical query with ``offset`` moved,
    so every page's cache key is the canonical one (docs/API.md#paging). ``prev`` and ``last``
    count pages of ``limit`` rows from this page's ``offset``, so following ``next`` reaches
    ``last``. None for a page with no other page, and on routes that do not page (the legacy
    route keeps its headers)."""
    if not route.paged:
        return None
    step = query.limit
    links: list[tuple[str, int]] = []
    if query.offset > 0:
        links.append(("first", 0))
        if step is not None:
            links.append(("prev", max(query.offset - step, 0)))
    if shown and query.offset + shown < total:
        links.append(("next", query.offset + shown))
        if step is not None:
            links.append(("last", query.offset + (total - query.offset - 1) // step * step))
    if not links:
        return None
    return ", ".join(f'<{_target(route, replace(query, offset=offset))}>; rel="{rel}"' for rel, offset in links)


def _target(route: Route, query: Query) -> str:
    """The relative URL of ``query``'s answer on ``route``: its path, then its canonical query if any."""
    canonical = query.canonical()
    return f"{route.path}?{canonical}" if canonical else route.path


def table_body(
    snapshot_id: str | None,
    current_id: str,
    rows: Sequence[Record] | Sequence[orjson.Fragment],
    *,
    notice: str | None,
    unmatched: Mapping[str, JsonValue] | None = None,
    paging: Mapping[str, int] | None = None,
) -> bytes:
    """The JSON envelope of a table answer: ``{"apiVersion", "snapshot", "snapshot_id", "current",
    "count", "data"}``, ``snapshot`` the id the rows come from (the newest, for history), the same
    id and whether it is ``current_id`` (``envelope.resolved``), then ``paging``
    (``envelope.page_fields``, on a paged route), ``unmatched`` (what
    the query named that matched nothing) and ``notice`` when there is one
    (docs/API.md#the-response). ``notice`` is the manifest's of the snapshot the rows come from,
    required so that no table route forgets it."""
    body: dict[str, object] = {
        "apiVersion": API_VERSION, "snapshot": snapshot_id, **resolved(snapshot_id, current_id), "count": len(rows),
        "data": rows,
    }
    return orjson.dumps(with_extras(body, notice, unmatched, paging))


def provenance_of(snapshots: Sequence[Snapshot]) -> Provenance:
    """The provenance of a CSV over ``snapshots``, whose rows name theirs in ``snapshot``
    (docs/API.md#csv): each row's id, and its snapshot's notice."""
    notices = {snapshot.id: snapshot.notice for snapshot in snapshots if snapshot.notice is not None}
    return Provenance(notices=notices)


def compute_readiness(snapshots: Sequence[Snapshot], current_id: str, query: Query, route: Route) -> Answer:
    """The answer of ``/api/v1/readiness`` and ``/api/readiness`` from the one snapshot the query
    chooses (these routes take no ``years``), ``current_id`` the current snapshot's: JSON or CSV,
    ``limit`` rows of the countries that match after ``offset`` (v1), ``X-Total-Count`` all of
    them, ``Link`` the next page while rows remain (v1).

    On the legacy route (``Route.deprecated``) an unmatched code is an error
    (docs/DECISIONS.md#the-legacy-route) and the answer is as it always was; on v1 it lowers the
    count and is named in ``unmatched``, and the manifest's ``notice`` travels with the data
    (docs/API.md#the-response).
    """
    snapshot = snapshots[-1]
    legacy = route.deprecated
    if legacy:
        missing = missing_codes(snapshot, query)
        if missing:
            raise CountryNotFound(missing)
    # Ranked among every economy of the snapshot, whatever the filters keep (as Global Rank is).
    custom = custom_scores(snapshot.countries.values(), query.weights) if query.weights is not None else None
    matched = select(snapshot, query, custom)
    rows = project(limited(matched, query.limit, query.offset), query, custom)
    meta = answer_meta(snapshot, query, "readiness", len(matched), page_links(query, route, len(rows), len(matched)))
    if legacy:
        meta = replace(meta, synthetic=False)  # the legacy download keeps its name
    if query.format is Format.CSV:  # the legacy download keeps its columns; v1 rows say their snapshot
        provenance = None if legacy else Provenance.of(snapshot.id, snapshot.notice)
        return Answer.of(to_csv(columns(query), rows, provenance), meta)
    label = snapshot.id if query.pinned else "current"
    if legacy:
        return Answer.of(answer_body(query, label, rows, len(matched)), meta)
    return Answer.of(
        answer_body(
            query, label, rows, len(matched), notice=snapshot.notice, unmatched=unmatched([snapshot], query),
            identity=resolved(snapshot.id, current_id), paging=page_fields(query, len(matched)),
        ),
        meta,
    )


def compute_indicators(snapshots: Sequence[Snapshot], current_id: str, query: Query, route: Route) -> Answer:
    """``/api/v1/indicators``: one row per (economy, indicator) of each snapshot (one, or with
    ``years`` every December and the current snapshot in the range, oldest first), economies by
    Country Code after the code, region, income and FCV filters, details filtered by
    ``indicators``, the ``snapshot`` column saying which; ``limit`` rows, ``X-Total-Count`` all of
    them; ``shape=long``: one row per measure of those (``readiness.domain.shapes``). The
    envelope's ``snapshot`` and the headers name the newest, ``notice`` is the newest notice
    among them, ``unmatched`` what none of them has."""
    by_code = _by_code(query)
    newest = snapshots[-1]
    notice = next((snapshot.notice for snapshot in reversed(snapshots) if snapshot.notice is not None), None)
    # One snapshot's table in JSON: its rows' JSON, serialized once per economy (the costly
    # misses). Not over years: their snapshots would not fit what is held, nor pay for it.
    if len(snapshots) == 1 and query.format is Format.JSON and query.shape is not Shape.LONG and query.fields is None:
        serialized = indicator_json_rows(newest.id, select(newest, by_code), query.indicators)
        page = limited(serialized, query.limit, query.offset)
        meta = _indicator_meta(snapshots, query, route, len(page), len(serialized))
        return Answer.of(table_body(newest.id, current_id, page, notice=notice, unmatched=unmatched(snapshots, query),
                                    paging=page_fields(query, len(serialized))), meta)
    rows, total, table_columns = _indicator_page(snapshots, by_code, query)
    meta = _indicator_meta(snapshots, query, route, len(rows), total)
    if query.format is Format.CSV:
        return Answer.of(to_csv(table_columns, rows, provenance_of(snapshots)), meta)
    return Answer.of(table_body(newest.id, current_id, rows, notice=notice, unmatched=unmatched(snapshots, query),
                                paging=page_fields(query, total)), meta)


def _indicator_page(
    snapshots: Sequence[Snapshot], by_code: Query, query: Query
) -> tuple[Sequence[Record], int, tuple[str, ...]]:
    """``_shaped`` for the indicator table over ``snapshots``, building only the wide rows the
    page covers (``indicator_rows_between``): a page of a table over years costs its rows."""
    identity, measures, wide = indicator_layout(query)
    per_row = len(measures) if query.shape is Shape.LONG else 1
    first = query.offset // per_row
    last = None if query.limit is None else -(-(query.offset + query.limit) // per_row)
    window: list[Record] = []
    wide_total = 0
    for snapshot in snapshots:
        rows, count = indicator_rows_between(
            snapshot.id, select(snapshot, by_code), query.indicators,
            first - wide_total, None if last is None else last - wide_total,
        )
        window += rows
        wide_total += count
    if query.shape is Shape.LONG:
        skipped = query.offset - first * per_row
        page = long_page(window, identity, measures, skipped, query.limit)
        return page, wide_total * per_row, (*identity, *LONG_KEYS)
    if query.fields is not None:
        window = [{column: row.get(column) for column in wide} for row in window]
    return window, wide_total, wide


def indicator_layout(query: Query) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The indicator table's columns for ``query``: the long rows' identity and measures, and the
    wide rows' columns. ``fields`` keeps the columns it names besides the key (``INDICATOR_KEY``);
    in long shape, the identity columns it names and the measures it names (every measure when it
    names none)."""
    if query.fields is None:
        return INDICATOR_LONG_IDENTITY, INDICATOR_MEASURES, INDICATOR_COLUMNS
    kept = set(query.fields) | set(INDICATOR_KEY)
    measures = tuple(measure for measure in INDICATOR_MEASURES if measure in kept) or INDICATOR_MEASURES
    return (tuple(column for column in INDICATOR_LONG_IDENTITY if column in kept), measures,
            tuple(column for column in INDICATOR_COLUMNS if column in kept))


def _indicator_meta(snapshots: Sequence[Snapshot], query: Query, route: Route, shown: int, total: int) -> AnswerMeta:
    meta = answer_meta(snapshots[-1], query, "indicators", total, page_links(query, route, shown, total))
    if any(snapshot.synthetic for snapshot in snapshots) and not meta.synthetic:
        meta = replace(meta, synthetic=True)
    return meta


def _shaped(
    matched: Sequence[Record], query: Query, wide: Sequence[str], identity: Sequence[str], measures: Sequence[str]
) -> tuple[Sequence[Record], int, tuple[str, ...]]:
    """The page ``query`` asks for of the wide rows ``matched`` (keys ``wide``), in its shape: the
    rows, how many the whole answer has (``X-Total-Count``) and their columns. ``shape=long``
    lays out one row per measure of ``measures``, keeping the ``identity`` keys, a text or
    true/false measure's value in ``text_value`` (a column only then: ``shapes.long_page``);
    ``limit`` and ``offset`` then count long rows."""
    if query.shape is Shape.LONG:
        text = text_measures(measures)
        rows = long_page(matched, identity, measures, query.offset, query.limit, text)
        return rows, len(matched) * len(measures), (*identity, *LONG_KEYS, *((TEXT_VALUE,) if text else ()))
    return limited(matched, query.limit, query.offset), len(matched), tuple(wide)


def compute(snapshot: Snapshot, query: Query, route: Route, current_id: str | None = None) -> Answer:
    """The answer to ``query`` on a route answered from snapshots (``FromSnapshots``), from
    ``snapshot`` alone while ``current_id`` is the current snapshot (None: ``snapshot`` is, unless
    the query pins it): what the warm-up and the tools compute. Raises NotFound for a route
    answered otherwise."""
    if not isinstance(route.source, FromSnapshots):
        raise NotFound(route.path)
    if current_id is None:
        current_id = "" if query.pinned else snapshot.id
    return route.source.compute([snapshot], current_id, query, route)


def readiness_cost(snapshots: Sequence[Snapshot], query: Query) -> int:
    """What a ``/readiness`` miss costs: ``estimated_bytes`` of its snapshot."""
    return sum(estimated_bytes(snapshot, query) for snapshot in snapshots)


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
    """About how many bytes the indicator table answer from ``snapshot`` will have (never much
    below it), and what finding its page's rows costs (``indicators_total_cost``)."""
    return indicators_total_cost([snapshot], query)


def indicators_total_cost(snapshots: Sequence[Snapshot], query: Query) -> int:
    """What an indicator table miss costs: the page's rows (only those are built:
    ``tables.indicator_rows_between``; never much below their bytes) and counting every
    selected economy's rows in each snapshot it reads."""
    per_row = len(indicator_layout(query)[1]) if query.shape is Shape.LONG else 1
    rows = economies = 0
    for snapshot in snapshots:
        selected = len(query.codes) if query.country_mode else len(snapshot.countries)
        per_country = max((len(country.details) for country in snapshot.countries.values()), default=0)
        if query.indicators is not None:
            per_country = min(per_country, len(query.indicators))
        rows += selected * per_country * per_row
        economies += selected
    row_bytes = LONG_ROW_BYTES if query.shape is Shape.LONG else INDICATOR_ROW_BYTES
    return page_rows(rows, query) * row_bytes + economies * SCAN_BYTES


def history_cost(summaries: Sequence[Summary], current: Snapshot, query: Query) -> int:
    """About how many bytes the largest history answer over ``summaries`` has, in the query's
    shape (a long one: a row per value of the default row), for the page asked for, and
    scanning every economy of every snapshot (their rows are built once and held:
    ``tables.held_history_rows``). Raises InvalidParameter for ``fields`` history rows lack
    (``check_history``), before any work is admitted."""
    check_history(query)
    if query.snapshots:
        summaries = [summary for summary in summaries if summary.id in query.snapshots]
        listed_snapshots(summaries, query.snapshots)
    per_row = len(HISTORY_DEFAULT) if query.shape is Shape.LONG else 1
    economies = sum(min(len(query.codes), summary.economies) if query.country_mode else summary.economies
                    for summary in summaries)
    row_bytes = LONG_ROW_BYTES if query.shape is Shape.LONG else HISTORY_ROW_BYTES
    return page_rows(economies * per_row, query) * row_bytes + economies * SCAN_BYTES


def page_rows(rows: int, query: Query) -> int:
    """How many of ``rows`` the page ``query`` asks for (``offset``, ``limit``) shows."""
    after = max(rows - query.offset, 0)
    return after if query.limit is None else min(query.limit, after)


def check_history(query: Query) -> None:
    """Raise InvalidParameter when ``fields`` names a field history rows do not have, listing
    them as the parser does (a parsed query never gets here: ``Query.parse`` refuses them first)."""
    invalid = invalid_history_fields(query.fields)
    if invalid:
        raise InvalidParameter("fields", ",".join(invalid), accepted_fields(HISTORY_ROW_FIELDS))


def compute_history(summaries: Sequence[Summary], current: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/history``: one row per (economy, snapshot) of every December and the current
    snapshot (``years`` narrows them), oldest first, then by Country Code; each snapshot's own
    values decide the filters. ``snapshot`` and the headers name the newest snapshot shown,
    ``notice`` is the newest notice among them, ``unmatched`` the codes none of them has. The
    default rows of each series are built once and shared (``tables.held_history_rows``).
    Raises NoSnapshotInYears when ``years`` selects no snapshot."""
    check_history(query)
    chosen = history_chosen(summaries, current, query)
    by_code = _by_code(query)
    selected = [(series, select(series, by_code)) for series in chosen]
    wide = history_columns(query.fields)
    matched = history_rows(selected, wide, held_history_rows)
    values = [name for name in wide if name not in HISTORY_IDENTITY]
    rows, total, table_columns = _shaped(matched, query, wide, HISTORY_IDENTITY, values)
    newest = chosen[-1] if chosen else None
    meta = AnswerMeta(
        query.format, newest.id if newest else None, newest.published if newest else None, total, "history",
        page_links(query, route, len(rows), total), any(series.synthetic for series in chosen),
    )
    if query.format is Format.CSV:
        return Answer.of(to_csv(table_columns, rows, provenance_of(chosen)), meta)
    notice = next((series.notice for series in reversed(chosen) if series.notice is not None), None)
    return Answer.of(
        table_body(newest.id if newest else None, current.id, rows, notice=notice, unmatched=unmatched(chosen, query),
                   paging=page_fields(query, total)),
        meta,
    )


def history_chosen(summaries: Sequence[Summary], current: Snapshot, query: Query) -> list[Snapshot]:
    """The series history shows: those ``snapshot`` lists, else those of ``years`` and ``mrv``
    (every December and the current snapshot by default). Raises SnapshotNotFound or
    NoSnapshotInYears when they select none."""
    if query.snapshots:
        return listed_snapshots(summaries, query.snapshots)
    return snapshots_over_time(summaries, current.id, query.years, query.recent)


def aggregates_cost(summaries: Sequence[Summary], current: Snapshot, query: Query) -> int:
    """About what computing the aggregates answer to ``query`` costs, in bytes of a ``/readiness``
    answer that takes as long (AGGREGATE_ECONOMY_BYTES per economy scanned). Raises like
    ``aggregate_snapshots`` when the query selects no snapshot: before any work is admitted."""
    chosen = aggregate_snapshots(summaries, current.id, query)
    return AGGREGATE_ECONOMY_BYTES * sum(len(series.countries) for series in chosen)


def compute_aggregates(summaries: Sequence[Summary], current: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/aggregates``: per snapshot (the current one, or those ``year``, ``snapshot`` or
    ``years`` choose), group (``by``) and score, the statistics of the economies that pass the
    region, income and FCV filters (``readiness.domain.aggregates``). ``snapshot``, the headers
    and ``notice`` are the newest snapshot's; ``limit`` rows after ``offset``, ``X-Total-Count``
    all of them, ``Link`` the next page while rows remain. Raises ArchiveNotFound,
    SnapshotNotFound or NoSnapshotInYears when the query selects no snapshot."""
    chosen = aggregate_snapshots(summaries, current.id, query)
    filters = _by_code(query)
    matched = aggregate_rows([(series, select(series, filters)) for series in chosen], query.by)
    rows = limited(matched, query.limit, query.offset)
    newest = chosen[-1]
    meta = AnswerMeta(query.format, newest.id, newest.published, len(matched), "aggregates",
                      page_links(query, route, len(rows), len(matched)),
                      synthetic=any(series.synthetic for series in chosen))
    if query.format is Format.CSV:
        return Answer.of(to_csv(AGGREGATE_COLUMNS, rows, provenance_of(chosen)), meta)
    notice = next((series.notice for series in reversed(chosen) if series.notice is not None), None)
    return Answer.of(table_body(newest.id, current.id, rows, notice=notice, paging=page_fields(query, len(matched))),
                     meta)


def catalogue_cost(summaries: Sequence[Summary], current: Snapshot, query: Query) -> int:
    """What a catalogue miss costs: nothing worth pricing (a few hundred bytes per snapshot)."""
    return 0


def compute_catalogue(summaries: Sequence[Summary], current: Snapshot, query: Query, route: Route) -> Answer:
    """``/api/v1/snapshots``: the catalogue document (``readiness.domain.tables.catalogue_document``)."""
    document = catalogue_document(summaries, current.id, API_VERSION)
    meta = AnswerMeta(Format.JSON, current.id, current.published, len(summaries), synthetic=current.synthetic)
    return Answer.of(orjson.dumps(document), meta)


def compute_changes(snapshot: Snapshot, current_id: str, raw: bytes, query: Query, route: Route) -> Answer:
    """``/api/v1/snapshots/{id}/changes``: the change report of ``snapshot`` (the bytes of its
    ``changes.json``) as ``data`` (with the snapshot's ``notice``, and whether it is
    ``current_id``), or its movers as CSV rows.
    Raises ChangeReportNotFound when the bytes are not a report of the known format about this
    snapshot."""
    try:
        report: JsonValue = orjson.loads(raw)
    except orjson.JSONDecodeError:
        report = None
    if not isinstance(report, dict) or not valid_report(report, snapshot.id):
        raise ChangeReportNotFound(snapshot.id, damaged=True)
    if query.format is Format.CSV:
        rows = mover_rows(report)
        meta = AnswerMeta(Format.CSV, snapshot.id, snapshot.published, len(rows), "changes", None, snapshot.synthetic)
        return Answer.of(to_csv(MOVER_COLUMNS, rows, Provenance.of(snapshot.id, snapshot.notice)), meta)
    meta = AnswerMeta(Format.JSON, snapshot.id, snapshot.published, None, "changes", None, snapshot.synthetic)
    body: dict[str, object] = {
        "apiVersion": API_VERSION, "snapshot": snapshot.id, **resolved(snapshot.id, current_id), "count": 1,
        "data": with_directions(report),
    }
    return Answer.of(orjson.dumps(with_extras(body, snapshot.notice)), meta)


def _by_code(query: Query) -> Query:
    """``query`` selecting the same countries in Country Code order, the order of the data
    routes' rows: ``select`` then sorts input already in that order, which costs nothing."""
    if query.sort == "Country Code" and not query.descending:
        return query
    return replace(query, sort="Country Code", descending=False)
