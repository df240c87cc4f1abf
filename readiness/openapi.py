"""The OpenAPI 3.1 document served at /api/v1/openapi.json, built from the contract tables.

Field names and schemas come from ``loaders`` (COUNTRY_FIELDS, INDICATOR_FIELDS, REGION_SHORT),
aliases and accepted-value texts from ``readiness.vocabulary``, limits from ``readiness.query``:
the document describes what the code accepts and serves without a second copy of any name.
Parameter patterns are exactly as strict as ``Query.parse`` where a short pattern can say it
(code, codes, level, year, order, shortnames, indicators), the empty value included, since an
empty value counts as absent. region, sort and fields are case-insensitive, so their accepted
values are described, not enumerated: an enum would be case-sensitive, hence wrong.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from loaders import (
    COUNTRY_FIELDS,
    DETAILS,
    FIELD_BY_NAME,
    INDICATOR_FIELDS,
    REGION_SHORT,
    REQUIRED_INDICATOR_FIELDS,
    JsonValue,
)

from readiness.envelope import API_VERSION
from readiness.handlers import MAX_URL_BYTES
from readiness.query import CODE_PATTERN, INDICATOR_PATTERN, MAX_CODES, MAX_INDICATORS, YEAR_PATTERN
from readiness.representation import DEPRECATION, SUCCESSOR_LINK
from readiness.vocabulary import ACCEPTED_FIELDS, ACCEPTED_REGIONS, ACCEPTED_SORT, FIELD_ALIASES

Json = dict[str, JsonValue]

V1_PATH = "/api/v1/readiness"
LEGACY_PATH = "/api/readiness"
_CODES = f"^(?:{CODE_PATTERN}(?:,{CODE_PATTERN})*)?$"
_INDICATORS = f"^(?:{INDICATOR_PATTERN}(?:,{INDICATOR_PATTERN})*)?$"
_YEAR = f"^(?:{YEAR_PATTERN})?$"

_INDICATOR_DESCRIPTIONS = {
    "indicator_code": "Indicator code, e.g. IT.NET.USER.ZS.",
    "indicator_name": "Full name of the indicator.",
    "component": "Index dimension the indicator belongs to.",
    "year": "Data year.",
    "reported_value": "Value as reported by the source.",
    "data_source": "Source or imputation; always present, for traceability.",
    "normalized_value": "Value normalized to 0 to 100.",
    "global_percentile": 'Ordinal string such as "87th"; never a number.',
    "regional_percentile": 'Ordinal string such as "3rd"; never a number.',
    "notes": "Notes; may be the empty string.",
}
"""docs/API.md, indicator_details's descriptions; the keys and their schemas come from INDICATOR_FIELDS."""

_ABOUT = (
    "Public, read-only JSON API over an education-readiness index: per-country records, the "
    "all-countries global summary and archived December snapshots. No authentication. Scores are "
    "on a 0 to 100 scale; data is refreshed monthly. Please cite the index's publisher in work "
    "based on the data. The sample data bundled with the service is synthetic: it is not real "
    "index data. Bodies are gzipped when the client accepts it. OPTIONS answers a CORS preflight "
    "with 204 on every route; undocumented methods get 405 with an Allow header. Every error body "
    "is the error envelope."
)
_USAGE = (
    "With no parameters: the all-countries global summary. Unknown parameters are ignored; a "
    "repeated parameter's last value wins; an empty value counts as absent. Every key ending in "
    '"confidence" is removed from the answer.'
)
_LEGACY = (
    f" Deprecated from 2027-01-01: use {V1_PATH}. Same parameters and bodies as v1, except that "
    'a code matching nothing gives 404 {"error": "Country code not found: XYZ"} without apiVersion.'
)


def openapi_document() -> Json:
    """The complete OpenAPI 3.1.0 description of every route the application serves.

    A fresh deep copy on each call, so a caller may change it without touching the contract
    tables. ``servers`` is left out: its default, ``/``, is the right one.
    """
    document: Json = {
        "openapi": "3.1.0",
        "info": {"title": "Readiness Index Data Service", "version": API_VERSION, "description": _ABOUT},
        "tags": [
            {"name": "readiness", "description": "The query operation (docs/API.md)."},
            {"name": "operations", "description": "This document, health and readiness. (Metrics are on the operations port only.)"},
        ],
        "paths": _paths(),
        "components": {"parameters": _parameters(), "headers": _headers(), "schemas": _schemas()},
    }
    return copy.deepcopy(document)


