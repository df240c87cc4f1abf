"""The OpenAPI document: valid, served as built, complete, and true of the running service.

Three layers: the document against the code's tables (every parameter Query.parse reads, every
contract field); real answers of the app against the document's response schemas; and a
bounded, derandomized schemathesis run against a real server on 127.0.0.1.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest
import schemathesis
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi import checks as openapi_checks
from tornado.httpclient import HTTPResponse
from tornado.httputil import HTTPHeaders

from config import Settings
from loaders import COUNTRY_FIELDS, DETAILS, INDICATOR_FIELDS, REGION_SHORT, SnapshotStore
from readiness import make_app
from readiness.errors import InvalidParameter
from readiness.openapi import LEGACY_PATH, V1_PATH, openapi_document
from readiness.query import MAX_INDICATORS, Query
from readiness.vocabulary import FIELD_ALIASES, REGION_ALIASES
from tests.conftest import gen_test
from tests.openapi_server import serving

DOCUMENT: Any = openapi_document()
COMPONENTS: Any = DOCUMENT["components"]
QUERY_PARAMETERS = {
    name: parameter for name, parameter in COMPONENTS["parameters"].items() if parameter["in"] == "query"
}


def _names_parse_reads() -> set[str]:
    """The parameter names Query.parse looks up in ``values``, read from its source code.

    Finds ``values["x"]``, ``"x" in values`` and ``values.get("x", ...)``, so a parameter added
    to parse and not to the document fails the test below.
    """

    def is_values(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "values"

    names: set[str] = set()
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(Query.parse)))):
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


# --- the document itself -------------------------------------------------------------------


def test_openapi_document_is_valid_openapi_3_1() -> None:
    validate(openapi_document())
    assert DOCUMENT["openapi"] == "3.1.0"
    assert "synthetic" in DOCUMENT["info"]["description"]


@gen_test
async def test_openapi_served_document_equals_builder(http_client: Any, base_url: str) -> None:
    response = await http_client.fetch(f"{base_url}/api/v1/openapi.json")
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    served = orjson.loads(response.body)
    validate(served)
    assert served == openapi_document()


def test_openapi_query_parameters_are_exactly_those_parse_reads() -> None:
    read = _names_parse_reads()
    assert len(read) >= 10, read  # the source scan still finds the parameters
    assert set(QUERY_PARAMETERS) == read


@pytest.mark.parametrize("name", sorted(QUERY_PARAMETERS))
def test_openapi_each_documented_parameter_is_validated_by_parse(name: str) -> None:
    params = {"code": "KEN", name: "!"}  # a code, so that indicators are read too
    with pytest.raises(InvalidParameter) as raised:
        Query.parse(params)
    assert raised.value.name == name


@pytest.mark.parametrize("name", sorted(QUERY_PARAMETERS))
def test_openapi_each_parameter_example_is_accepted(name: str) -> None:
    example = QUERY_PARAMETERS[name]["example"]
    Query.parse({"code": "KEN", name: example})


@pytest.mark.parametrize(
    "name", sorted(name for name, p in QUERY_PARAMETERS.items() if "pattern" in p["schema"])
)
@settings(max_examples=60, derandomize=True, database=None)
@given(data=st.data())
def test_openapi_every_pattern_match_is_accepted_by_parse(name: str, data: st.DataObject) -> None:
    """Whatever a parameter's pattern allows, Query.parse accepts: the document is not looser."""
    pattern = QUERY_PARAMETERS[name]["schema"]["pattern"]
    value = data.draw(st.from_regex(pattern, fullmatch=True).filter(lambda v: v.count(",") < MAX_INDICATORS))
    Query.parse({"code": "KEN", name: value})


def test_openapi_region_description_lists_every_accepted_name() -> None:
    description = QUERY_PARAMETERS["region"]["description"]
    for name in [*REGION_SHORT, *REGION_SHORT.values(), *REGION_ALIASES]:
        assert name in description
        assert Query.parse({"region": name.lower()}).region in REGION_SHORT


