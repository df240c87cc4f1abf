"""The OpenAPI 3.1 document served at /api/v1/openapi.json, and the route index served at /api/v1/.

Built from the tables: an operation per route of the route table (``readiness/domain/routes.py``),
with its grammar's parameters (``readiness/http/openapi_parameters.py``), fields and schemas from ``loaders``
(``readiness/http/openapi_schemas.py``), response examples from real answers of the bundled sample
(``readiness/http/openapi_examples.py``). Swagger UI 5 and Redoc render it
(docs/DECISIONS.md#the-openapi-document-and-the-route-index): parameters sit on the
operations, ``servers`` is the page's own origin, descriptions are Markdown without angle
brackets.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import quote

from loaders import JsonValue
from readiness.domain.citation import CITATION_FILE_QUERY, CITATION_QUERY, CitationFormat, citation_file_path
from readiness.domain.envelope import API_VERSION
from readiness.domain.meta import Format
from readiness.domain.package import CURRENT
from readiness.domain.parameters import Grammar
from readiness.domain.route import DOWNLOAD_TYPE, Download, FromFiles, Route
from readiness.domain.routes import EXPLAINED, ROUTES
from readiness.http.base import MAX_URL_BYTES
from readiness.http.openapi_examples import EXAMPLES, recorded
from readiness.http.openapi_parameters import IF_MODIFIED_SINCE, IF_NONE_MATCH, grammar_parameters
from readiness.http.openapi_schemas import SNAPSHOT_ID, headers, ref, row_table, schemas

Json = dict[str, JsonValue]

SNAPSHOTS_PATH = "/api/v1/snapshots"
CITATION_PATH = "/api/v1/citation"
QUERY_PREFIX = "/api/v1/query/"
"""``/api/v1/query/{route}``, described as one path per data route it explains (``QUERY_PATHS``), so
that each operation lists exactly the parameters its route's parser takes."""
QUERY_PATHS: dict[str, Route] = {f"{QUERY_PREFIX}{name}": route for name, route in EXPLAINED.items()}
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
            {"name": "data", "description": "The data routes."},
            {"name": "catalogue", "description": "What data exists: snapshots, change reports."},
            {"name": "downloads", "description": ("A snapshot's bulk files: its tables as CSV and Parquet, their "
                                                  "metadata (`datapackage.json`) and a zip package.")},
            {"name": "operations", "description": "This document, the route index, health and readiness."},
        ],
        "paths": _paths(),
        "components": {"headers": headers(), "schemas": {**schemas(), **_row_tables(), **_FILE_SCHEMAS}},
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
_PAGED: Json = {**_LIST, "Link": ref("headers", "PageLinks")}
"""Headers of a v1 list answer: a list's, and the other pages' ``Link`` (first, prev, next, last)."""
_LEGACY_HEADERS: Json = {"Deprecation": ref("headers", "Deprecation"), "Link": ref("headers", "Link")}
"""Headers of every response of a deprecated route, errors included."""
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
"""History's headers: an answer without any snapshot has no date or id to give."""
_SNAPSHOTLESS = frozenset({"History"})
"""The answers (by schema) that may hold no snapshot (``snapshot`` null), their snapshot headers then absent."""
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
    "required": ["id", "type", "title", "issued", "version", "URL", "accessed", "note"],
    "properties": {
        "id": {"type": "string"}, "type": {"const": "dataset"}, "title": {"type": "string"},
        "author": {"type": "array", "items": {"type": "object", "required": ["literal"],
                                              "properties": {"literal": {"type": "string"}}}},
        "publisher": {"type": "string"},
        "issued": {"type": "object", "required": ["date-parts"],
                   "properties": {"date-parts": {"type": "array", "items": {"type": "array",
                                                                            "items": {"type": "integer"}}}}},
        "version": {"type": "string", "pattern": SNAPSHOT_ID},
        "URL": {"type": "string", "description": (
            "The snapshot's data, absolute: the service's public address (or the request's own), then "
            "`/api/v1/readiness?snapshot=` and the id.")},
        "accessed": {"type": "object", "required": ["date-parts"], "description": "The day (UTC) it was retrieved.",
                     "properties": {"date-parts": {"type": "array", "items": {"type": "array",
                                                                              "items": {"type": "integer"}}}}},
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
def _paths() -> Json:
    """Every route of the public port (docs/API.md), and the operations routes (docs/OPERATIONS.md)."""
    error = ref("schemas", "Error")
    paths: Json = {
        **{route.path: _route_operations(route) for route in ROUTES},
        **{download.path: _download_operations(download) for route in ROUTES for download in route.downloads},
        **{citation_file_path(chosen): _citation_file_operations(chosen) for chosen in CitationFormat},
        CITATION_PATH: _operations(
            "getCitation", Grammar(),
            {"tags": ["catalogue"], "summary": "The citation of a snapshot as a file",
             "description": ("The catalogue's `citation` of a snapshot as a file for reference managers: "
                             "BibTeX (an `@misc` entry), RIS (`TY  - DATA`), CSL-JSON (an array of one "
                             "`dataset` item) or the plain text, as an attachment named after the snapshot. From the "
                             "snapshot's manifest: its publisher, licence and publication date; a synthetic "
                             "snapshot's note says not to cite it. Its URL is absolute (the service's public "
                             "address, or the request's own scheme and host) and every format carries the access "
                             "date, the UTC day it was served: BibTeX `urldate`, RIS `Y2`, CSL `accessed`, the "
                             "text's `Accessed`. Cached until the next midnight UTC at most.")},
            _data_responses(_CITATION_CONTENT, {**_DATA, "Content-Disposition": ref("headers", "CitationFile")},
                            "`snapshot` is not a snapshot `/api/v1/snapshots` lists.", error),
            [*grammar_parameters(CITATION_QUERY), IF_MODIFIED_SINCE]),
        **{path: _meaning_operations(route) for path, route in QUERY_PATHS.items()},
        DOCUMENT_PATH: _operations(
            "getOpenApi", Grammar(), {"tags": ["operations"], "summary": "This OpenAPI document"},
            {"200": _response("This document.", _CACHED, _json({"type": "object"})),
             "304": _response(_NOT_MODIFIED, _CACHED)}),
        INDEX_PATH: _operations(
            "getIndex", Grammar(),
            {"tags": ["operations"], "summary": "The route index",
             "description": "Every route of this API with its summary, parameters and a link."},
            {"200": _response("The index.", _CACHED, _json(ref("schemas", "Index"))),
             "304": _response(_NOT_MODIFIED, _CACHED)}),
        "/healthz": _operations(
            "getHealth", Grammar(), {"tags": ["operations"], "summary": "The process is alive"},
            {"200": _response("Alive.", _COMMON, _json(ref("schemas", "Health")))}),
        "/readyz": _operations(
            "getReady", Grammar(), {"tags": ["operations"], "summary": "A snapshot is loaded: the service can answer"},
            {"200": _response("Ready.", _COMMON, _json(ref("schemas", "Ready"))),
             "503": _response("No snapshot is loaded, or the process is shutting down.", _ERRORS, _json(error))}),
    }
    _add_examples(paths)
    return paths


_PATH_ARGUMENTS: dict[str, Json] = {
    "id": {"name": "id", "in": "path", "required": True,
           "description": "A snapshot id, `YYYY-MM`, as `/api/v1/snapshots` lists them.",
           "schema": {"type": "string", "pattern": SNAPSHOT_ID}},
}
"""What an argument of a data route's path (``{id}``) is."""


_FILE_SCHEMAS: Json = {
    "DataPackage": {
        "type": "object",
        "description": ("A Frictionless Data Package descriptor (v1, `tabular-data-package`) with extra properties: "
                        "`snapshot`, `published`, `synthetic`, `notice`, `citation`, `indicators`, and each field's "
                        "`unit`."),
        "required": ["profile", "name", "title", "version", "snapshot", "published", "synthetic", "notice",
                     "citation", "sources", "resources"],
        "properties": {
            "profile": {"const": "tabular-data-package"}, "name": {"type": "string"}, "title": {"type": "string"},
            "description": {"type": "string"}, "version": {"type": "string", "pattern": SNAPSHOT_ID},
            "snapshot": {"type": "string", "pattern": SNAPSHOT_ID}, "published": {"type": "string"},
            "synthetic": {"type": "boolean"}, "notice": {"type": ["string", "null"]},
            "citation": {"type": "object"}, "sources": {"type": "array", "items": {"type": "object"}},
            "resources": {"type": "array", "items": {"type": "object"}},
            "downloads": {"type": "array", "items": {"type": "object"}, "description": (
                "Every column each data route's CSV may have: `path`, `format` and `fields` (name, type, "
                "description, unit).")},
        },
    },
}
"""The schema of ``datapackage.json`` (the bulk files' metadata: docs/API.md#downloads)."""
_FILE: Json = {"type": "string", "format": "binary"}
"""A downloaded file: generated clients save it as bytes (openapi-python-client: ``File``)."""
_RANGES: Json = {
    "Accept-Ranges": {"description": "`bytes`: a `Range` of this file is answered.", "schema": {"const": "bytes"}},
}
_PART: Json = {
    "Content-Range": {"description": "The part sent, `bytes first-last/length`; `bytes */length` with 416.",
                      "schema": {"type": "string"}},
}


def _file_disposition(file_format: Format) -> Json:
    """The ``Content-Disposition`` of a Parquet or zip file: its table (or ``package``), snapshot
    id and ``-synthetic`` for synthetic data, as a CSV download's."""
    return {
        "description": (f'`attachment; filename="indicators-2026-11.{file_format.value}"`: the table (or `package`), '
                        "the snapshot id, then `-synthetic` when the data is synthetic."),
        "schema": {"type": "string", "pattern": (
            f'^attachment; filename="[a-z]+-[0-9]{{4}}-[0-9]{{2}}(?:-synthetic)?\\.{file_format.value}"$')},
    }


def _file_operations(route: Route, file_format: Format) -> Json:
    """The operations of a bulk file of a snapshot (``FromFiles``): the file (the descriptor as
    JSON, a CSV, Parquet or zip file as binary), its download headers, and for Parquet and zip
    the byte ranges answered (206, 416)."""
    error = ref("schemas", "Error")
    if file_format is Format.JSON:
        content, answer = _json(ref("schemas", route.schema)), dict(_DATA)
    else:  # CSV as text, the others as bytes: what generated clients read each as
        schema: Json = _FILE if file_format.binary else {"type": "string"}
        content = {file_format.content_type.split(";")[0]: {"schema": schema}}
        disposition = _file_disposition(file_format) if file_format.binary else ref("headers", "Content-Disposition")
        answer = {**_DATA, "Content-Disposition": disposition}
    responses = _data_responses(content, answer, route.not_found, error)
    responses["200"]["description"] = "The file."
    if file_format.binary:
        responses["200"]["headers"] = {**answer, **_RANGES}
        responses["206"] = _response("The byte range `Range` asked for (and `If-Range`, when sent, validates).",
                                     {**answer, **_RANGES, **_PART}, content)
        responses["416"] = _response("`Range` starts past the end of the file: no body.", {**_CACHED, **_PART})
    operation: Json = {"tags": [route.tag], "summary": route.summary, "description": route.description}
    snapshot: Json = {
        **_PATH_ARGUMENTS["id"],
        "description": "A snapshot id, `YYYY-MM`, as `/api/v1/snapshots` lists them, or `current`.",
        "schema": {"type": "string", "pattern": f"^(?:{CURRENT}|{SNAPSHOT_ID[1:-1]})$"},
    }
    return _operations(f"get{route.operation}", route.grammar, operation, responses, [snapshot], data=True)


def _route_operations(route: Route) -> Json:
    """The operations of a data route of the table, from its declaration: its grammar's
    parameters, its answer's schema (JSON, and CSV when it takes ``format``), the headers of a
    paged, list or plain answer, its 404, and a deprecated route's headers and error body."""
    if isinstance(route.source, FromFiles):
        return _file_operations(route, route.source.format)
    schema = ref("schemas", route.schema)
    content = _json_or_csv(schema) if Format.CSV in route.formats else _json(schema)
    if route.schema in _SNAPSHOTLESS:
        answer_headers = _HISTORY
    else:
        answer_headers = _PAGED if route.paged else _LIST if "limit" in route.grammar else _DATA
    operation: Json = {"tags": [route.tag], "summary": route.summary, "description": route.description}
    if route.deprecated:
        operation["deprecated"] = True
    not_found_body = ref("schemas", "LegacyError" if route.deprecated else "Error")
    responses = _data_responses(content, answer_headers, route.not_found, not_found_body,
                                _LEGACY_HEADERS if route.deprecated else None)
    arguments: list[JsonValue] = [_PATH_ARGUMENTS[name] for name in re.findall(r"\{([a-z]+)\}", route.path)]
    return _operations(f"get{route.operation}", route.grammar, operation, responses, arguments, data=True)


_DOWNLOAD: Json = {DOWNLOAD_TYPE: {"schema": _FILE}}
"""A download's body: bytes to save, a generated client's file
(docs/DECISIONS.md#answers-as-files-a-path-per-file-format)."""


def _download_operations(download: Download) -> Json:
    """The operations of a route's download path (``Download``): the route's, without ``format``,
    answering the file's bytes as ``application/octet-stream`` with its name."""
    route = download.route
    extension = download.format.extension
    operation: Json = {
        "tags": [route.tag], "summary": f"{route.summary}, as a .{extension} file",
        "description": (f"`{route.path}` with `format={download.format.value}`, as a download: the same bytes and "
                        f"the same parameters (but `format`, which the path says), sent as `{DOWNLOAD_TYPE}` with the "
                        "file's name in `Content-Disposition`, so that a generated client returns them as a file."),
    }
    answer_headers = {**(_PAGED if route.paged else _LIST if "limit" in route.grammar else _DATA),
                      "Content-Disposition": ref("headers", "Content-Disposition")}
    if route.schema in _SNAPSHOTLESS:
        answer_headers = {**_HISTORY, "Content-Disposition": ref("headers", "Content-Disposition")}
    responses = _data_responses(_DOWNLOAD, answer_headers, route.not_found, ref("schemas", "Error"))
    arguments: list[JsonValue] = [_PATH_ARGUMENTS[name] for name in re.findall(r"\{([a-z]+)\}", route.path)]
    return _operations(f"get{route.operation}{extension.capitalize()}", download.grammar, operation, responses,
                       arguments, data=True)


def _citation_file_operations(chosen: CitationFormat) -> Json:
    """The operations of the citation's download path in ``chosen`` (``/api/v1/citation.bib``)."""
    path = citation_file_path(chosen)
    return _operations(
        f"getCitation{chosen.value.capitalize()}", CITATION_FILE_QUERY,
        {"tags": ["catalogue"], "summary": f"The citation of a snapshot as a {chosen.extension} file",
         "description": (f"`{CITATION_PATH}?format={chosen.value}` as a download: the same bytes, sent as "
                         f"`{DOWNLOAD_TYPE}` with the file's name, so that a generated client returns them as a "
                         f"file. `{path}` takes `snapshot` only.")},
        _data_responses(_DOWNLOAD, {**_DATA, "Content-Disposition": ref("headers", "CitationFile")},
                        "`snapshot` is not a snapshot `/api/v1/snapshots` lists.", ref("schemas", "Error")),
        [IF_MODIFIED_SINCE])


def _row_tables() -> Json:
    """The answer and row schemas of the routes that declare their rows' columns (``Route.rows``)."""
    tables: Json = {}
    for route in ROUTES:
        if route.rows is not None:
            tables.update(row_table(route.schema, f"{route.operation}Row", route.summary, route.rows))
    return tables


def _meaning_operations(route: Route) -> Json:
    """``/api/v1/query/{name}``: what a query means to the data route ``route`` (parsed by its
    grammar), with that route's parameters (docs/API.md#get-apiv1queryroute-what-a-query-means)."""
    error = ref("schemas", "Error")
    data_path = route.path
    return _operations(
        f"getQuery{route.operation}", Grammar(),
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
        _meaning_parameters(route))


def _meaning_parameters(route: Route) -> list[JsonValue]:
    """The query parameters of ``route``, as that route documents them: read and explained, not applied."""
    parameters: list[JsonValue] = []
    for parameter in grammar_parameters(route.grammar):
        read = _object(copy.deepcopy(parameter))
        read["description"] = f"Read as `{route.path}` reads it: {read['description']}"
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
    operation_id: str, grammar: Grammar, operation: Json, responses: dict[str, Json],
    path_parameters: list[JsonValue] | None = None, *, data: bool = False,
) -> Json:
    """The GET operation and its HEAD twin: same parameters (``grammar``'s, after
    ``path_parameters``), statuses and headers, never a body. A ``data`` answer, dated by its
    snapshot, also takes ``If-Modified-Since``.

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
    parameters: list[JsonValue] = [*(path_parameters or []), *grammar_parameters(grammar)]
    if "304" in responses:
        parameters.append(IF_NONE_MATCH)
        if data:
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


def _filled(path: str, parameters: JsonValue) -> str:
    """``path`` with each template its path parameter lets be ``current`` (a snapshot's bulk
    files) filled with it: a link that answers, with no recorded example to take one from."""
    for parameter in parameters if isinstance(parameters, list) else []:
        described = _object(parameter)
        pattern = _object(described["schema"]).get("pattern")
        if described["in"] == "path" and isinstance(pattern, str) and re.fullmatch(pattern, CURRENT):
            path = path.replace("{" + str(described["name"]) + "}", CURRENT)
    return path


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
        href = example if "{" in path and example else _filled(path, parameters)
        route: Json = {
            "path": path, "methods": ["GET", "HEAD"], "summary": get["summary"],
            # A path with a template links to its example (a real snapshot id), not to "{id}".
            "href": href, "parameters": names,
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
