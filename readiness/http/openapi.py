"""The OpenAPI 3.1 document served at /api/v1/openapi.json, and the route index served at /api/v1/.

Built from the contract tables: parameters per route from ``Route.accepted``
(``readiness/http/openapi_parameters.py``), fields and schemas from ``loaders``
(``readiness/http/openapi_schemas.py``), response examples from real answers of the bundled sample
(``readiness/http/openapi_examples.py``). Swagger UI 5 and Redoc render it
(docs/DECISIONS.md#the-openapi-document-and-the-route-index): parameters sit on the
operations, ``servers`` is the page's own origin, descriptions are Markdown without angle
brackets.
"""

from __future__ import annotations

import copy
from urllib.parse import quote

from loaders import JsonValue
from readiness.domain.citation import CitationFormat
from readiness.domain.envelope import API_VERSION
from readiness.domain.explain import EXPLAINED
from readiness.domain.query import Route
from readiness.http.base import MAX_URL_BYTES
from readiness.http.openapi_examples import EXAMPLES, recorded
from readiness.http.openapi_parameters import IF_MODIFIED_SINCE, IF_NONE_MATCH, route_parameters
from readiness.http.openapi_schemas import SNAPSHOT_ID, headers, ref, schemas

Json = dict[str, JsonValue]

V1_PATH = "/api/v1/readiness"
LEGACY_PATH = "/api/readiness"
INDICATORS_PATH = "/api/v1/indicators"
HISTORY_PATH = "/api/v1/history"
AGGREGATES_PATH = "/api/v1/aggregates"
SNAPSHOTS_PATH = "/api/v1/snapshots"
CHANGES_PATH = "/api/v1/snapshots/{id}/changes"
CITATION_PATH = "/api/v1/citation"
QUERY_PREFIX = "/api/v1/query/"
"""``/api/v1/query/{route}``, described as one path per data route it explains (``QUERY_PATHS``), so
that each operation lists exactly the parameters its route's parser takes."""
QUERY_PATHS: dict[str, Route] = {f"{QUERY_PREFIX}{name}": route for name, (route, _) in EXPLAINED.items()}
DOCUMENT_PATH = "/api/v1/openapi.json"
INDEX_PATH = "/api/v1/"

TITLE = "Readiness Index Data Service"
_ABOUT = (
    "Public, read-only API over an education-readiness index: per-economy records, the "
    "all-economies global summary, the indicator values as one long table, scores across "
    "snapshots, summary statistics of the scores by group, the snapshot catalogue and change "
    "reports; JSON, and CSV with `format=csv`. "
    "No authentication. Scores are on a 0 to 100 scale; data is refreshed monthly. Please cite "
    "the index's publisher in work based on the data (`/api/v1/snapshots` gives the citation, "
    "`/api/v1/citation` the BibTeX, RIS or CSL-JSON file).\n\n"
    "**The sample data bundled with the service is synthetic: it is not real index data.** The "
    "examples below are real answers of that sample.\n\n"
    "Parameters: on the v1 routes an unknown parameter name is a 400 that suggests the nearest "
    "accepted name; names beginning with `_` are ignored (cache busters). A repeated parameter's "
    "last value wins, except the arrays `codes`, `fields` and `indicators`, whose values are merged "
    "(`fields=A&fields=B` is `fields=A,B`, as generated clients send them); an empty value counts as "
    "absent; values are trimmed of ASCII whitespace. "
    "Every answer says its snapshot in `X-Readiness-Snapshot` and `Last-Modified`. Bodies are "
    "gzipped when the client accepts it. `OPTIONS` answers a CORS preflight with 204 on every "
    "route; other methods get 405 with an `Allow` header. Every error body is the JSON error "
    "envelope. The route index is `/api/v1/`."
)
_USAGE = (
    "With no parameters: the all-economies global summary. Every key ending in `confidence` is "
    "removed from the answer."
)
_LEGACY = (
    f" Deprecated from 2027-01-01: use `{V1_PATH}`. Same parameters and bodies as v1, except that "
    "unknown parameter names are ignored and a code matching nothing gives 404 "
    '`{"error": "Country code not found: XYZ"}` without `apiVersion`.'
)


