"""The response headers and body schemas of the OpenAPI document (docs/API.md).

Field names and schemas come from ``loaders`` (COUNTRY_FIELDS, INDICATOR_FIELDS, REGION_SHORT)
and aliases from ``readiness.domain.vocabulary``, so no name has a second copy here. Descriptions are
Markdown: names in backticks, no angle brackets (Redoc renders ``<year>`` as an HTML tag).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

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

from readiness.domain.envelope import API_VERSION
from readiness.http.representation import DEPRECATION, SUCCESSOR_LINK
from readiness.domain.tables import HISTORY_FIELDS, MOVER_COLUMNS
from readiness.domain.vocabulary import FIELD_ALIASES

Json = dict[str, JsonValue]

SNAPSHOT_ID = "^[0-9]{4}-(?:0[1-9]|1[0-2])$"
"""A snapshot id, ``YYYY-MM`` (docs/DATA.md)."""


_INDICATOR_DESCRIPTIONS = {
    "indicator_code": "Indicator code, e.g. `IT.NET.USER.ZS`.",
    "indicator_name": "Full name of the indicator.",
    "component": "Index dimension the indicator belongs to.",
    "year": "Data year.",
    "reported_value": "Value as reported by the source.",
    "data_source": "Source or imputation; always present, for traceability.",
    "normalized_value": "Value normalized to 0 to 100.",
    "global_percentile": 'Ordinal string such as `"87th"`; never a number.',
    "regional_percentile": 'Ordinal string such as `"3rd"`; never a number.',
    "notes": "Notes; may be the empty string.",
}
"""The descriptions of docs/API.md#indicator_details-element; the keys and their schemas come from INDICATOR_FIELDS."""


def ref(kind: str, name: str) -> Json:
    """A local reference to ``#/components/<kind>/<name>``."""
    return {"$ref": f"#/components/{kind}/{name}"}


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
                                      "holds no snapshot: `history.csv`).",
                                      {"type": "string",
                                       "pattern": '^attachment; filename="[a-z]+(?:-[0-9]{4}-[0-9]{2})?\\.csv"$'},
                                      required=False),
        "Access-Control-Allow-Origin": header("CORS: any origin may read.", {"const": "*"}),
        "Access-Control-Expose-Headers": header("CORS: the headers a browser script may read.",
                                                {"type": "string"}),
        "X-Content-Type-Options": header("No MIME sniffing.", {"const": "nosniff"}),
        "Deprecation": header("RFC 9745: the route is deprecated from 2027-01-01.", {"const": DEPRECATION}),
        "Link": header("RFC 8288: the successor-version route.", {"const": SUCCESSOR_LINK}),
        "NextLink": header("RFC 8288: the next page (the same query, `offset` past the rows served), "
                           "while rows remain; absent on the last page.",
                           {"type": "string", "pattern": '^</api/v1/[a-z]+\\?[A-Za-z0-9_.~%,:=&-]+>; rel="next"$'},
                           required=False),
        "Retry-After": header("Seconds to wait before asking again (a busy service).",
                              {"type": "string", "pattern": "^[0-9]+$"}, required=False),
    }


def _described(schema: Mapping[str, JsonValue], text: str) -> Json:
    return {**copy.deepcopy(dict(schema)), "description": text}


def _list_envelope(row: str, text: str, snapshotless: bool = False) -> Json:
    """The envelope of the list routes: ``apiVersion``, ``snapshot``, ``count`` and the rows."""
    return {
        "type": "object",
        "description": text,
        "required": ["apiVersion", "snapshot", "count", "data"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "snapshot": {"type": ["string", "null"] if snapshotless else "string", "pattern": SNAPSHOT_ID,
                         "description": "The id of the snapshot the rows come from (history: the newest; "
                                        "null when `years` selects no snapshot)."},
            "count": {"type": "integer", "minimum": 0, "description": "Number of rows in `data`."},
            "data": {"type": "array", "items": ref("schemas", row)},
        },
    }


def _catalogue() -> Json:
    entry: Json = {key: {} for key in CATALOGUE_KEYS}
    entry.update(code={"type": "string"}, name={"type": "string"})
    return {
        "type": "object",
        "description": "Every snapshot (newest first), the current indicator catalogue and the citation request.",
        "required": ["apiVersion", "snapshot", "count", "data", "indicators", "citation"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "snapshot": {"type": "string", "pattern": SNAPSHOT_ID, "description": "The current snapshot's id."},
            "count": {"type": "integer", "minimum": 0, "description": "Number of snapshots in `data`."},
            "data": {"type": "array", "items": ref("schemas", "CatalogueEntry")},
            "indicators": {"type": "array", "description": "The indicators the current snapshot scores.",
                           "items": {"type": "object", "required": list(CATALOGUE_KEYS), "properties": entry}},
            "citation": {"type": ["string", "null"], "description": "How to cite the data."},
        },
    }


def _catalogue_entry() -> Json:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "year", "month", "current", "selectable", "published", "economies",
                     "ranked_economies", "synthetic", "notice", "changes"],
        "properties": {
            "id": {"type": "string", "pattern": SNAPSHOT_ID},
            "year": {"type": "integer"},
            "month": {"type": "integer", "minimum": 1, "maximum": 12},
            "current": {"type": "boolean", "description": "The snapshot served without `year`."},
            "selectable": {"type": "boolean", "description": "A December archive: `year=` selects it."},
            "published": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "economies": {"type": "integer", "minimum": 0},
            "ranked_economies": {"type": "integer", "minimum": 0},
            "synthetic": {"type": "boolean", "description": "The data is synthetic, not real index data."},
            "notice": {"type": ["string", "null"]},
            "changes": {"type": ["string", "null"], "description": "The link to its change report, if any."},
        },
    }