def _ref(kind: str, name: str) -> Json:
    return {"$ref": f"#/components/{kind}/{name}"}


_COMMON: Json = {
    name: _ref("headers", name)
    for name in ("Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "X-Content-Type-Options")
}
"""Headers on every response, errors included (docs/CACHING.md)."""
_ERRORS: Json = {**_COMMON, "Cache-Control": _ref("headers", "NoStore")}
"""Headers of every error response: never cached."""
_CACHED: Json = {
    **_COMMON,
    **{name: _ref("headers", name) for name in ("ETag", "Cache-Control", "Vary", "Content-Encoding")},
}
"""Headers of a cached answer and of its 304 (docs/CACHING.md)."""


def _response(text: str, headers: Json, schema: Json | None, media_type: str = "application/json") -> Json:
    """A response object; ``schema`` None means no body (304, and every HEAD answer)."""
    response: Json = {"description": text, "headers": dict(headers)}
    if schema is not None:
        response["content"] = {media_type: {"schema": schema}}
    return response


def _paths() -> Json:
    """Both readiness routes (docs/API.md), this document and the operations routes (docs/OPERATIONS.md)."""
    error = _ref("schemas", "Error")
    deprecation: Json = {"Deprecation": _ref("headers", "Deprecation"), "Link": _ref("headers", "Link")}
    archive = "The year's December archive is unavailable."
    v1 = _readiness({}, archive, error)
    legacy = _readiness(
        deprecation, f"{archive} Or a code matches no country.", _ref("schemas", "LegacyError")
    )
    parameters: list[JsonValue] = [_ref("parameters", name) for name in _parameters()]
    return {
        V1_PATH: {"parameters": parameters, **_operations(
            "getReadiness", {"tags": ["readiness"], "summary": "Query the readiness index",
                             "description": _USAGE}, v1)},
        LEGACY_PATH: {"parameters": parameters, **_operations(
            "getReadinessLegacy", {"tags": ["readiness"], "deprecated": True,
                                   "summary": "Query the readiness index (deprecated route)",
                                   "description": _USAGE + _LEGACY}, legacy)},
        "/api/v1/openapi.json": _operations(
            "getOpenApi", {"tags": ["operations"], "summary": "This OpenAPI document",
                           "parameters": [_ref("parameters", "If-None-Match")]},
            {"200": _response("This document.", _CACHED, {"type": "object"}),
             "304": _response("Not modified: the If-None-Match ETag still matches.", _CACHED, None)}),
        "/healthz": _operations(
            "getHealth", {"tags": ["operations"], "summary": "The process is alive"},
            {"200": _response("Alive.", _COMMON, _ref("schemas", "Health"))}),
        "/readyz": _operations(
            "getReady", {"tags": ["operations"], "summary": "A snapshot is loaded: the service can answer"},
            {"200": _response("Ready.", _COMMON, _ref("schemas", "Ready")),
             "503": _response("No snapshot is loaded, or the process is shutting down.", _ERRORS, error)}),
    }


def _readiness(route_headers: Json, not_found: str, not_found_body: Json) -> dict[str, Json]:
    """The responses of a readiness route; ``route_headers`` are on all of them (docs/CACHING.md)."""
    cached, errors = {**_CACHED, **route_headers}, {**_ERRORS, **route_headers}
    error = _ref("schemas", "Error")
    return {
        "200": _response("The answer envelope.", cached, _ref("schemas", "Envelope")),
        "304": _response("Not modified: the If-None-Match ETag still matches.", cached, None),
        "400": _response("Invalid request: the message names the parameter and what it accepts.",
                         errors, error),
        "404": _response(not_found, errors, not_found_body),
        "503": _response("No snapshot is loaded yet; try again later. Or the answer is not cached and "
                         "the service is computing all it admits: Retry-After says when to try again.",
                         {**errors, "Retry-After": _ref("headers", "Retry-After")}, error),
        "414": _response(f"The URL is longer than {MAX_URL_BYTES} bytes.", errors, error),
    }


def _operations(operation_id: str, operation: Json, responses: dict[str, Json]) -> Json:
    """The GET operation and its HEAD twin: same statuses and headers, never a body.

    Every route also answers 400 to a request malformed at the HTTP level and 414 to a URL
    over the limit; both are added here unless ``responses`` already describes them.
    """
    error = _ref("schemas", "Error")
    responses = {
        "400": _response("The request is malformed.", _ERRORS, error),
        "414": _response(f"The URL is longer than {MAX_URL_BYTES} bytes.", _ERRORS, error),
        **responses,
    }
    bodiless: Json = {
        status: {key: value for key, value in response.items() if key != "content"}
        for status, response in sorted(responses.items())
    }
    return {
        "get": {**operation, "operationId": operation_id, "responses": dict(sorted(responses.items()))},
        "head": {**operation, "operationId": "head" + operation_id[3:], "responses": bodiless},
    }


def _any_case(*words: str) -> str:
    """An anchored pattern matching any of ``words`` in any letter case, or nothing."""
    spelled = ("".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in w) for w in words)
    return "^(?:" + "|".join(spelled) + ")?$"


