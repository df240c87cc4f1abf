"""The response headers and body schemas of the OpenAPI document (docs/API.md).

Field names and schemas come from ``loaders`` (COUNTRY_FIELDS, INDICATOR_FIELDS, REGION_SHORT)
and aliases from ``readiness.domain.vocabulary``, so no name has a second copy here. Descriptions are
Markdown: names in backticks, no angle brackets (Redoc renders ``<year>`` as an HTML tag).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence

from loaders import (
    CATALOGUE_KEYS,
    COUNTRY_FIELDS,
    DETAILS,
    FIELD_BY_NAME,
    INDICATOR_FIELDS,
    REGION_SHORT,
    REQUIRED_INDICATOR_FIELDS,
    JsonValue,
)
from readiness.domain.aggregates import AGGREGATE_COLUMNS, GROUP_ORDER, MEASURES, STATISTICS, UNCLASSIFIED
from readiness.domain.columns import INDICATOR_DESCRIPTIONS
from readiness.domain.envelope import API_VERSION
from readiness.domain.parameters import DIMENSION_KEYS
from readiness.domain.routes import EXPLAINED
from readiness.domain.shapes import HISTORY_LONG_COLUMNS, INDICATOR_MEASURES, LONG_KEYS, TEXT_VALUE
from readiness.domain.tables import HISTORY_FIELDS, INDICATOR_KEY, MOVER_COLUMNS, OBSERVED_YEAR
from readiness.domain.vocabulary import CUSTOM_RANK, CUSTOM_SCORE, FIELD_ALIASES
from readiness.http.representation import DEPRECATION, SUCCESSOR_LINK

Json = dict[str, JsonValue]

SNAPSHOT_ID = "^[0-9]{4}-(?:0[1-9]|1[0-2])$"
"""A snapshot id, ``YYYY-MM`` (docs/DATA.md)."""

NOTICE: Json = {"type": "string", "description": (
    "What the manifest of the snapshot the data comes from says about it (the bundled sample: that it is "
    "synthetic and must not be cited); history: the newest notice among the snapshots shown. Absent when "
    "the manifest has none; never on the legacy route. Always the last member.")}
"""The ``notice`` member of every v1 envelope (docs/API.md#the-response)."""


def resolved_members(nullable: bool = False) -> Json:
    """``snapshot_id`` and ``current``, which every v1 envelope carries after ``snapshot``
    (``readiness.domain.envelope.resolved``, docs/API.md#one-year-one-snapshot-id); ``nullable``:
    an answer that may show no snapshot (history with none)."""
    return {
        "snapshot_id": {"type": ["string", "null"] if nullable else "string", "pattern": SNAPSHOT_ID,
                        "description": ("The id of the snapshot the answer comes from (history: the newest shown), "
                                        "never `current`: the same member on every v1 route.")},
        "current": {"type": "boolean", "description": (
            "Whether that snapshot is the current one. An answer pinned with `year` or `snapshot` says `false` "
            "once a newer snapshot is published.")},
    }


UNMATCHED: Json = {
    "type": "object",
    "description": ("What the request named that matched nothing, so nothing is silently dropped: `codes` no "
                    "economy of the snapshot (history: of any snapshot shown) has, `indicators` no "
                    "`indicator_details` element of the snapshot has. Only the keys with entries; absent when "
                    "everything matched. A code left out by `region`, `income` or `fcv` is not unmatched. Never on the "
                    "legacy route, which answers 404 for an unknown code."),
    "minProperties": 1,
    "additionalProperties": False,
    "properties": {
        "codes": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "indicators": {"type": "array", "minItems": 1, "items": {"type": "string"}},
    },
}
"""The ``unmatched`` member of the v1 readiness, indicators and history envelopes (docs/API.md#the-response)."""




def ref(kind: str, name: str) -> Json:
    """A local reference to ``#/components/<kind>/<name>``."""
    return {"$ref": f"#/components/{kind}/{name}"}


_PAGE_LINK = '</api/v1(?:/[a-z]+)+(?:\\?[A-Za-z0-9_.~%,:=&-]+)?>; rel="(?:first|prev|next|last)"'
"""One link of a page's ``Link`` header (``readiness.domain.meta.PAGE_LINKS``)."""


def headers() -> Json:
    """The response headers (docs/API.md#headers; docs/CACHING.md#http-caching)."""

    def header(text: str, schema: Json, required: bool = True) -> Json:
        return {"description": text, "required": required, "schema": schema}

    return {
        "ETag": header("Strong `ETag` of the representation sent (the gzip one ends in `-gz`); send it "
                       "back in `If-None-Match`.", {"type": "string", "pattern": '^"[0-9a-f]{32}(?:-gz)?"$'}),
        "Cache-Control": header("Public caching: archived answers for far longer than current ones.",
                                {"type": "string", "pattern": "^public, max-age=[0-9]+(?:, [a-z-]+=[0-9]+)*$"}),
        "NoStore": header("Errors are never cached.", {"const": "no-store"}),
        "Vary": header("The body depends on `Accept-Encoding`.", {"const": "Accept-Encoding"}),
        "Content-Encoding": header("`gzip` when the client accepts it and the body is worth it.",
                                   {"const": "gzip"}, required=False),
        "Last-Modified": header("The publication date of the snapshot the data comes from, at 00:00:00 "
                                "GMT. `If-Modified-Since` with it gives 304.",
                                {"type": "string", "pattern": "^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} "
                                 "[0-9]{4} 00:00:00 GMT$"}),
        "X-Readiness-Snapshot": header("The id (`YYYY-MM`) of the snapshot the data comes from; for "
                                       "history, the newest snapshot included.",
                                       {"type": "string", "pattern": SNAPSHOT_ID}),
        "X-Total-Count": header("The number of rows that matched, before `limit`.",
                                {"type": "string", "pattern": "^[0-9]+$"}),
        "Content-Disposition": header('CSV only: `attachment; filename="readiness-2026-11.csv"`, the '
                                      "route and the snapshot id (just the route when the answer "
                                      "holds no snapshot: `history.csv`), then `-synthetic` when the "
                                      "data is synthetic (`readiness-2026-11-synthetic.csv`).",
                                      {"type": "string",
                                       "pattern": '^attachment; filename="[a-z]+(?:-[0-9]{4}-[0-9]{2})?'
                                                  '(?:-synthetic)?\\.csv"$'},
                                      required=False),
        "CitationFile": header('The download\'s file name: `attachment; filename="readiness-2026-11.bib"` '
                               "(`.ris`, `.json`, `.txt`), `-synthetic` before the extension for synthetic data.",
                               {"type": "string", "pattern": '^attachment; filename="readiness-[0-9]{4}-[0-9]{2}'
                                                             '(?:-synthetic)?\\.(?:bib|ris|json|txt)"$'}),
        "Access-Control-Allow-Origin": header("CORS: any origin may read.", {"const": "*"}),
        "Access-Control-Expose-Headers": header("CORS: the headers a browser script may read.",
                                                {"type": "string"}),
        "X-Content-Type-Options": header("No MIME sniffing.", {"const": "nosniff"}),
        "Deprecation": header("RFC 9745: the route is deprecated from 2027-01-01.", {"const": DEPRECATION}),
        "Link": header("RFC 8288: the successor-version route.", {"const": SUCCESSOR_LINK}),
        "PageLinks": header("RFC 8288: the other pages of the same query, each its canonical URL with "
                            "`offset` moved, as GitHub's API writes them: `first` and `prev` past the first page, "
                            "`next` (`offset` past the rows served) and `last` while rows remain. Absent when "
                            "the answer is one page.",
                            {"type": "string", "pattern": f"^{_PAGE_LINK}(?:, {_PAGE_LINK}){{0,3}}$"},
                            required=False),
        "Retry-After": header("Seconds to wait before asking again (a busy service).",
                              {"type": "string", "pattern": "^[0-9]+$"}, required=False),
    }


def _described(schema: Mapping[str, JsonValue], text: str) -> Json:
    """A copy of ``schema`` with ``text`` as its description: no two schemas share a dict."""
    return {**copy.deepcopy(dict(schema)), "description": text}


def _field(name: str) -> Json:
    """A contract field of ``loaders`` (FIELD_BY_NAME), with its own schema and description."""
    return _described(FIELD_BY_NAME[name].schema, FIELD_BY_NAME[name].description)


def _snapshot_of_row() -> Json:
    """The ``snapshot`` key of a table row: the id of the snapshot the row comes from."""
    return {"type": "string", "pattern": SNAPSHOT_ID, "description": "The row's snapshot id."}


def _economy() -> Json:
    """The economy's identity that leads an indicator row, long or wide."""
    return {name: _field(name) for name in ("Country Code", "Country Name", "Region", "Income Level")}


def _indicator_properties() -> Json:
    """The keys of an ``indicator_details`` element: schemas from INDICATOR_FIELDS, words from here."""
    return {name: _described(schema, INDICATOR_DESCRIPTIONS.get(name, name))
            for name, schema in INDICATOR_FIELDS.items()}


def _history_identity() -> Json:
    """The keys that lead a history row, long or wide: the economy and its snapshot."""
    return {
        "Country Code": _field("Country Code"),
        "Country Name": _field("Country Name"),
        "snapshot": _snapshot_of_row(),
        "year": {"type": "integer", "description": "The snapshot's year (of its id)."},
        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                 "description": "The snapshot's publication date."},
    }