def schemas() -> Json:
    """The envelopes, rows and error bodies of every route (docs/API.md)."""
    country: Json = {field.name: _described(field.schema, field.description) for field in COUNTRY_FIELDS}
    country["RegionShort"] = {"type": "string", "enum": list(REGION_SHORT.values()),
                              "description": "Short region code; only with `shortnames=true`."}
    for alias, name in FIELD_ALIASES.items():
        country[alias] = _described(FIELD_BY_NAME[name].schema, f"Same as `{name}`; only with `shortnames=true`.")
    country[DETAILS] = {"type": "array", "items": ref("schemas", "IndicatorDetail"),
                        "description": "Per-indicator results, in country mode only."}
    indicator: Json = {name: _described(schema, _INDICATOR_DESCRIPTIONS.get(name, name))
                       for name, schema in INDICATOR_FIELDS.items()}
    error: Json = {"apiVersion": {"const": API_VERSION}, "error": {"type": "string"}}
    countries: Json = {"type": "array", "items": ref("schemas", "Country")}
    snapshot_of_row: Json = {"type": "string", "pattern": SNAPSHOT_ID, "description": "The row's snapshot id."}
    history: Json = {
        "Country Code": _described(FIELD_BY_NAME["Country Code"].schema, FIELD_BY_NAME["Country Code"].description),
        "Country Name": _described(FIELD_BY_NAME["Country Name"].schema, FIELD_BY_NAME["Country Name"].description),
        "snapshot": snapshot_of_row,
        **{name: _described(FIELD_BY_NAME[name].schema, FIELD_BY_NAME[name].description)
           for name in HISTORY_FIELDS},
    }
    return {
        "Envelope": {
            "type": "object",
            "required": ["apiVersion", "level", "snapshot", "count", "data"],
            "additionalProperties": False,
            "properties": {
                "apiVersion": {"const": API_VERSION},
                "level": {"enum": ["country", "global"],
                          "description": "`country` when `code` or `codes` was given, else `global`."},
                "snapshot": {"type": "string", "pattern": "^(?:current|[0-9]{4}-12)$",
                             "description": "`current`, or the December archive (`YYYY-12`) that `year` selects."},
                "count": {"type": "integer", "minimum": 0, "description": "Number of economies in `data`."},
                "data": {"oneOf": [ref("schemas", "Country"), countries],
                         "description": "An object in country mode with exactly one match, else an array."},
            },
            "if": {"properties": {"level": {"const": "global"}}},
            "then": {"properties": {"data": countries}},
        },
        "Country": {
            "type": "object",
            "description": "An economy. Keys are exact and in this order; `fields` may leave any of them out.",
            "properties": country,
            "additionalProperties": False,
        },
        "IndicatorDetail": {
            "type": "object",
            "properties": indicator,
            "required": list(REQUIRED_INDICATOR_FIELDS),
            "additionalProperties": False,
        },
        "IndicatorTable": _list_envelope("IndicatorRow", "One row per economy and indicator."),
        "IndicatorRow": {
            "type": "object",
            "description": f"An economy's identity, the snapshot id, then one `{DETAILS}` element's keys.",
            "required": ["Country Code", "Country Name", "Region", "snapshot", *REQUIRED_INDICATOR_FIELDS],
            "additionalProperties": False,
            "properties": {
                **{name: _described(FIELD_BY_NAME[name].schema, FIELD_BY_NAME[name].description)
                   for name in ("Country Code", "Country Name", "Region", "Income Level")},
                "snapshot": snapshot_of_row,
                **indicator,
            },
        },
        "History": _list_envelope(
            "HistoryRow", "One row per economy and snapshot, oldest snapshot first.", snapshotless=True
        ),
        "HistoryRow": {
            "type": "object",
            "description": "An economy's scores and ranks in one snapshot; `fields` may leave keys out.",
            "additionalProperties": False,
            "properties": history,
        },
        "Catalogue": _catalogue(),
        "CatalogueEntry": _catalogue_entry(),
        "Changes": {
            "type": "object",
            "description": ("The change report of a snapshot against the one published before it, as "
                            "the builder wrote it (docs/PUBLISHING.md#what-changed-changesjson), in `data`. Its CSV "
                            "is the movers table: " + ", ".join(f"`{name}`" for name in MOVER_COLUMNS) + "."),
            "required": ["apiVersion", "snapshot", "count", "data"],
            "additionalProperties": False,
            "properties": {
                "apiVersion": {"const": API_VERSION},
                "snapshot": {"type": "string", "pattern": SNAPSHOT_ID},
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
            },
        },
        "Index": {
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
        },
        "Error": {"type": "object", "required": ["apiVersion", "error"], "properties": error,
                  "additionalProperties": False, "description": "The error envelope."},
        "LegacyError": {"type": "object", "required": ["error"], "properties": error,
                        "additionalProperties": False,
                        "description": "The error envelope, or the legacy unknown-code body "
                                       "(no `apiVersion`)."},
        "Health": {"type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}},
        "Ready": {"type": "object", "required": ["status", "snapshot"],
                  "properties": {"status": {"const": "ready"},
                                 "snapshot": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"},
                                 "warnings": {"type": "array", "items": {"type": "string"},
                                              "description": "Present when `CURRENT` names a snapshot "
                                                             "this server cannot serve, or the one "
                                                             "served lost too many country files."}}},
    }