def _parameters() -> Json:
    """Every query parameter (docs/API.md, Parameters) with the rules ``Query.parse`` applies."""
    codes = (
        f"Comma-separated ISO 3166-1 alpha-3 codes, case-insensitive, at most {MAX_CODES} distinct. "
        "Selects country mode: data is an object when exactly one country matches, else an array. "
        "Codes that match nothing are skipped (count may be 0) on v1; the legacy route answers 404."
    )
    rules: dict[str, tuple[str, str | None, str]] = {
        "code": (codes, _CODES, "KEN"),
        "codes": (codes + " When both codes and code are given, codes wins.", _CODES, "KEN,BRA,IND"),
        "level": ("country or global, case-insensitive. Country mode applies whenever code or codes "
                  "is given; level=country without a code is a 400.",
                  _any_case("country", "global"), "global"),
        "region": (f"Filters by region, case-insensitive: {ACCEPTED_REGIONS}. SA means Latin "
                   "America & Caribbean. With codes, both filters apply. Other values: 400.",
                   None, "LAC"),
        "year": ("Four-digit year: answers from that year's archived December snapshot (snapshot "
                 '"<year>-12"). Omitted: the current data. A valid year whose archive is '
                 "unavailable gives 404.", _YEAR, "2025"),
        "sort": (f"Field to sort by, case-insensitive: {ACCEPTED_SORT}. Nulls sort last; ties "
                 "break on Country Code. Default: Country Name ascending. Other values: 400.",
                 None, "score"),
        "order": ("asc or desc, case-insensitive. Default: desc for numeric fields, asc for text "
                  "and booleans.", _any_case("asc", "desc"), "desc"),
        "fields": (f"Top-level fields to keep, case-insensitive: {ACCEPTED_FIELDS}. Keys keep the "
                   f"canonical order; {DETAILS} is kept whenever present. A name holding a comma "
                   '("Population, total") is recognised whole. Other names: 400.',
                   None, "Country Name,score"),
        "shortnames": ("true, false, 1 or 0, case-insensitive. true adds RegionShort and the alias "
                       f"keys ({', '.join(FIELD_ALIASES)}) next to the long names it keeps.",
                       _any_case("true", "false", "1", "0"), "true"),
        "indicators": (f"Comma-separated indicator codes, case-insensitive, at most {MAX_INDICATORS} "
                       f"distinct: filters {DETAILS} in country mode; ignored at the global level.",
                       _INDICATORS, "IT.NET.USER.ZS,GE.EST"),
    }
    parameters: Json = {
        name: {"name": name, "in": "query", "required": False, "description": text,
               "schema": {"type": "string"} if pattern is None else {"type": "string", "pattern": pattern},
               "example": example}
        for name, (text, pattern, example) in rules.items()
    }
    parameters["If-None-Match"] = {
        "name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
        "description": "An ETag from an earlier answer: 304 without a body if it still matches.",
    }
    return parameters