def _error_properties() -> Json:
    """The members of both error bodies; only the v1 one requires ``apiVersion``."""
    return {"apiVersion": {"const": API_VERSION}, "error": {"type": "string"}}


PAGING: Json = {
    "page": {"type": "integer", "minimum": 1,
             "description": "v1: the page served, from 1 (`offset` divided by `per_page`, rounded down, plus 1)."},
    "pages": {"type": "integer", "minimum": 0, "description": "v1: how many pages of `per_page` rows there are."},
    "per_page": {"type": "integer", "minimum": 0,
                 "description": "v1: `limit`; without it, `total` (every row on one page)."},
    "total": {"type": "integer", "minimum": 0,
              "description": "v1: the rows that matched, before `limit` (as `X-Total-Count`)."},
}
"""What a paged v1 answer says of its page, as the World Bank's API does (``envelope.page_fields``)."""


def _list_envelope(row: str, text: str, snapshotless: bool = False, long_row: str | None = None) -> Json:
    """The envelope of the list routes: ``apiVersion``, ``snapshot``, ``count`` and the rows (of
    ``row``, or with ``shape=long`` of ``long_row``)."""
    items: Json = ref("schemas", row)
    if long_row is not None:
        items = {"oneOf": [items, ref("schemas", long_row)]}
    return {
        "type": "object",
        "description": text,
        "required": ["apiVersion", "snapshot", "snapshot_id", "current", "count", "data"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "snapshot": {"type": ["string", "null"] if snapshotless else "string", "pattern": SNAPSHOT_ID,
                         "description": "The id of the snapshot the rows come from (history: the newest shown)."},
            **resolved_members(snapshotless),
            "count": {"type": "integer", "minimum": 0, "description": "Number of rows in `data`."},
            "data": {"type": "array", "items": items},
            **PAGING,
            "unmatched": UNMATCHED,
            "notice": NOTICE,
        },
    }


