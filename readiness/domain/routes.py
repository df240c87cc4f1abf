"""The route table: every data route, declared once (docs/ARCHITECTURE.md#adding-a-route).

Each entry says where the route is (``path``), what its query string may say (its grammar, made
of the declarations in ``readiness/domain/parameters.py``, plus any parameter only it reads),
what its answers are computed from and how (``source``: its compute and cost functions), and
what the docs say of it. From this table come the Tornado URL table (``readiness/app.py``), the
parser's accepted names, the service's dispatch (``readiness/service.py``), the OpenAPI
operations (``readiness/http/openapi.py``), the routes ``/api/v1/query/{route}`` explains and
the edge's names and fast path (``make edge-routes``: ``readiness/edge_routes.py``). Pure: no I/O.
"""

from __future__ import annotations

from readiness.domain.aliases import COUNTRY_ALIASES, PAGING_ALIASES, TIME_ALIASES
from readiness.domain.compute import (
    aggregates_cost,
    catalogue_cost,
    compute_aggregates,
    compute_catalogue,
    compute_changes,
    compute_history,
    compute_indicators,
    compute_readiness,
    history_cost,
    indicators_total_cost,
    readiness_cost,
)
from readiness.domain.meta import Format
from readiness.domain.movers import COLUMNS, MEASURES, compute_movers, measure, movers_cost, snapshot_id
from readiness.domain.package import (
    TABLES,
    TableFile,
    compute_datapackage,
    compute_package,
    files_cost,
)
from readiness.domain.parameters import (
    AGGREGATE_YEARS,
    ANY_CASE,
    BY,
    CODE,
    CODES,
    COUNTRY_QUERY,
    FCV,
    FORMAT,
    HISTORY_FIELDS_PARAMETER,
    HISTORY_SNAPSHOTS,
    INCOME,
    LEGACY_LIMIT,
    LEVEL,
    LIMIT,
    OFFSET,
    ORDER,
    READINESS_CODE,
    READINESS_CODES,
    READINESS_FIELDS,
    READINESS_FORMAT,
    READINESS_INDICATORS,
    RECENT,
    REGION,
    SHAPE,
    SHORTNAMES,
    SNAPSHOT,
    SNAPSHOT_ANY,
    SORT,
    YEAR,
    YEARS,
    Grammar,
    Parameter,
    indicator_fields,
)
from readiness.domain.parameters import (
    INDICATORS as INDICATOR_CODES,
)
from readiness.domain.route import FromFiles, FromReport, FromSnapshots, FromSummaries, Route
from readiness.domain.tables import INDICATOR_COLUMNS, INDICATOR_KEY

_ANY_SNAPSHOT = ("The snapshot `year` or `snapshot` selects is not listed or unavailable (`/api/v1/snapshots` "
                 "lists them).")
_USAGE = ("With no parameters: the all-economies global summary. Every key ending in `confidence` is "
          "removed from the answer.")