def _headers() -> Json:
    def header(text: str, schema: Json, required: bool = True) -> Json:
        return {"description": text, "required": required, "schema": schema}

    return {
        "ETag": header("Strong ETag of the representation sent (the gzip one ends in -gz); send it "
                       "back in If-None-Match.", {"type": "string", "pattern": '^"[0-9a-f]{32}(?:-gz)?"$'}),
        "Cache-Control": header("Public caching: archived answers for far longer than current ones.",
                                {"type": "string", "pattern": "^public, max-age=[0-9]+$"}),
        "NoStore": header("Errors are never cached.", {"const": "no-store"}),
        "Vary": header("The body depends on Accept-Encoding.", {"const": "Accept-Encoding"}),
        "Content-Encoding": header("gzip when the client accepts it and the body is worth it.",
                                   {"const": "gzip"}, required=False),
        "Access-Control-Allow-Origin": header("CORS: any origin may read.", {"const": "*"}),
        "Access-Control-Expose-Headers": header("CORS: the headers a browser script may read.",
                                                {"type": "string"}),
        "X-Content-Type-Options": header("No MIME sniffing.", {"const": "nosniff"}),
        "Deprecation": header("RFC 9745: the route is deprecated from 2027-01-01.", {"const": DEPRECATION}),
        "Link": header("RFC 8288: the successor-version route.", {"const": SUCCESSOR_LINK}),
        "Retry-After": header("Seconds to wait before asking again (a busy service).",
                              {"type": "string", "pattern": "^[0-9]+$"}, required=False),
    }


def _described(schema: Mapping[str, JsonValue], text: str) -> Json:
    return {**copy.deepcopy(dict(schema)), "description": text}


def _schemas() -> Json:
    """The envelope, country object, indicator_details element and error bodies (docs/API.md)."""
    country: Json = {field.name: _described(field.schema, field.description) for field in COUNTRY_FIELDS}
    country["RegionShort"] = {"type": "string", "enum": list(REGION_SHORT.values()),
                              "description": "Short region code; only with shortnames=true."}
    for alias, name in FIELD_ALIASES.items():
        country[alias] = _described(FIELD_BY_NAME[name].schema, f"Same as {name}; only with shortnames=true.")
    country[DETAILS] = {"type": "array", "items": _ref("schemas", "IndicatorDetail"),
                        "description": "Per-indicator results, in country mode only."}
    error: Json = {"apiVersion": {"const": API_VERSION}, "error": {"type": "string"}}
    countries: Json = {"type": "array", "items": _ref("schemas", "Country")}
    return {
        "Envelope": {
            "type": "object",
            "required": ["apiVersion", "level", "snapshot", "count", "data"],
            "additionalProperties": False,
            "properties": {
                "apiVersion": {"const": API_VERSION},
                "level": {"enum": ["country", "global"],
                          "description": "country when code or codes was given, else global."},
                "snapshot": {"type": "string", "pattern": "^(?:current|[0-9]{4}-12)$",
                             "description": 'current, or the archive "<year>-12" that year selects.'},
                "count": {"type": "integer", "minimum": 0, "description": "Number of countries in data."},
                "data": {"oneOf": [_ref("schemas", "Country"), countries],
                         "description": "An object in country mode with exactly one match, else an array."},
            },
            "if": {"properties": {"level": {"const": "global"}}},
            "then": {"properties": {"data": countries}},
        },
        "Country": {
            "type": "object",
            "description": "A country or territory. Keys are exact; fields may leave any of them out.",
            "properties": country,
            "additionalProperties": False,
        },
        "IndicatorDetail": {
            "type": "object",
            "properties": {name: _described(schema, _INDICATOR_DESCRIPTIONS.get(name, name))
                           for name, schema in INDICATOR_FIELDS.items()},
            "required": list(REQUIRED_INDICATOR_FIELDS),
            "additionalProperties": False,
        },
        "Error": {"type": "object", "required": ["apiVersion", "error"], "properties": error,
                  "additionalProperties": False, "description": "The error envelope."},
        "LegacyError": {"type": "object", "required": ["error"], "properties": error,
                        "additionalProperties": False,
                        "description": "The error envelope, or the legacy unknown-code body "
                                       "(no apiVersion)."},
        "Health": {"type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}},
        "Ready": {"type": "object", "required": ["status", "snapshot"],
                  "properties": {"status": {"const": "ready"},
                                 "snapshot": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"},
                                 "warnings": {"type": "array", "items": {"type": "string"},
                                              "description": "Present when CURRENT names a snapshot "
                                                             "this server cannot serve, or the one "
                                                             "served lost too many country files."}}},
    }