def _envelope() -> Json:
    """The readiness routes' envelope: one economy in country mode with one match, else a list."""
    countries: Json = {"type": "array", "items": ref("schemas", "Country")}
    return {
        "type": "object",
        "required": ["apiVersion", "level", "snapshot", "count", "data"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "level": {"enum": ["country", "global"],
                      "description": "`country` when `code` or `codes` was given, else `global`."},
            "snapshot": {"type": "string", "pattern": "^(?:current|[0-9]{4}-(?:0[1-9]|1[0-2]))$",
                         "description": "`current`, or the id of the snapshot `year` (its December, "
                                        "`YYYY-12`, or the current snapshot for its year) or `snapshot` selects."},
            **resolved_members(),
            "count": {"type": "integer", "minimum": 0, "description": "Number of economies in `data`."},
            "weights": {"type": "object", "required": list(DIMENSION_KEYS), "additionalProperties": False,
                        "properties": {key: {"type": "number", "minimum": 0, "maximum": 1}
                                       for key in DIMENSION_KEYS},
                        "description": "Only with `weights`: the weights used, as shares of their sum "
                                       "(4 decimals)."},
            "weights_note": {"type": "string",
                             "description": f"Only with `weights`: `{CUSTOM_SCORE}` and `{CUSTOM_RANK}` are not "
                                            "the published index."},
            "data": {"oneOf": [ref("schemas", "Country"), countries],
                     "description": "An object in country mode with exactly one match, else an array."},
            **PAGING,
            "unmatched": UNMATCHED,
            "notice": NOTICE,
        },
        "if": {"properties": {"level": {"const": "global"}}},
        "then": {"properties": {"data": countries}},
    }


