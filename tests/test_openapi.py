"""The OpenAPI document and the route index: valid, served as built, complete, renderable, and
true of the running service.

Four layers: the document against the code's tables (every parameter each route reads, every
accepted value of every closed set); how viewers render it (parameters on the operations, a
relative server, no angle brackets in Markdown); real answers of the app against the document's
response schemas, the recorded examples included; and, in tests/test_openapi_fuzz.py, a bounded,
deterministic schemathesis run (`--checks all`, coverage and fuzzing) against a real server on 127.0.0.1.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from tornado.httpclient import HTTPResponse
from tornado.httputil import HTTPHeaders

from config import Settings
from loaders import COUNTRY_FIELDS, DETAILS, INDICATOR_FIELDS, REGION_SHORT, SnapshotStore
from readiness.app import make_app
from readiness.domain import routes
from readiness.domain.errors import InvalidParameter, InvalidRequest
from readiness.domain.parameters import BOOLEANS, MAX_INDICATORS
from readiness.domain.query import Query
from readiness.domain.route import Route
from readiness.domain.vocabulary import CUSTOM_FIELDS, CUSTOM_SORT_NAMES, FIELD_ALIASES, INCOME_GROUPS, REGION_ALIASES
from readiness.http.openapi import DOCUMENT_PATH, INDEX_PATH, api_index, openapi_document
from readiness.http.openapi_examples import EXAMPLES, EXAMPLES_FILE, recorded
from tests.conftest import gen_test, summarized_sample
from tests.openapi_examples import answers, encoded
from tests.openapi_server import serving

DOCUMENT: Any = openapi_document()
PATHS: Any = DOCUMENT["paths"]
ROUTES = {route.path: route for route in routes.ROUTES}
"""The document's data paths and the route whose parameters the parser reads for each."""
V1_PATH, LEGACY_PATH = routes.V1.path, routes.LEGACY.path
INDICATORS_PATH, HISTORY_PATH, AGGREGATES_PATH = routes.INDICATORS.path, routes.HISTORY.path, routes.AGGREGATES.path
SNAPSHOTS_PATH = routes.SNAPSHOTS.path


def query_parameters(path: str, method: str = "get") -> dict[str, Any]:
    """The query parameters of an operation, by name."""
    return {p["name"]: p for p in PATHS[path][method].get("parameters", []) if p["in"] == "query"}


V1_PARAMETERS = query_parameters(V1_PATH)


@pytest.fixture(scope="module")
def warm_store() -> SnapshotStore:
    """One store over the sample for the whole module, every snapshot's summary read."""
    return summarized_sample()


@pytest.fixture
def sample_store(warm_store: SnapshotStore) -> SnapshotStore:
    """The ``app`` fixture's store (tests/conftest.py): the module's warm one."""
    return warm_store


# --- the document against the code ---------------------------------------------------------


def test_openapi_document_is_valid_openapi_3_1() -> None:
    validate(openapi_document())
    assert DOCUMENT["openapi"] == "3.1.0"
    assert "synthetic" in DOCUMENT["info"]["description"]


@gen_test
async def test_openapi_served_document_equals_builder(http_client: Any, base_url: str) -> None:
    response = await http_client.fetch(f"{base_url}{DOCUMENT_PATH}")
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    served = orjson.loads(response.body)
    validate(served)
    assert served == openapi_document()


@pytest.mark.parametrize(("path", "route"), ROUTES.items())
def test_openapi_each_route_documents_exactly_the_names_it_accepts(path: str, route: Route) -> None:
    for method in ("get", "head"):
        assert list(query_parameters(path, method)) == list(route.grammar.names)