V1 = Route(
    "v1", "/api/v1/readiness", Grammar(COUNTRY_QUERY.parameters, aliases=(*COUNTRY_ALIASES, *PAGING_ALIASES)),
    FromSnapshots(compute_readiness, readiness_cost),
    operation="Readiness", summary="Query the readiness index", description=_USAGE, schema="Envelope",
    not_found=_ANY_SNAPSHOT, explained="readiness",
)
LEGACY = Route(
    "legacy", "/api/readiness",
    Grammar((READINESS_CODE, READINESS_CODES, LEVEL, REGION, INCOME, FCV, YEAR, SORT, ORDER, READINESS_FIELDS,
             SHORTNAMES, READINESS_INDICATORS, LEGACY_LIMIT, READINESS_FORMAT), strict=False),
    FromSnapshots(compute_readiness, readiness_cost),
    operation="ReadinessLegacy", summary="Query the readiness index (deprecated route)",
    description=_USAGE + (
        " Deprecated from 2027-01-01: use `/api/v1/readiness`. Same parameters and bodies as v1, except that "
        "unknown parameter names are ignored and a code matching nothing gives 404 "
        '`{"error": "Country code not found: XYZ"}` without `apiVersion`.'),
    schema="Envelope",
    not_found=("The year's December archive is unavailable (`/api/v1/snapshots` lists them). Or a code matches "
               "no economy."),
    deprecated=True,
)
INDICATORS = Route(
    "indicators", "/api/v1/indicators",
    Grammar((CODE, CODES, REGION, INCOME, FCV, INDICATOR_CODES, YEAR, YEARS, RECENT, SNAPSHOT,
             indicator_fields(INDICATOR_COLUMNS, INDICATOR_KEY), SHAPE, LIMIT, OFFSET, FORMAT),
            aliases=(*COUNTRY_ALIASES, *PAGING_ALIASES, *TIME_ALIASES)),
    FromSnapshots(compute_indicators, indicators_total_cost),
    operation="Indicators", summary="The indicator values as one long table",
    description=("One row per economy and indicator of one snapshot, ordered by `Country Code`, then the "
                 "economy's indicator order. With no parameters: every indicator of every economy of the "
                 "current snapshot. With `years`: the rows of every December archive and the current snapshot "
                 "in the range, oldest snapshot first. With `shape=long`: one row per numeric measure "
                 "(`reported_value`, `normalized_value`, `global_percentile_value`, "
                 "`regional_percentile_value`)."),
    schema="IndicatorTable", not_found=f"{_ANY_SNAPSHOT} Or `years` selects no snapshot.", explained="indicators",
)
HISTORY = Route(
    "history", "/api/v1/history",
    Grammar((CODE, CODES, REGION, INCOME, FCV, HISTORY_FIELDS_PARAMETER, YEARS, RECENT, HISTORY_SNAPSHOTS, SHAPE,
             LIMIT, OFFSET, FORMAT),
            aliases=(*COUNTRY_ALIASES, *PAGING_ALIASES, *TIME_ALIASES)),
    FromSummaries(compute_history, history_cost),
    operation="History", summary="Scores and ranks across snapshots",
    description=("One row per economy and snapshot, oldest snapshot first, then by `Country Code`. Snapshots: "
                 "every December archive and the current one. Filters apply to each row's own snapshot; an "
                 "economy absent from a snapshot has no row for it. Each row names its snapshot, its year and its "
                 "publication date. With `shape=long`: one row per value (`measure`, `value`)."),
    schema="History",
    not_found=("`years` selects no snapshot history shows: the message names the years that have one "
               "(`/api/v1/snapshots` lists them)."),
    explained="history",
)
AGGREGATES = Route(
    "aggregates", "/api/v1/aggregates",
    Grammar((BY, REGION, INCOME, FCV, YEAR, AGGREGATE_YEARS, RECENT, SNAPSHOT, LIMIT, OFFSET, FORMAT),
            aliases=(*PAGING_ALIASES, *TIME_ALIASES)),
    FromSummaries(compute_aggregates, aggregates_cost),
    operation="Aggregates", summary="Summary statistics of the scores by group",
    description=("Per snapshot, group of economies (`by`) and score (the composite, then the five dimension "
                 "scores): `count` (economies with a value), `mean`, `median`, `min`, `max`, `p25` and `p75` "
                 "(linear interpolation between the closest ranks, as pandas and numpy compute them), rounded to "
                 "two decimals like the scores. Nulls are left out; microstates count (they have scores, they are "
                 "only unranked). `region`, `income` and `fcv` filter the economies before grouping. Default: the "
                 "current snapshot; `years` takes every December and the current snapshot in range, as history "
                 "does."),
    schema="Aggregates",
    not_found="`year`, `snapshot` or `years` selects no snapshot (`/api/v1/snapshots` lists them).",
    explained="aggregates",
)
SNAPSHOTS = Route(
    "snapshots", "/api/v1/snapshots", Grammar(), FromSummaries(compute_catalogue, catalogue_cost),
    operation="Snapshots", summary="What data exists",
    description=("Every snapshot (id, year and month, whether it is current, whether `year=` selects it, "
                 "publication date, economies, ranked economies, synthetic flag and notice, link to its change "
                 "report), the indicator catalogue and the current snapshot's citation. JSON only."),
    schema="Catalogue", tag="catalogue",
)
CHANGES = Route(
    "changes", "/api/v1/snapshots/{id}/changes", Grammar((FORMAT,)), FromReport(compute_changes),
    operation="Changes", summary="The change report of a snapshot",
    description=("What changed against the snapshot published before it: economies added and removed, the "
                 "largest score moves, changed values. CSV: its movers table."),
    schema="Changes", not_found="The snapshot is unknown or has no change report.", tag="catalogue",
)
RANKING_CHANGES = Route(
    "rankings-changes", "/api/v1/rankings/changes",
    Grammar((
        Parameter("from", "The earlier snapshot, an id `YYYY-MM` that `/api/v1/snapshots` lists. Default: the "
                  "snapshot listed just before `to`.", pattern=SNAPSHOT_ANY, read=snapshot_id("from")),
        Parameter("to", "The later snapshot, an id `YYYY-MM` that `/api/v1/snapshots` lists. Default: the current "
                  "snapshot.", pattern=SNAPSHOT_ANY, read=snapshot_id("to")),
        CODE, CODES, REGION, INCOME, FCV,
        Parameter("measure", "Orders the movers by the size of the change of the composite score (`score`, "
                  "default) or of the global rank (`rank`), largest first; ties by `Country Code`." + ANY_CASE,
                  choices=MEASURES, default="score", read=measure),
        LIMIT, OFFSET, FORMAT,
    ), aliases=(*COUNTRY_ALIASES, *PAGING_ALIASES)),
    FromSummaries(compute_movers, movers_cost),
    operation="RankingChanges", summary="Rank and score movers between two snapshots",
    description=("One row per economy present in both snapshots: its composite score and global rank in each, "
                 "the change and its direction in words (`up`, `down` or `same` for the score; `better`, "
                 "`worse` or `same` for the rank, whose smaller number is better), the largest move first. "
                 "Any two listed snapshots: by default the current one against the one listed before it. "
                 "`region`, `income` and `fcv` filter by the economy's groups in `to`."),
    schema="RankingChangesTable", rows=COLUMNS,
    not_found="`from` or `to` is not a snapshot `/api/v1/snapshots` lists.",
    explained="rankings/changes",
)