def _country() -> Json:
    """An economy: the contract's fields, their short names, your weighted score and rank, its details."""
    properties: Json = {field.name: _described(field.schema, field.description) for field in COUNTRY_FIELDS}
    properties["RegionShort"] = {"type": "string", "enum": list(REGION_SHORT.values()),
                                 "description": "Short region code; only with `shortnames=true`."}
    for alias, name in FIELD_ALIASES.items():
        properties[alias] = _described(FIELD_BY_NAME[name].schema, f"Same as `{name}`; only with `shortnames=true`.")
    properties[CUSTOM_SCORE] = {"type": ["number", "null"], "minimum": 0, "maximum": 100,
                                "description": ("Only with `weights`: your weighted mean of the dimension scores, two "
                                                "decimals; null when a weighted dimension is null. Not the published "
                                                "index (/method#your-own-weights).")}
    properties[CUSTOM_RANK] = {"type": ["integer", "null"], "minimum": 1,
                               "description": (f"Only with `weights`: rank by `{CUSTOM_SCORE}` among the ranked "
                                               "economies (those with a `Global Rank`), 1 = highest, ties share a "
                                               "rank; null for the others.")}
    properties[DETAILS] = {"type": "array", "items": ref("schemas", "IndicatorDetail"),
                           "description": "Per-indicator results, in country mode only."}
    return {
        "type": "object",
        "description": "An economy. Keys are exact and in this order; `fields` may leave any of them out.",
        "properties": properties,
        "additionalProperties": False,
    }


def _indicator_detail() -> Json:
    """One element of an economy's ``indicator_details`` (docs/API.md#indicator_details-element)."""
    return {
        "type": "object",
        "properties": _indicator_properties(),
        "required": list(REQUIRED_INDICATOR_FIELDS),
        "additionalProperties": False,
    }


def _indicator_table() -> Json:
    """The indicators route's envelope: its rows, wide or long."""
    return _list_envelope(
        "IndicatorRow", "One row per economy and indicator (and snapshot, with `years`); with `shape=long`, "
        "one per measure of those.", long_row="IndicatorLongRow"
    )


def _indicator_row() -> Json:
    """A wide indicator row: the economy, the snapshot, one details element, its percentiles as numbers
    and its observation year (``year``, deprecated there, renamed)."""
    properties = _indicator_properties()
    observed = dict(INDICATOR_FIELDS["year"])
    properties["year"] = {**observed, "deprecated": True, "description": (
        "Deprecated: the observation year, as `observed_year` (which it will be removed in favour of in a later "
        "major version). `year` names a snapshot's year on every other route.")}
    return {
        "type": "object",
        "description": (f"An economy's identity, the snapshot id, then one `{DETAILS}` element's keys and "
                        f"`{OBSERVED_YEAR}`: those `fields` names besides `Country Code`, `snapshot` and "
                        "`indicator_code`, when given."),
        "required": list(INDICATOR_KEY),
        "additionalProperties": False,
        "properties": {
            **_economy(),
            "snapshot": _snapshot_of_row(),
            **properties,
            "global_percentile_value": {"type": ["integer", "null"], "minimum": 0, "description": (
                "`global_percentile` as a number (`\"31st\"` is 31); null where it is null.")},
            "regional_percentile_value": {"type": ["integer", "null"], "minimum": 0, "description": (
                "`regional_percentile` as a number; null where it is null.")},
            OBSERVED_YEAR: {**observed, "description": (
                "The year the value was observed (reported) in, the indicator_details element's `year`: every "
                "route's `year` is a snapshot's year, so the indicator table names this one apart.")},
        },
    }


def _indicator_long_row() -> Json:
    """A long indicator row: one numeric measure of a wide one."""
    return {
        "type": "object",
        "description": ("`shape=long`: one numeric measure of an indicator row (with `fields`, the identity "
                        "columns and measures it names)."),
        "required": [*INDICATOR_KEY, *LONG_KEYS],
        "additionalProperties": False,
        "properties": {
            **_economy(),
            "snapshot": _snapshot_of_row(),
            "indicator_code": _indicator_properties()["indicator_code"],
            "measure": {"enum": list(INDICATOR_MEASURES), "description": "The indicator row's key."},
            "value": {"type": ["number", "null"], "description": "Its value (null where it is)."},
        },
    }


