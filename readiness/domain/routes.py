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
from readiness.domain.movers import COLUMNS, MEASURES, compute_movers, measure, movers_cost, snapshot_id
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
)
from readiness.domain.parameters import (
    INDICATORS as INDICATOR_CODES,
)
from readiness.domain.route import FromReport, FromSnapshots, FromSummaries, Route

_ANY_SNAPSHOT = ("The snapshot `year` or `snapshot` selects is not listed or unavailable (`/api/v1/snapshots` "
                 "lists them).")
_USAGE = ("With no parameters: the all-economies global summary. Every key ending in `confidence` is "
          "removed from the answer.")

V1 = Route(
    "v1", "/api/v1/readiness", COUNTRY_QUERY, FromSnapshots(compute_readiness, readiness_cost),
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
    Grammar((CODE, CODES, REGION, INCOME, FCV, INDICATOR_CODES, YEAR, YEARS, SNAPSHOT, SHAPE, LIMIT, OFFSET, FORMAT)),
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
    Grammar((CODE, CODES, REGION, INCOME, FCV, HISTORY_FIELDS_PARAMETER, YEARS, SHAPE, LIMIT, OFFSET, FORMAT)),
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
    Grammar((BY, REGION, INCOME, FCV, YEAR, AGGREGATE_YEARS, SNAPSHOT, LIMIT, OFFSET, FORMAT)),
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
    )),
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

ROUTES: tuple[Route, ...] = (V1, LEGACY, INDICATORS, HISTORY, AGGREGATES, RANKING_CHANGES, SNAPSHOTS, CHANGES)
"""Every data route, in the order the docs list them."""

EXPLAINED: dict[str, Route] = {route.explained: route for route in ROUTES if route.explained is not None}
"""The routes ``/api/v1/query/{route}`` explains, by the name each declares (``Route.explained``)."""

_BY_NAME: dict[str, Route] = {route.name: route for route in ROUTES}


def named(name: str) -> Route | None:
    """The route whose ``Route.name`` is ``name`` (as cache keys and popularity write it), or None."""
    return _BY_NAME.get(name)