_FILES_NOT_FOUND = ("`{id}` is not a snapshot `/api/v1/snapshots` lists (nor `current`), or its files cannot be "
                    "read now.")
_FILE_FORMATS = {Format.CSV: "CSV", Format.PARQUET: "Parquet"}
DATAPACKAGE = Route(
    "datapackage", "/api/v1/snapshots/{id}/datapackage.json", Grammar(),
    FromFiles(compute_datapackage, files_cost, Format.JSON),
    operation="SnapshotDataPackage", summary="The metadata of a snapshot's downloads",
    description=("A Frictionless Data Package descriptor of the snapshot's bulk files: title, snapshot, "
                 "publication date, sources, citation, licence and notice, and each table's columns with their "
                 "type, meaning and unit. Its CSV paths resolve to the CSV routes beside it. `{id}`: a listed "
                 "snapshot id or `current`."),
    schema="DataPackage", not_found=_FILES_NOT_FOUND, tag="downloads",
)
PACKAGE = Route(
    "package", "/api/v1/snapshots/{id}/package.zip", Grammar(),
    FromFiles(compute_package, files_cost, Format.ZIP),
    operation="SnapshotPackage", summary="A snapshot's bulk package (zip)",
    description=("A zip of the snapshot's tables as CSV, its `datapackage.json` and a README that starts with "
                 "the snapshot's notice. Byte ranges are answered (`Range`, `If-Range`). `{id}`: a listed "
                 "snapshot id or `current`."),
    schema="File", not_found=_FILES_NOT_FOUND, tag="downloads",
)
TABLE_FILES: tuple[Route, ...] = tuple(
    Route(
        f"{table.name}-{file_format.value}", f"/api/v1/snapshots/{{id}}/{table.name}.{file_format.value}", Grammar(),
        FromFiles(TableFile(table, file_format), files_cost, file_format),
        operation=f"Snapshot{table.name.title()}{file_format.value.title()}",
        summary=f"A snapshot's {table.name} table as {_FILE_FORMATS[file_format]}",
        description=(f"{table.description} Every row of the snapshot, every column, each row ending with "
                     "`snapshot_id` (and `notice` where the snapshot has one)."
                     + (" Typed columns; each field's metadata holds its description and unit, the file's "
                        "the snapshot's id, notice and citation. Byte ranges are answered (`Range`, `If-Range`), "
                        "so Parquet readers fetch only what they need over HTTP."
                        if file_format is Format.PARQUET else "")
                     + " `{id}`: a listed snapshot id or `current`."),
        schema="File", not_found=_FILES_NOT_FOUND, tag="downloads",
    )
    for table in TABLES for file_format in _FILE_FORMATS
)
"""Each table of a snapshot's bulk files (``readiness.domain.package.TABLES``) as CSV and as Parquet."""

ROUTES: tuple[Route, ...] = (V1, LEGACY, INDICATORS, HISTORY, AGGREGATES, RANKING_CHANGES, SNAPSHOTS, CHANGES,
                             DATAPACKAGE, PACKAGE, *TABLE_FILES)
"""Every data route, in the order the docs list them."""

EXPLAINED: dict[str, Route] = {route.explained: route for route in ROUTES if route.explained is not None}
"""The routes ``/api/v1/query/{route}`` explains, by the name each declares (``Route.explained``)."""

_BY_NAME: dict[str, Route] = {route.name: route for route in ROUTES}


def named(name: str) -> Route | None:
    """The route whose ``Route.name`` is ``name`` (as cache keys and popularity write it), or None."""
    return _BY_NAME.get(name)