def _history() -> Json:
    """The history route's envelope: its rows, wide or long, and no snapshot when none is shown."""
    return _list_envelope(
        "HistoryRow", "One row per economy and snapshot, oldest snapshot first; with `shape=long`, one per "
        "value of those.", snapshotless=True, long_row="HistoryLongRow"
    )


def _history_row() -> Json:
    """A wide history row: the economy and snapshot, then every field a series keeps."""
    return {
        "type": "object",
        "description": "An economy's scores and ranks in one snapshot; `fields` may leave keys out.",
        "additionalProperties": False,
        "properties": {**_history_identity(), **{name: _field(name) for name in HISTORY_FIELDS}},
    }


def _history_long_row() -> Json:
    """A long history row: one value of a wide one."""
    return {
        "type": "object",
        "description": "`shape=long`: one value of a history row.",
        "required": list(HISTORY_LONG_COLUMNS),
        "additionalProperties": False,
        "properties": {
            **_history_identity(),
            "measure": {"enum": list(HISTORY_FIELDS), "description": "The history row's key."},
            "value": {"type": ["number", "null"], "description": (
                "The value of `measure` in the wide row (null where it is): always a number; null for a text or "
                "true/false measure, whose value is in `text_value`.")},
            TEXT_VALUE: {"type": ["string", "boolean", "null"], "description": (
                "Only when `fields` names a text or true/false field (`Region`, `Income Level`, `FCV Status`), "
                "then in every row: that measure's value (null in the numeric measures' rows).")},
        },
    }


def _aggregates() -> Json:
    """The aggregates route's envelope, naming the columns of its CSV."""
    return _list_envelope(
        "AggregateRow", "One row per snapshot, group and score: snapshots oldest first, then groups, then "
        "scores in their usual order. Its CSV has the columns "
        + ", ".join(f"`{name}`" for name in AGGREGATE_COLUMNS) + "."
    )


def _aggregate_row() -> Json:
    """The statistics of one score over one group in one snapshot (readiness.domain.aggregates)."""
    groups = list(dict.fromkeys(name for names in GROUP_ORDER.values() for name in names))
    statistic: Json = {"type": ["number", "null"]}
    return {
        "type": "object",
        "description": "The statistics of one score over the economies of one group in one snapshot.",
        "required": list(AGGREGATE_COLUMNS),
        "additionalProperties": False,
        "properties": {
            "snapshot": _snapshot_of_row(),
            "year": {"type": "integer", "description": "The snapshot's year."},
            "group": {"type": "string", "description": (
                "The group: " + ", ".join(f"`{name}`" for name in groups) + f", or `{UNCLASSIFIED}` for "
                "economies without a value for the grouping field (`by=income`: one economy of the sample).")},
            "measure": {"enum": list(MEASURES), "description": "The score."},
            "count": {"type": "integer", "minimum": 0,
                      "description": "Economies of the group with a value (nulls left out; microstates count)."},
            **{name: {**statistic, "description": text} for name, text in zip(STATISTICS[1:], (
                "The mean, rounded to two decimals; null when `count` is 0 (as every statistic).",
                "The median (the mean of the two middle values for an even count).",
                "The smallest value.",
                "The largest value.",
                "The first quartile: linear interpolation between the closest ranks, as pandas' "
                "`Series.quantile` and numpy's default give.",
                "The third quartile, likewise.",
            ), strict=True)},
        },
    }


def _catalogue() -> Json:
    """The snapshots route's body: every snapshot, the current indicator catalogue and its citation."""
    entry: Json = {key: {} for key in CATALOGUE_KEYS}
    entry.update(code={"type": "string"}, name={"type": "string"})
    return {
        "type": "object",
        "description": "Every snapshot (newest first), the current indicator catalogue and its citation.",
        "required": ["apiVersion", "snapshot", "snapshot_id", "current", "count", "data", "indicators", "citation"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "snapshot": {"type": "string", "pattern": SNAPSHOT_ID, "description": "The current snapshot's id."},
            **resolved_members(),
            "count": {"type": "integer", "minimum": 0, "description": "Number of snapshots in `data`."},
            "data": {"type": "array", "items": ref("schemas", "CatalogueEntry")},
            "indicators": {"type": "array", "description": "The indicators the current snapshot scores.",
                           "items": {"type": "object", "required": list(CATALOGUE_KEYS), "properties": entry}},
            "citation": {"anyOf": [ref("schemas", "Citation"), {"type": "null"}],
                         "description": "How to cite the current snapshot (null without one)."},
            "notice": NOTICE,
        },
    }