def _names_parse_reads() -> set[str]:
    """The parameter names Query.parse reads from ``values``, found in its source code, so a
    parameter the parser reads but no route accepts fails below."""

    def is_values(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "values"

    names: set[str] = set()
    source = textwrap.dedent(inspect.getsource(Query.parse)) + textwrap.dedent(inspect.getsource(Query._parse))
    for node in ast.walk(ast.parse(source)):
        key: ast.AST | None = None
        if isinstance(node, ast.Subscript) and is_values(node.value):
            key = node.slice
        elif isinstance(node, ast.Compare) and is_values(node.comparators[0]):
            key = node.left
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and is_values(node.func.value):
            key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
    return names


def test_openapi_documents_every_parameter_parse_reads() -> None:
    read = _names_parse_reads()
    assert len(read) >= 15, read  # the source scan still finds the parameters
    documented = {name for path in ROUTES for name in query_parameters(path)}
    own = {parameter.name for route in routes.ROUTES for parameter in route.grammar.parameters if parameter.read}
    assert documented - own == read  # each shared one read by Query.parse, each route's own by its reader
    assert not own & read


def _with_code(params: dict[str, str], path: str) -> dict[str, str]:
    """``params`` plus ``code=KEN`` where the route takes it: country mode, so that the country
    query reads everything it is given."""
    return {"code": "KEN", **params} if "code" in query_parameters(path) else params


ALL_PARAMETERS = sorted({(name, path) for path in ROUTES for name in query_parameters(path)})


@pytest.mark.parametrize(("name", "path"), ALL_PARAMETERS)
def test_openapi_each_documented_parameter_is_validated_by_parse(name: str, path: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        Query.parse(_with_code({name: "!"}, path), ROUTES[path].grammar)
    assert raised.value.name == name


def _item(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema of one value: an array's items (``codes``, ``fields``, ``indicators``), else itself."""
    return schema["items"] if schema["type"] == "array" else schema


def _values(schema: Mapping[str, Any]) -> list[str]:
    """Every value an enum parameter (or an enum array's items) admits."""
    return list(_item(schema)["enum"])


ENUMS = [(name, path, value) for name, path in ALL_PARAMETERS
         if "enum" in _item(schema := query_parameters(path)[name]["schema"])
         for value in _values(schema)]


@pytest.mark.parametrize(("name", "path", "value"), ENUMS)
def test_openapi_every_enum_value_is_accepted_in_any_case(name: str, path: str, value: str) -> None:
    for spelled in {value, value.upper(), value.lower()}:
        Query.parse(_with_code({name: spelled}, path), ROUTES[path].grammar)


PATTERNS = [(name, path) for name, path in ALL_PARAMETERS if "pattern" in _item(query_parameters(path)[name]["schema"])]


@pytest.mark.parametrize(("name", "path"), PATTERNS)
@settings(max_examples=60, derandomize=True, database=None)
@given(data=st.data())
def test_openapi_every_pattern_match_is_accepted_by_parse(name: str, path: str, data: st.DataObject) -> None:
    """Whatever a parameter's pattern allows, Query.parse accepts: the document is not looser."""
    pattern = _item(query_parameters(path)[name]["schema"])["pattern"]
    value = data.draw(st.from_regex(pattern, fullmatch=True).filter(lambda v: v.count(",") < MAX_INDICATORS))
    Query.parse(_with_code({name: value}, path), ROUTES[path].grammar)


WEIGHTS = [
    ("1,1,1,1,1", True), ("0,0,0,0,0.0001", True), ("0000.5,0,0,0,0", True), ("human:1", True),
    ("infrastructure:0,governance:0.5", True), ("infrastructure:2,human:1,access:0,innovation:0,governance:0", True),
    ("0,0,0,0,0", False), ("0.0,00,0.0000,0,0", False), ("human:0", False), ("access:0,governance:0.0", False),
    ("human:1,human:2", False), ("infrastructure:1,human:1,infrastructure:1", False), ("1,1,1,1", False),
]
"""Weights the document's schema accepts or refuses, the rules between the weights included."""


@pytest.mark.parametrize(("value", "valid"), WEIGHTS)
def test_openapi_weights_schema_states_not_all_zero_and_no_dimension_twice(value: str, valid: bool) -> None:
    """The schema says what the service does: what it accepts is answered, what it refuses is a 400."""
    schema = V1_PARAMETERS["weights"]["schema"]
    assert Draft202012Validator(schema).is_valid(value) is valid
    if valid:
        assert Query.parse({"weights": value}).weights is not None
    else:
        with pytest.raises(InvalidParameter):
            Query.parse({"weights": value})


def test_openapi_closed_sets_list_every_accepted_name() -> None:
    assert set(_values(V1_PARAMETERS["region"]["schema"])) == {
        "", *REGION_SHORT, *REGION_SHORT.values(), *REGION_ALIASES
    }
    assert set(_values(V1_PARAMETERS["income"]["schema"])) == {"", *INCOME_GROUPS, *INCOME_GROUPS.values()}
    assert set(_values(V1_PARAMETERS["sort"]["schema"])) == {
        "", *(f.name for f in COUNTRY_FIELDS), *FIELD_ALIASES, *CUSTOM_SORT_NAMES
    }
    assert set(_values(V1_PARAMETERS["fields"]["schema"])) == {
        *(f.name for f in COUNTRY_FIELDS), DETAILS, *FIELD_ALIASES
    }
    for name in ("shortnames", "fcv"):
        assert _values(V1_PARAMETERS[name]["schema"]) == ["", *BOOLEANS]
    assert _values(V1_PARAMETERS["format"]["schema"]) == ["", "json", "csv"]
    assert _values(V1_PARAMETERS["order"]["schema"]) == ["", "asc", "desc"]
    # country is valid only beside a code (a 400 alone): the document leaves it out, and says it
    assert _values(V1_PARAMETERS["level"]["schema"]) == ["", "global"]
    assert "`country` is read too" in V1_PARAMETERS["level"]["description"]


@pytest.mark.parametrize("name", ["region", "income", "sort"])
@settings(max_examples=80, derandomize=True, database=None)
@given(value=st.text(alphabet=st.characters(codec="ascii"), max_size=30))
def test_openapi_closed_sets_admit_nothing_else(name: str, value: str) -> None:
    """A value outside the enum (in any case, trimmed) is a 400: the document is not stricter."""
    if value.strip(" \t\n\r\x0b\x0c").lower() in {v.lower() for v in _values(V1_PARAMETERS[name]["schema"])}:
        return
    with pytest.raises(InvalidParameter):
        Query.parse({name: value})


def test_openapi_country_schema_has_every_contract_field() -> None:
    properties = DOCUMENT["components"]["schemas"]["Country"]["properties"]
    for field in COUNTRY_FIELDS:
        documented = dict(properties[field.name])
        assert documented.pop("description") == field.description
        assert documented == dict(field.schema)
    extras = {"RegionShort", DETAILS, *FIELD_ALIASES, *CUSTOM_FIELDS}
    assert set(properties) == {field.name for field in COUNTRY_FIELDS} | extras
    assert properties["RegionShort"]["enum"] == list(REGION_SHORT.values())


def test_openapi_indicator_detail_schema_has_every_contract_key() -> None:
    properties = DOCUMENT["components"]["schemas"]["IndicatorDetail"]["properties"]
    assert list(properties) == list(INDICATOR_FIELDS)
    for name, schema in INDICATOR_FIELDS.items():
        documented = dict(properties[name])
        assert documented.pop("description") != name  # a real description, not the fallback
        assert documented == dict(schema)


def test_openapi_legacy_operations_are_deprecated_and_v1_are_not() -> None:
    for method in ("get", "head"):
        assert PATHS[LEGACY_PATH][method]["deprecated"] is True
        assert "deprecated" not in PATHS[V1_PATH][method]


# --- what viewers need (Swagger UI 5, Redoc) -----------------------------------------------


def _strings(node: Any, key: str) -> Iterator[str]:
    """Every string under ``key`` anywhere in ``node``."""
    if isinstance(node, dict):
        for name, value in node.items():
            if name == key and isinstance(value, str):
                yield value
            yield from _strings(value, key)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item, key)


def test_openapi_parameters_are_on_the_operations_inline() -> None:
    """Swagger UI 5 shows path-level $ref parameters as nameless "any" and sends none of them."""
    for path, item in PATHS.items():
        assert "parameters" not in item, path
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                assert "$ref" not in parameter and parameter["name"], (path, method)
                assert "example" not in parameter and "default" not in parameter["schema"]


def test_openapi_server_is_the_pages_own_origin() -> None:
    assert [server["url"] for server in DOCUMENT["servers"]] == ["/"]


def test_openapi_descriptions_render_as_written() -> None:
    """Redoc renders Markdown with HTML: ``<year>-12`` showed as ``-12``. No angle brackets, and
    every code span closed."""
    texts = [*_strings(DOCUMENT, "description"), *_strings(DOCUMENT, "summary")]
    assert len(texts) > 100
    for text in texts:
        assert "<" not in text and ">" not in text, text
        assert text.count("`") % 2 == 0, text


def test_openapi_every_closed_set_is_an_enum() -> None:
    closed = {"region", "income", "sort", "order", "level", "shortnames", "fcv", "format"}
    for path in ROUTES:
        for name, parameter in query_parameters(path).items():
            if name in closed:
                assert "enum" in parameter["schema"], (path, name)
            if name == "fields":
                assert parameter["explode"] is False and "enum" in parameter["schema"]["items"]
            if name in ROUTES[path].grammar.lists:  # merged when repeated: generated clients send arrays exploded
                assert parameter["schema"]["type"] == "array" and parameter["explode"] is False, (path, name)


def test_openapi_indicator_row_year_is_deprecated_for_observed_year_and_details_keep_it() -> None:
    schemas = DOCUMENT["components"]["schemas"]
    row = schemas["IndicatorRow"]["properties"]
    assert row["year"]["deprecated"] is True and "observed_year" in row["year"]["description"]
    assert row["observed_year"]["type"] == row["year"]["type"]
    # `fields` keeps the row's key and what it names: observed_year is a column it may leave out
    assert schemas["IndicatorRow"]["required"] == ["Country Code", "snapshot", "indicator_code"]
    assert "deprecated" not in schemas["IndicatorDetail"]["properties"]["year"]  # the specification's element


@pytest.mark.parametrize("name", ["IndicatorTable", "History", "Aggregates", "RankingChangesTable", "Catalogue",
                                  "Changes"])
def test_openapi_every_v1_envelope_requires_snapshot_id_and_current(name: str) -> None:
    schema = DOCUMENT["components"]["schemas"][name]
    assert {"snapshot_id", "current"} <= set(schema["required"])
    assert schema["properties"]["current"] == {**schema["properties"]["current"], "type": "boolean"}
    # The readiness envelope is the legacy route's too, which has neither: described, not required.
    assert {"snapshot_id", "current"} <= set(DOCUMENT["components"]["schemas"]["Envelope"]["properties"])


# --- examples: real answers of the sample ---------------------------------------------------


def test_openapi_examples_are_todays_real_answers(warm_store: SnapshotStore) -> None:
    """Run every example request against the app over the sample: the recorded file must be
    what it answers today (regenerate with ``.venv/bin/python -m tests.openapi_examples``)."""
    today = answers(warm_store)
    assert encoded(today) == EXAMPLES_FILE.read_bytes(), "run: .venv/bin/python -m tests.openapi_examples"


def test_openapi_every_example_is_in_the_document() -> None:
    assert set(recorded()) == {example.name for example in EXAMPLES}
    for example in EXAMPLES:
        content = PATHS[example.path]["get"]["responses"][str(example.status)]["content"]
        media = recorded()[example.name]["contentType"]
        shown = content[media]["examples"][example.name]
        assert shown["value"] == recorded()[example.name]["value"]
        assert example.target in shown["description"]


def test_openapi_every_readiness_request_shape_has_an_example() -> None:
    shapes = {example.target.partition("?")[2] for example in EXAMPLES if example.path == V1_PATH}
    for wanted in ("limit=", "code=", "codes=", "region=", "fields=", "year=", "format=csv"):
        assert any(wanted in shape for shape in shapes), wanted
    statuses = {example.status for example in EXAMPLES if example.path == V1_PATH}
    assert {200, 400, 404} <= statuses


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
def test_openapi_each_example_conforms_to_its_schema(example: Any) -> None:
    answer = recorded()[example.name]
    response = PATHS[example.path]["get"]["responses"][str(example.status)]
    schema = response["content"][answer["contentType"]]["schema"]
    if "$ref" in schema:
        schema = {"$ref": "urn:openapi" + schema["$ref"]}
    Draft202012Validator(schema, registry=_REGISTRY).validate(answer["value"])


# --- the route index -------------------------------------------------------------------------


@gen_test
async def test_openapi_index_is_served_and_every_link_answers(http_client: Any, base_url: str) -> None:
    index = orjson.loads((await http_client.fetch(f"{base_url}{INDEX_PATH}")).body)
    assert index == api_index()
    assert {route["path"] for route in index["routes"]} == set(PATHS)
    for route in index["routes"]:
        assert route["parameters"] == list(query_parameters(route["path"]))
        for target in (route["href"], route.get("example", route["href"])):
            response = await http_client.fetch(base_url + target, raise_error=False)
            assert response.code == 200, (target, response.body[:200])
    for link in ("openapi", "snapshots", "self"):
        assert (await http_client.fetch(base_url + index["links"][link])).code == 200


# --- real answers against the document ------------------------------------------------------

_REGISTRY: Registry[Any] = Registry().with_resource(
    "urn:openapi", Resource.from_contents(DOCUMENT, default_specification=DRAFT202012)
)


def _resolve(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local ``$ref`` to the component it names."""
    if "$ref" not in node:
        return node
    target: Any = DOCUMENT
    for part in str(node["$ref"]).removeprefix("#/").split("/"):
        target = target[part]
    return _resolve(target)


def _operation_path(path: str) -> str:
    """The document's path template that ``path`` matches."""
    for template in PATHS:
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path):
            return str(template)
    raise AssertionError(f"no operation for {path}")


def assert_conforms(method: str, path: str, status: int, headers: Mapping[str, str], body: bytes) -> None:
    """The answer's status, headers and body are what the document says for this operation."""
    operation = PATHS[_operation_path(path)][method.lower()]
    assert str(status) in operation["responses"], (method, path, status, body)
    response = _resolve(operation["responses"][str(status)])
    media_type = headers.get("Content-Type", "").split(";")[0]
    for name, header in response.get("headers", {}).items():
        header = _resolve(header)
        if header.get("required") and not (name == "Content-Disposition" and media_type != "text/csv"):
            assert name in headers, (name, path, status)
        if name in headers:
            Draft202012Validator(header["schema"]).validate(headers[name])
    if "content" not in response or method == "HEAD":
        assert body == b"", body
        return
    assert media_type in response["content"], (path, media_type)
    schema = response["content"][media_type]["schema"]
    if "$ref" in schema:
        schema = {"$ref": "urn:openapi" + schema["$ref"]}
    instance = orjson.loads(body) if media_type == "application/json" or media_type.endswith("+json") else body.decode()
    Draft202012Validator(schema, registry=_REGISTRY).validate(instance)


REQUESTS = [
    ("GET", V1_PATH, "", 200),
    ("GET", V1_PATH, "?code=KEN", 200),
    ("GET", V1_PATH, "?codes=KEN,BRA,IND&indicators=GE.EST", 200),
    ("GET", V1_PATH, "?codes=KEN,XYZ", 200),
    ("GET", V1_PATH, "?fields=Country%20Name,score,Population,%20total&sort=score", 200),
    ("GET", V1_PATH, "?shortnames=true&region=lac&order=asc", 200),
    ("GET", V1_PATH, "?code=TUV&shortnames=1&fields=Region,Global%20Rank", 200),
    ("GET", V1_PATH, "?year=2025&codes=ARG,BRA", 200),
    ("GET", V1_PATH, "?income=LIC&fcv=true&limit=5&format=csv", 200),
    ("GET", V1_PATH, "?weights=infrastructure:2,human:1&sort=custom&fields=score&limit=5", 200),
    ("GET", V1_PATH, "?codes=KEN,TUV&weights=1,1,1,1,1&format=csv", 200),
    ("GET", V1_PATH, "?code=KEN&weights=2,1,0,0,1", 200),
    ("GET", V1_PATH, "?sort=custom", 200),
    ("GET", V1_PATH, "?year=2022", 404),
    ("GET", V1_PATH, "?level=country", 400),
    ("GET", V1_PATH, "?region=atlantis", 400),
    ("GET", V1_PATH, "?regoin=LAC", 400),
    ("GET", V1_PATH, "?code=" + "A" * 9000, 414),
    ("HEAD", V1_PATH, "?code=KEN", 200),
    ("GET", LEGACY_PATH, "?code=KEN", 200),
    ("GET", LEGACY_PATH, "?code=XYZ", 404),
    ("GET", LEGACY_PATH, "?year=2022", 404),
    ("GET", LEGACY_PATH, "?sort=nothing", 400),
    ("GET", INDICATORS_PATH, "", 200),
    ("GET", INDICATORS_PATH, "?region=NA&income=HIC&limit=3&format=csv", 200),
    ("GET", INDICATORS_PATH, "?year=2022", 404),
    ("GET", HISTORY_PATH, "?codes=KEN,BRA&years=2024:2026", 200),
    ("GET", HISTORY_PATH, "?region=SAS&format=csv", 200),
    ("GET", HISTORY_PATH, "?years=2026:2024", 200),
    ("GET", V1_PATH, "?snapshot=2024-06&region=SSA", 200),
    ("GET", V1_PATH, "?snapshot=2019-12", 404),
    ("GET", INDICATORS_PATH, "?snapshot=2024-06&code=KEN&shape=long", 200),
    ("GET", INDICATORS_PATH, "?indicators=IT.NET.USER.ZS&years=2023:2026&codes=KEN,BRA", 200),
    ("GET", INDICATORS_PATH, "?indicators=GE.EST&years=2024:2026&shape=long&format=csv", 200),
    ("GET", INDICATORS_PATH, "?years=2010:2020", 404),
    ("GET", INDICATORS_PATH, "?snapshot=2025-06", 404),
    ("GET", HISTORY_PATH, "?codes=KEN,BRA&shape=long&limit=20&offset=5", 200),
    ("GET", HISTORY_PATH, "?code=KEN&fields=Region,FCV%20Status,score&shape=long", 200),
    ("GET", HISTORY_PATH, "?code=KEN&fields=score,Global%20Rank&shape=long", 200),
    ("GET", AGGREGATES_PATH, "", 200),
    ("GET", AGGREGATES_PATH, "?by=region&income=LMC&years=2024:2026&format=csv", 200),
    ("GET", AGGREGATES_PATH, "?by=income&snapshot=2024-06", 200),
    ("GET", AGGREGATES_PATH, "?year=2022", 404),
    ("GET", AGGREGATES_PATH, "?by=country", 400),
    ("HEAD", AGGREGATES_PATH, "?by=fcv", 200),
    ("GET", SNAPSHOTS_PATH, "", 200),
    ("GET", SNAPSHOTS_PATH, "?format=csv", 400),
    ("GET", "/api/v1/snapshots/2026-11/changes", "", 200),
    ("GET", "/api/v1/snapshots/2026-11/changes", "?format=csv", 200),
    ("GET", "/api/v1/snapshots/1999-12/changes", "", 404),
    ("GET", "/api/v1/citation", "", 200),
    ("GET", "/api/v1/citation", "?format=ris&snapshot=2024-12", 200),
    ("GET", "/api/v1/citation", "?format=csl", 200),
    ("HEAD", "/api/v1/citation", "?format=csl", 200),
    ("GET", "/api/v1/citation", "?format=xml", 400),
    ("GET", "/api/v1/citation", "?snapshot=2021-12", 404),
    ("GET", "/api/v1/query/readiness", "?sort=score&order=DESC&region=lac&year=2019", 200),
    ("HEAD", "/api/v1/query/readiness", "?sort=score", 200),
    ("GET", "/api/v1/query/indicators", "?code=ken&shape=long&format=csv", 200),
    ("GET", "/api/v1/query/history", "", 200),
    ("GET", "/api/v1/query/aggregates", "?by=region", 200),
    ("GET", "/api/v1/query/readiness", "?sort=bogus", 400),
    ("GET", "/api/v1/query/history", "?weights=1,1,1,1,1", 400),
    ("GET", DOCUMENT_PATH, "", 200),
    ("GET", INDEX_PATH, "", 200),
    ("GET", "/healthz", "", 200),
    ("GET", "/readyz", "", 200),
]


@gen_test
@pytest.mark.parametrize(("method", "path", "query", "status"), REQUESTS)
async def test_openapi_real_answers_conform(
    http_client: Any, base_url: str, method: str, path: str, query: str, status: int
) -> None:
    response: HTTPResponse = await http_client.fetch(
        f"{base_url}{path}{query}", method=method, raise_error=False
    )
    assert response.code == status, response.body
    assert_conforms(method, path, response.code, response.headers, response.body)


TOGETHER = [
    (V1_PATH, {"year": "2025", "snapshot": "2024-06", "region": "NA"}),
    (V1_PATH, {"sort": "Custom Rank", "order": "asc", "limit": "3"}),
    (V1_PATH, {"sort": "custom", "weights": "0,0,0,0,0.5", "level": "global", "limit": "3"}),
    (LEGACY_PATH, {"year": "2025", "level": "global", "region": "NA"}),
    (INDICATORS_PATH, {"code": "KEN", "year": "2025", "years": "2026:2023", "snapshot": "2024-06"}),
    (INDICATORS_PATH, {"code": "KEN", "snapshot": "2024-06", "years": "2026:2023"}),
    (AGGREGATES_PATH, {"snapshot": "2024-06", "years": "2025:2024"}),
    (HISTORY_PATH, {"code": "KEN", "years": "2026:2025"}),
]
"""Values the document allows, each by its own schema, that were 400s together until the
document stated its rules (docs/DECISIONS.md#the-openapi-document-and-the-route-index)."""


@gen_test
@pytest.mark.parametrize(("path", "params"), TOGETHER, ids=[f"{path} {params}" for path, params in TOGETHER])
async def test_openapi_values_the_document_allows_together_are_answered(
    http_client: Any, base_url: str, path: str, params: dict[str, str]
) -> None:
    for name, value in params.items():
        schema = query_parameters(path)[name]["schema"]
        Draft202012Validator(schema).validate(int(value) if schema.get("type") == "integer" else value)
    response: HTTPResponse = await http_client.fetch(f"{base_url}{path}?{urlencode(params)}", raise_error=False)
    assert response.code == 200, response.body
    assert_conforms("GET", path, response.code, response.headers, response.body)


@pytest.mark.parametrize("path", [V1_PATH, LEGACY_PATH])
def test_openapi_level_leaves_out_country_which_needs_a_code(path: str) -> None:
    """``level=country`` alone is the specification's 400, so the document does not allow it;
    beside a code the service still reads it (the document stricter, never looser)."""
    assert not Draft202012Validator(query_parameters(path)["level"]["schema"]).is_valid("country")
    with pytest.raises(InvalidRequest):
        Query.parse({"level": "country"}, ROUTES[path].grammar)
    assert Query.parse({"level": "country", "code": "KEN"}, ROUTES[path].grammar).country_mode


@gen_test
@pytest.mark.parametrize("path", [V1_PATH, LEGACY_PATH, INDICATORS_PATH, HISTORY_PATH, AGGREGATES_PATH,
                                  SNAPSHOTS_PATH, DOCUMENT_PATH, INDEX_PATH, "/api/v1/citation",
                                  "/api/v1/query/readiness"])
async def test_openapi_not_modified_conforms(http_client: Any, base_url: str, path: str) -> None:
    first = await http_client.fetch(f"{base_url}{path}")
    again = await http_client.fetch(
        f"{base_url}{path}", headers={"If-None-Match": first.headers["Etag"]}, raise_error=False
    )
    assert again.code == 304
    assert_conforms("GET", path, 304, again.headers, again.body)


@pytest.mark.parametrize("path", [V1_PATH, LEGACY_PATH, "/readyz"])
def test_openapi_not_ready_conforms(tmp_path: Path, path: str) -> None:
    store = SnapshotStore(tmp_path)  # an empty data directory: nothing to load
    with serving(make_app(Settings(), store)) as url:
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(url + path, timeout=10)
    error = raised.value
    assert error.code == 503
    assert_conforms("GET", path, 503, HTTPHeaders(dict(error.headers.items())), error.read())