def test_openapi_country_schema_has_every_contract_field() -> None:
    properties = COMPONENTS["schemas"]["Country"]["properties"]
    for field in COUNTRY_FIELDS:
        documented = dict(properties[field.name])
        assert documented.pop("description") == field.description
        assert documented == dict(field.schema)
    extras = {"RegionShort", DETAILS, *FIELD_ALIASES}
    assert set(properties) == {field.name for field in COUNTRY_FIELDS} | extras
    assert properties["RegionShort"]["enum"] == list(REGION_SHORT.values())


def test_openapi_indicator_detail_schema_has_every_contract_key() -> None:
    properties = COMPONENTS["schemas"]["IndicatorDetail"]["properties"]
    assert list(properties) == list(INDICATOR_FIELDS)
    for name, schema in INDICATOR_FIELDS.items():
        documented = dict(properties[name])
        assert documented.pop("description") != name  # a real description, not the fallback
        assert documented == dict(schema)


def test_openapi_legacy_operations_are_deprecated_and_v1_are_not() -> None:
    for method in ("get", "head"):
        assert DOCUMENT["paths"][LEGACY_PATH][method]["deprecated"] is True
        assert "deprecated" not in DOCUMENT["paths"][V1_PATH][method]


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


def assert_conforms(method: str, path: str, status: int, headers: Mapping[str, str], body: bytes) -> None:
    """The answer's status, headers and body are what the document says for this operation."""
    operation = DOCUMENT["paths"][path][method.lower()]
    assert str(status) in operation["responses"], (method, path, status, body)
    response = _resolve(operation["responses"][str(status)])
    for name, header in response.get("headers", {}).items():
        header = _resolve(header)
        if header.get("required"):
            assert name in headers, (name, path, status)
        if name in headers:
            Draft202012Validator(header["schema"]).validate(headers[name])
    if "content" not in response or method == "HEAD":
        assert body == b"", body
        return
    [(media_type, content)] = response["content"].items()
    assert headers["Content-Type"].split(";")[0] == media_type
    schema = content["schema"]
    if "$ref" in schema:
        schema = {"$ref": "urn:openapi" + schema["$ref"]}
    instance = orjson.loads(body) if media_type == "application/json" else body.decode()
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
    ("GET", V1_PATH, "?year=2022", 404),
    ("GET", V1_PATH, "?level=country", 400),
    ("GET", V1_PATH, "?region=atlantis", 400),
    ("GET", V1_PATH, "?code=" + "A" * 9000, 414),
    ("HEAD", V1_PATH, "?code=KEN", 200),
    ("GET", LEGACY_PATH, "?code=KEN", 200),
    ("GET", LEGACY_PATH, "?code=XYZ", 404),
    ("GET", LEGACY_PATH, "?year=2022", 404),
    ("GET", LEGACY_PATH, "?sort=nothing", 400),
    ("GET", "/api/v1/openapi.json", "", 200),
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


@gen_test
@pytest.mark.parametrize("path", [V1_PATH, LEGACY_PATH, "/api/v1/openapi.json"])
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


# --- schemathesis against a real server --------------------------------------------------------


@pytest.fixture(scope="module")
def live_server() -> Iterator[str]:
    """The real app over the bundled sample, listening on a free 127.0.0.1 port."""
    store = SnapshotStore(Settings().data_dir)
    store.load_current()
    with serving(make_app(Settings(), store)) as url:
        yield url


# Built from the dict, not fetched: schemathesis.pytest.from_fixture (the lazy loader that
# from_url on a fixture's server needs) fails under pytest 9 (no Function._nodeid), and
# test_openapi_served_document_equals_builder proves the served document is this one. An
# explicit Config keeps a stray schemathesis.toml from changing the run.
SCHEMA = schemathesis.openapi.from_dict(openapi_document(), config=schemathesis.Config())

CONFORMANCE = [
    not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
    openapi_checks.unsupported_method,
]
"""What every answer must satisfy. positive_data_acceptance and negative_data_rejection are
left out: OpenAPI cannot state rules that join parameters (level=country needs a code;
indicators are read only in country mode), so they would flag correct answers."""


@SCHEMA.parametrize()
@settings(max_examples=100, derandomize=True, deadline=None, database=None)
def test_openapi_schemathesis_every_answer_conforms(case: schemathesis.Case[Any], live_server: str) -> None:
    """No 5xx, and every status, content type, header and body is the document's (~10 s)."""
    case.call_and_validate(base_url=live_server, checks=CONFORMANCE, timeout=10)