def _citation() -> Json:
    """The catalogue's ``citation`` object (``readiness.domain.citation.Citation.document``)."""
    text: Json = {"type": "string"}
    return {
        "type": "object",
        "description": ("How to cite a snapshot, from its manifest; `/api/v1/citation` gives it as BibTeX, "
                        "RIS or CSL-JSON."),
        "required": ["publisher", "title", "snapshot", "published", "url", "license", "text"],
        "additionalProperties": False,
        "properties": {
            "publisher": {"type": ["string", "null"],
                          "description": "Who publishes the snapshot (its manifest's); null when it does not say."},
            "title": {**text, "description": "`Readiness Index, snapshot 2026-11`."},
            "snapshot": {"type": "string", "pattern": SNAPSHOT_ID},
            "published": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "url": {"type": "string", "pattern": "^/api/v1/readiness\\?snapshot=[0-9]{4}-[0-9]{2}$",
                    "description": ("The snapshot's data on this service, relative: put the service's "
                                    "address before it.")},
            "license": {"type": ["string", "null"],
                        "description": "The licence its manifest states; null when it states none."},
            "text": {**text, "description": ("A ready-to-paste citation; a synthetic snapshot's says not to "
                                             "cite it.")},
        },
    }


def _catalogue_entry() -> Json:
    """One snapshot in the catalogue: its id, dates, counts and links."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "year", "month", "current", "selectable", "published", "economies",
                     "ranked_economies", "synthetic", "notice", "changes", "forced"],
        "properties": {
            "id": {"type": "string", "pattern": SNAPSHOT_ID},
            "year": {"type": "integer"},
            "month": {"type": "integer", "minimum": 1, "maximum": 12},
            "current": {"type": "boolean", "description": "The snapshot served without `year`."},
            "selectable": {"type": "boolean", "description": (
                "Whether `year=` selects it: a December archive, or the current snapshot (for its year).")},
            "published": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "economies": {"type": "integer", "minimum": 0},
            "ranked_economies": {"type": "integer", "minimum": 0},
            "synthetic": {"type": "boolean", "description": "The data is synthetic, not real index data."},
            "notice": {"type": ["string", "null"]},
            "changes": {"type": ["string", "null"], "description": "The link to its change report, if any."},
            "forced": {
                "type": ["object", "null"],
                "description": ("The sanity checks the monthly refresh published it past, and the operator's "
                                "reason; null when none. "
                                "`checks` is empty and `reason` null for a snapshot forced before the checks "
                                "had names."),
                "additionalProperties": False,
                "required": ["checks", "reason"],
                "properties": {
                    "checks": {"type": "array", "items": {"type": "string"},
                               "description": "The accepted checks, e.g. `rank-shift`."},
                    "reason": {"type": ["string", "null"]},
                },
            },
        },
    }


def _changes() -> Json:
    """A snapshot's change report as the builder wrote it, naming the columns of its movers CSV."""
    return {
        "type": "object",
        "description": ("The change report of a snapshot against the one published before it, as "
                        "the builder wrote it, in `data`. Its CSV "
                        "is the movers table: " + ", ".join(f"`{name}`" for name in MOVER_COLUMNS) + "."),
        "required": ["apiVersion", "snapshot", "snapshot_id", "current", "count", "data"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "snapshot": {"type": "string", "pattern": SNAPSHOT_ID},
            **resolved_members(),
            "count": {"const": 1},
            "data": {
                "type": "object",
                "required": ["format", "snapshot", "previous", "summary"],
                "properties": {
                    "format": {"const": 1},
                    "snapshot": {"type": "string", "pattern": SNAPSHOT_ID},
                    "previous": {"type": ["string", "null"], "pattern": SNAPSHOT_ID},
                    "summary": {"type": "string", "description": "One sentence saying what changed."},
                },
            },
            "notice": NOTICE,
        },
    }