def openapi_document() -> Json:
    """The complete OpenAPI 3.1.0 description of every route the public port serves.

    A fresh deep copy on each call, so a caller may change it without touching the tables.
    ``servers`` is ``/``: relative, so Swagger UI's "Try it out" sends requests to the origin
    that served the document, whatever host or proxy that is.
    """
    document: Json = {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": API_VERSION, "description": _ABOUT,
                 "license": {"name": "Data: cite the publisher (see /api/v1/snapshots)"}},
        "servers": [{"url": "/", "description": "The origin that served this document."}],
        "tags": [
            {"name": "data", "description": "The data routes (docs/API.md)."},
            {"name": "catalogue", "description": "What data exists: snapshots, change reports."},
            {"name": "operations", "description": "This document, the route index, health and readiness."},
        ],
        "paths": _paths(),
        "components": {"headers": headers(), "schemas": schemas()},
    }
    return copy.deepcopy(document)


_COMMON: Json = {
    name: ref("headers", name)
    for name in ("Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "X-Content-Type-Options")
}
"""Headers on every response, errors included (docs/CACHING.md)."""
_ERRORS: Json = {**_COMMON, "Cache-Control": ref("headers", "NoStore")}
"""Headers of every error response: never cached."""
_CACHED: Json = {
    **_COMMON,
    **{name: ref("headers", name) for name in ("ETag", "Cache-Control", "Vary", "Content-Encoding")},
}
"""Headers of a cached answer and of its 304 (docs/CACHING.md)."""
_DATA: Json = {
    **_CACHED,
    **{name: ref("headers", name) for name in ("Last-Modified", "X-Readiness-Snapshot")},
}
"""Headers of an answer that holds data of one snapshot (docs/API.md#headers)."""
_LIST: Json = {**_DATA, "X-Total-Count": ref("headers", "X-Total-Count")}
_PAGED: Json = {**_LIST, "Link": ref("headers", "NextLink")}
"""Headers of a v1 list answer: a list's, and the next page's ``Link`` while rows remain."""
_OPTIONAL_SNAPSHOT_HEADERS: tuple[tuple[str, Json], ...] = (
    ("Last-Modified", {"type": "string"}),
    ("X-Readiness-Snapshot", {"type": "string", "pattern": SNAPSHOT_ID}),
)
_HISTORY: Json = {
    **_PAGED,
    **{name: {"description": "As on the other data routes, for the newest snapshot included; absent "
                             "when `years` selects no snapshot.", "required": False, "schema": schema}
       for name, schema in _OPTIONAL_SNAPSHOT_HEADERS},
}
"""History's headers: an answer without any snapshot (``years=1990``) has no date or id to give."""
_NOT_MODIFIED = "Not modified: the `If-None-Match` ETag (or, without one, `If-Modified-Since`) still matches."


def _response(text: str, response_headers: Json, content: Json | None = None) -> Json:
    """A response object; ``content`` None means no body (304, and every HEAD answer)."""
    response: Json = {"description": text, "headers": dict(response_headers)}
    if content is not None:
        response["content"] = content
    return response


def _json(schema: Json) -> Json:
    return {"application/json": {"schema": schema}}


def _json_or_csv(schema: Json) -> Json:
    return {**_json(schema), "text/csv": {"schema": {"type": "string"}}}


_CSL_ITEM: Json = {
    "type": "object",
    "required": ["id", "type", "title", "issued", "version", "URL", "note"],
    "properties": {
        "id": {"type": "string"}, "type": {"const": "dataset"}, "title": {"type": "string"},
        "author": {"type": "array", "items": {"type": "object", "required": ["literal"],
                                              "properties": {"literal": {"type": "string"}}}},
        "publisher": {"type": "string"},
        "issued": {"type": "object", "required": ["date-parts"],
                   "properties": {"date-parts": {"type": "array", "items": {"type": "array",
                                                                            "items": {"type": "integer"}}}}},
        "version": {"type": "string", "pattern": SNAPSHOT_ID}, "URL": {"type": "string"},
        "note": {"type": "string"}, "license": {"type": "string"},
    },
}
"""One CSL-JSON item of type ``dataset`` (CSL 1.0.2 variables), as ``/api/v1/citation`` writes it."""
_CITATION_CONTENT: Json = {
    CitationFormat.BIBTEX.content_type.split(";")[0]: {"schema": {"type": "string"}},
    CitationFormat.RIS.content_type.split(";")[0]: {"schema": {"type": "string"}},
    CitationFormat.CSL.content_type: {"schema": {"type": "array", "minItems": 1, "maxItems": 1, "items": _CSL_ITEM}},
    CitationFormat.TEXT.content_type.split(";")[0]: {"schema": {"type": "string"}},
}
"""The four download formats of ``/api/v1/citation``: BibTeX, RIS and plain text, CSL-JSON an array."""
_CITATION_PARAMETERS: tuple[Json, ...] = (
    {"name": "format", "in": "query", "required": False,
     "description": ("`bibtex` (default: `application/x-bibtex`), `ris` (`application/x-research-info-systems`), "
                     "`csl` (`application/vnd.citationstyles.csl+json`) or `text` (`text/plain`: the catalogue's "
                     "ready-to-paste `text`); any case. Another value gives 400."),
     "schema": {"type": "string", "enum": ["", *(item.value for item in CitationFormat)]}},
    {"name": "snapshot", "in": "query", "required": False,
     "description": ("A snapshot id `YYYY-MM` that `/api/v1/snapshots` lists. Omitted: the current snapshot. "
                     "An id not listed gives 404."),
     "schema": {"type": "string", "pattern": "^(?:[0-9]{4}-(?:0[1-9]|1[0-2]))?$"}},
)
"""The parameters of ``/api/v1/citation`` (``readiness.domain.citation.PARAMETERS``), not a parser route."""


def _paths() -> Json:
    """Every route of the public port (docs/API.md), and the operations routes (docs/OPERATIONS.md)."""
    error = ref("schemas", "Error")
    archive = "The year's December archive is unavailable (`/api/v1/snapshots` lists them)."
    pinned = ("The snapshot `year` or `snapshot` selects is not listed or unavailable (`/api/v1/snapshots` "
              "lists them).")
    paths: Json = {
        V1_PATH: _operations(
            "getReadiness", Route.V1,
            {"tags": ["data"], "summary": "Query the readiness index", "description": _USAGE},
            _data_responses(_json_or_csv(ref("schemas", "Envelope")), _PAGED, pinned, error)),
        LEGACY_PATH: _operations(
            "getReadinessLegacy", Route.LEGACY,
            {"tags": ["data"], "deprecated": True, "summary": "Query the readiness index (deprecated route)",
             "description": _USAGE + _LEGACY},
            _data_responses(_json_or_csv(ref("schemas", "Envelope")), _LIST,
                            f"{archive} Or a code matches no economy.", ref("schemas", "LegacyError"),
                            {"Deprecation": ref("headers", "Deprecation"), "Link": ref("headers", "Link")})),
        INDICATORS_PATH: _operations(
            "getIndicators", Route.INDICATORS,
            {"tags": ["data"], "summary": "The indicator values as one long table",
             "description": ("One row per economy and indicator of one snapshot, ordered by "
                             "`Country Code`, then the economy's indicator order. With no parameters: "
                             "every indicator of every economy of the current snapshot. With `years`: "
                             "the rows of every December archive and the current snapshot in the range, "
                             "oldest snapshot first. With `shape=long`: one row per numeric measure "
                             "(`reported_value`, `normalized_value`, `global_percentile_value`, "
                             "`regional_percentile_value`).")},
            _data_responses(_json_or_csv(ref("schemas", "IndicatorTable")), _PAGED,
                            f"{pinned} Or `years` selects no snapshot.", error)),
        HISTORY_PATH: _operations(
            "getHistory", Route.HISTORY,
            {"tags": ["data"], "summary": "Scores and ranks across snapshots",
             "description": ("One row per economy and snapshot, oldest snapshot first, then by "
                             "`Country Code`. Snapshots: every December archive and the current one. "
                             "Filters apply to each row's own snapshot; an economy absent from a "
                             "snapshot has no row for it. Each row names its snapshot, its year and its "
                             "publication date. With `shape=long`: one row per value (`measure`, `value`).")},
            _data_responses(_json_or_csv(ref("schemas", "History")), _HISTORY,
                            "`years` selects no snapshot history shows: the message names the years that "
                            "have one (`/api/v1/snapshots` lists them).", error)),
        AGGREGATES_PATH: _operations(
            "getAggregates", Route.AGGREGATES,
            {"tags": ["data"], "summary": "Summary statistics of the scores by group",
             "description": ("Per snapshot, group of economies (`by`) and score (the composite, then the "
                             "five dimension scores): `count` (economies with a value), `mean`, `median`, "
                             "`min`, `max`, `p25` and `p75` (linear interpolation between the closest "
                             "ranks, as pandas and numpy compute them), rounded to two decimals like the "
                             "scores. Nulls are left out; microstates count (they have scores, they are "
                             "only unranked). `region`, `income` and `fcv` filter the economies before "
                             "grouping. Default: the current snapshot; `years` takes every December and the "
                             "current snapshot in range, as history does.")},
            _data_responses(_json_or_csv(ref("schemas", "Aggregates")), _LIST,
                            "`year`, `snapshot` or `years` selects no snapshot (`/api/v1/snapshots` lists them).",
                            error)),
        SNAPSHOTS_PATH: _operations(
            "getSnapshots", Route.SNAPSHOTS,
            {"tags": ["catalogue"], "summary": "What data exists",
             "description": ("Every snapshot (id, year and month, whether it is current, whether "
                             "`year=` selects it, publication date, economies, ranked economies, "
                             "synthetic flag and notice, link to its change report), the indicator "
                             "catalogue and the current snapshot's citation. JSON only.")},
            _data_responses(_json(ref("schemas", "Catalogue")), _DATA, None, error)),
        CHANGES_PATH: _operations(
            "getChanges", Route.CHANGES,
            {"tags": ["catalogue"], "summary": "The change report of a snapshot",
             "description": ("What changed against the snapshot published before it: economies "
                             "added and removed, the largest score moves, changed values. CSV: its "
                             "movers table.")},
            _data_responses(_json_or_csv(ref("schemas", "Changes")), _DATA,
                            "The snapshot is unknown or has no change report.", error),
            [{"name": "id", "in": "path", "required": True,
              "description": "A snapshot id, `YYYY-MM`, as `/api/v1/snapshots` lists them.",
              "schema": {"type": "string", "pattern": SNAPSHOT_ID}}]),
        CITATION_PATH: _operations(
            "getCitation", None,
            {"tags": ["catalogue"], "summary": "The citation of a snapshot as a file",
             "description": ("The catalogue's `citation` of a snapshot as a file for reference managers: "
                             "BibTeX (an `@misc` entry), RIS (`TY  - DATA`), CSL-JSON (an array of one "
                             "`dataset` item) or the plain text, as an attachment named after the snapshot. From the "
                             "snapshot's manifest: its publisher, licence and publication date; a synthetic "
                             "snapshot's note says not to cite it.")},
            _data_responses(_CITATION_CONTENT, {**_DATA, "Content-Disposition": ref("headers", "CitationFile")},
                            "`snapshot` is not a snapshot `/api/v1/snapshots` lists.", error),
            [*_CITATION_PARAMETERS, IF_MODIFIED_SINCE]),
        **{f"{QUERY_PREFIX}{name}": _meaning_operations(name, route, data_path)
           for name, (route, data_path) in EXPLAINED.items()},
        DOCUMENT_PATH: _operations(
            "getOpenApi", None, {"tags": ["operations"], "summary": "This OpenAPI document"},
            {"200": _response("This document.", _CACHED, _json({"type": "object"})),
             "304": _response(_NOT_MODIFIED, _CACHED)}),
        INDEX_PATH: _operations(
            "getIndex", None,
            {"tags": ["operations"], "summary": "The route index",
             "description": "Every route of this API with its summary, parameters and a link."},
            {"200": _response("The index.", _CACHED, _json(ref("schemas", "Index"))),
             "304": _response(_NOT_MODIFIED, _CACHED)}),
        "/healthz": _operations(
            "getHealth", None, {"tags": ["operations"], "summary": "The process is alive"},
            {"200": _response("Alive.", _COMMON, _json(ref("schemas", "Health")))}),
        "/readyz": _operations(
            "getReady", None, {"tags": ["operations"], "summary": "A snapshot is loaded: the service can answer"},
            {"200": _response("Ready.", _COMMON, _json(ref("schemas", "Ready"))),
             "503": _response("No snapshot is loaded, or the process is shutting down.", _ERRORS, _json(error))}),
    }
    _add_examples(paths)
    return paths


def _meaning_operations(name: str, route: Route, data_path: str) -> Json:
    """``/api/v1/query/{name}``: what a query means to the data route at ``data_path`` (parsed as
    ``route``), with that route's parameters (docs/API.md#get-apiv1queryroute-what-a-query-means)."""
    error = ref("schemas", "Error")
    return _operations(
        f"getQuery{name.title()}", None,
        {"tags": ["data"], "summary": f"What a query means to {data_path}",
         "description": (
             f"Reads this request's own query as `{data_path}` reads it (the same parser: aliases, any "
             "case, `1`/`0`, `_` names dropped) and says it back in canonical form: `query`, the `url` "
             f"that gets the same answer from `{data_path}` byte for byte, and each parameter's canonical "
             "value (`sort=score` is `Composite Readiness Score`, `region=lac` is `Latin America & "
             f"Caribbean`). A query `{data_path}` refuses is refused with the same 400 and message. It "
             "checks form, not existence: no snapshot is read, so a `year` or `snapshot` without data is "
             "explained, not refused (the data route answers 404). Another name after "
             f"`{QUERY_PREFIX}` gets 404 naming {', '.join(f'`{known}`' for known in EXPLAINED)}.")},
        {"200": _response("What the query means.", _CACHED, _json(ref("schemas", "QueryMeaning"))),
         "304": _response(_NOT_MODIFIED, _CACHED),
         "400": _response(f"Invalid query: the 400 `{data_path}` gives, with the same message.", _ERRORS,
                          _json(error))},
        _meaning_parameters(route, data_path))


def _meaning_parameters(route: Route, data_path: str) -> list[JsonValue]:
    """The query parameters of ``route`` (the data route at ``data_path``), as that route documents
    them: read and explained, not applied."""
    parameters: list[JsonValue] = []
    for parameter in route_parameters(route):
        read = _object(copy.deepcopy(parameter))
        read["description"] = f"Read as `{data_path}` reads it: {read['description']}"
        parameters.append(read)
    return parameters


def _data_responses(
    content: Json, answer_headers: Json, not_found: str | None, not_found_body: Json,
    route_headers: Json | None = None,
) -> dict[str, Json]:
    """The responses of a data route; ``route_headers`` are on all of them (docs/CACHING.md)."""
    extra = route_headers or {}
    answer = {**answer_headers, **extra}
    if "text/csv" in content:
        answer["Content-Disposition"] = {**ref("headers", "Content-Disposition")}
    errors = {**_ERRORS, **extra}
    error = ref("schemas", "Error")
    responses = {
        "200": _response("The answer." + (" JSON, or CSV with `format=csv`." if "text/csv" in content else ""),
                         answer, content),
        "304": _response(_NOT_MODIFIED, {**_CACHED, **extra}),
        "400": _response("Invalid request: the message names the parameter and what it accepts.",
                         errors, _json(error)),
        "503": _response("No snapshot is loaded yet; try again later. Or the answer is not cached and "
                         "the service is computing all it admits: `Retry-After` says when to try again.",
                         {**errors, "Retry-After": ref("headers", "Retry-After")}, _json(error)),
        "414": _response(f"The URL is longer than {MAX_URL_BYTES} bytes.", errors, _json(error)),
    }
    if not_found is not None:
        responses["404"] = _response(not_found, errors, _json(not_found_body))
    return responses


def _operations(
    operation_id: str, route: Route | None, operation: Json, responses: dict[str, Json],
    path_parameters: list[JsonValue] | None = None,
) -> Json:
    """The GET operation and its HEAD twin: same parameters, statuses and headers, never a body.

    Every route also answers 400 to a request malformed at the HTTP level and 414 to a URL
    over the limit; both are added here unless ``responses`` already describes them. The
    parameters are on each operation, inline (never path-level ``$ref``s: Swagger UI 5 loses them).
    """
    error = ref("schemas", "Error")
    responses = {
        "400": _response("The request is malformed.", _ERRORS, _json(error)),
        "414": _response(f"The URL is longer than {MAX_URL_BYTES} bytes.", _ERRORS, _json(error)),
        **responses,
    }
    parameters: list[JsonValue] = [*(path_parameters or []), *(route_parameters(route) if route else [])]
    if "304" in responses:
        parameters.append(IF_NONE_MATCH)
        if route is not None:
            parameters.append(IF_MODIFIED_SINCE)
    get: Json = {**operation, "operationId": operation_id, "responses": dict(sorted(responses.items()))}
    if parameters:
        get["parameters"] = parameters
    head: Json = {
        **copy.deepcopy(get),
        "operationId": "head" + operation_id[3:],
        "summary": f"{operation['summary']} (headers only)",
        "responses": {status: {key: value for key, value in response.items() if key != "content"}
                      for status, response in sorted(responses.items())},
    }
    return {"get": get, "head": head}


def _object(value: JsonValue) -> Json:
    """``value`` as an object: the document's own nodes, which this module built as objects."""
    if not isinstance(value, dict):
        raise TypeError(f"not an object: {value!r}")
    return value


def _add_examples(paths: Json) -> None:
    """Attach each recorded example to its operation's response, under its media type."""
    answers = recorded()
    for example in EXAMPLES:
        answer = answers.get(example.name)
        if not isinstance(answer, dict):
            continue  # not recorded: tests/test_openapi.py fails on it
        responses = _object(_object(_object(paths[example.path])["get"])["responses"])
        media = _object(_object(_object(responses[str(example.status)])["content"])[str(answer["contentType"])])
        _object(media.setdefault("examples", {}))[example.name] = {
            "summary": example.summary, "description": f"`GET {example.target}`", "value": answer["value"],
        }


def api_index() -> Json:
    """The JSON index served at /api/v1/: every route of the document with its summary, methods,
    parameters, formats and a link, so that a client (or a person with a browser) finds its way
    from one URL. Derived from ``openapi_document()``, so the two never disagree.
    """
    examples = {example.path: example.target for example in EXAMPLES if example.status == 200}
    routes: list[JsonValue] = []
    for path, item in _object(openapi_document()["paths"]).items():
        get = _object(_object(item)["get"])
        parameters = get.get("parameters", [])
        names: list[JsonValue] = [
            _object(p)["name"] for p in (parameters if isinstance(parameters, list) else [])
            if _object(p)["in"] == "query"
        ]
        ok = _object(_object(get["responses"])["200"])
        formats: list[JsonValue] = [media.split("/")[1] for media in _object(ok.get("content", {}))]
        example = examples.get(path)
        route: Json = {
            "path": path, "methods": ["GET", "HEAD"], "summary": get["summary"],
            # A path with a template links to its example (a real snapshot id), not to "{id}".
            "href": example if "{" in path and example else path, "parameters": names,
        }
        if formats:
            route["formats"] = formats
        if example is not None:
            route["example"] = quote(example, safe="/?&=,:%")
        if get.get("deprecated"):
            route["deprecated"] = True
        routes.append(route)
    return {
        "apiVersion": API_VERSION,
        "title": TITLE,
        "description": ("The routes of this API; the OpenAPI document describes them in full. The "
                        "sample data bundled with the service is synthetic: it is not real index data."),
        "links": {"self": INDEX_PATH, "openapi": DOCUMENT_PATH, "docs": "/docs", "explore": "/explore",
                  "method": "/method", "snapshots": SNAPSHOTS_PATH},
        "routes": routes,
    }