def _index() -> Json:
    """The route index (``/api/v1/``): every route with its links and parameters."""
    return {
        "type": "object",
        "description": "The routes of this API, with links.",
        "required": ["apiVersion", "title", "links", "routes"],
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "title": {"type": "string"},
            "description": {"type": "string"},
            "links": {"type": "object", "additionalProperties": {"type": "string"}},
            "routes": {"type": "array", "items": {
                "type": "object",
                "required": ["path", "methods", "summary", "href", "parameters"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string"},
                    "methods": {"type": "array", "items": {"enum": ["GET", "HEAD"]}},
                    "summary": {"type": "string"},
                    "href": {"type": "string"},
                    "example": {"type": "string"},
                    "parameters": {"type": "array", "items": {"type": "string"}},
                    "formats": {"type": "array", "items": {"type": "string"}},
                    "deprecated": {"type": "boolean"},
                },
            }},
        },
    }


def _error() -> Json:
    """The v1 error envelope (docs/API.md#errors)."""
    return {"type": "object", "required": ["apiVersion", "error"], "properties": _error_properties(),
            "additionalProperties": False, "description": "The error envelope."}


def _legacy_error() -> Json:
    """An error of the legacy route: the envelope, or its unknown-code body without ``apiVersion``."""
    return {"type": "object", "required": ["error"], "properties": _error_properties(),
            "additionalProperties": False,
            "description": "The error envelope, or the legacy unknown-code body "
                           "(no `apiVersion`)."}


def _query_meaning() -> Json:
    """The explain routes' body: what a query means to a data route, from its own parser."""
    return {
        "type": "object",
        "description": ("What a query means to a data route, as its own parser reads it: the canonical query, "
                        "the URL that asks exactly that, and each parameter's canonical value. It checks the "
                        "query's form only: no snapshot is read, so a `year` or `snapshot` that does not exist "
                        "is explained, not refused."),
        "required": ["apiVersion", "route", "query", "url", "parameters"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "route": {"enum": [route.path for route in EXPLAINED.values()],
                      "description": "The data route's path."},
            "query": {"type": "string", "description": (
                "The canonical query string: fixed order, defaults left out, aliases and any case resolved, "
                "names beginning with `_` dropped; empty when the query asks for the defaults.")},
            "url": {"type": "string", "description": (
                "`route`, followed by `?` and `query` unless it is empty: the same answer as the request's "
                "own query, byte for byte.")},
            "parameters": {"type": "object", "additionalProperties": {"type": "string"}, "description": (
                "The canonical parameters, name to value, in the order of `query`.")},
        },
    }


def _health() -> Json:
    """The liveness body (``/healthz``)."""
    return {"type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}}


def _ready() -> Json:
    """The readiness body (``/readyz``): the snapshot served and any warnings."""
    return {"type": "object", "required": ["status", "snapshot"],
            "properties": {"status": {"const": "ready"},
                           "snapshot": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"},
                           "warnings": {"type": "array", "items": {"type": "string"},
                                        "description": "Present when `CURRENT` names a snapshot "
                                                       "this server cannot serve, or the one "
                                                       "served lost too many country files."}}}


_SCHEMAS: Mapping[str, Callable[[], Json]] = {
    "Envelope": _envelope,
    "Country": _country,
    "IndicatorDetail": _indicator_detail,
    "IndicatorTable": _indicator_table,
    "IndicatorRow": _indicator_row,
    "IndicatorLongRow": _indicator_long_row,
    "History": _history,
    "HistoryLongRow": _history_long_row,
    "HistoryRow": _history_row,
    "Aggregates": _aggregates,
    "AggregateRow": _aggregate_row,
    "Catalogue": _catalogue,
    "Citation": _citation,
    "CatalogueEntry": _catalogue_entry,
    "Changes": _changes,
    "Index": _index,
    "Error": _error,
    "LegacyError": _legacy_error,
    "QueryMeaning": _query_meaning,
    "Health": _health,
    "Ready": _ready,
}
"""Each schema's name in ``#/components/schemas`` and the function that builds it, in document order."""


def row_table(name: str, row: str, text: str, columns: Sequence[tuple[str, JsonValue]]) -> Json:
    """The schemas of a table answer whose route declares its rows' columns (``Route.rows``):
    the envelope ``name`` (``apiVersion``, ``snapshot``, ``count``, the rows) and the row ``row``,
    every column required, in order."""
    return {
        name: _list_envelope(row, text),
        row: {"type": "object", "description": f"One row of `{name}`.", "required": [column for column, _ in columns],
              "additionalProperties": False, "properties": dict(columns)},
    }


def schemas() -> Json:
    """The envelopes, rows and error bodies of every route (docs/API.md), each built afresh."""
    return {name: build() for name, build in _SCHEMAS.items()}
