"""``/api/v1/query/{route}``: what a query means to a data route, read by that route's own parser
(readiness/domain/explain.py; docs/API.md#get-apiv1queryroute-what-a-query-means). The pure function,
then the route over HTTP on the real app over the sample: canonical forms of aliases and any case,
the answer's ``url`` giving the data route's very bytes, the data route's own 400s, 404 for a
name that is not a data route, and an answer with no snapshot loaded at all."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any

import orjson
import pytest
from tornado.httpclient import HTTPResponse

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.domain import routes
from readiness.domain.errors import UnknownQueryRoute
from readiness.domain.explain import explain, explain_body, explained_route
from readiness.domain.query import Query, parse_query_string
from readiness.domain.route import Route
from readiness.domain.routes import EXPLAINED
from readiness.http.openapi import QUERY_PATHS, openapi_document
from tests.conftest import ROOT, assert_error_envelope, body, gen_test, summarized_sample
from tests.openapi_server import serving

NAMES = "readiness, indicators, history, aggregates, rankings/changes"


@pytest.fixture(scope="module")
def warm_store() -> SnapshotStore:
    """The sample with every snapshot's summary read: history and aggregates answer from them."""
    return summarized_sample()


@pytest.fixture
def sample_store(warm_store: SnapshotStore) -> SnapshotStore:
    """The ``app`` fixture's store (tests/conftest.py): the module's warm one."""
    return warm_store


async def get(http_client: Any, base_url: str, target: str, **kwargs: Any) -> HTTPResponse:
    response: HTTPResponse = await http_client.fetch(base_url + target, raise_error=False, **kwargs)
    return response


# --- the pure function ---------------------------------------------------------------------------


def test_explain_sort_alias_and_order_case_canonical_pairs_in_order() -> None:
    query = parse_query_string("order=DESC&sort=score&region=lac&fcv=1", routes.V1.grammar)
    assert explain(query, "/api/v1/readiness") == {
        "apiVersion": "1",
        "route": "/api/v1/readiness",
        "query": "region=Latin%20America%20%26%20Caribbean&fcv=true&sort=Composite%20Readiness%20Score&order=desc",
        "url": "/api/v1/readiness?region=Latin%20America%20%26%20Caribbean&fcv=true"
               "&sort=Composite%20Readiness%20Score&order=desc",
        "parameters": {"region": "Latin America & Caribbean", "fcv": "true",
                       "sort": "Composite Readiness Score", "order": "desc"},
    }
    assert list(orjson.loads(explain_body(query, "/api/v1/readiness"))["parameters"]) == [
        "region", "fcv", "sort", "order"
    ]


def test_explain_defaults_url_is_the_path_alone() -> None:
    meaning = explain(Query(), "/api/v1/history")
    assert (meaning["query"], meaning["url"], meaning["parameters"]) == ("", "/api/v1/history", {})


def test_explain_defaults_written_out_are_left_out() -> None:
    query = parse_query_string("sort=Country%20Name&order=asc&offset=0&format=json&_=7", routes.V1.grammar)
    assert explain(query, "/api/v1/readiness")["url"] == "/api/v1/readiness"


@pytest.mark.parametrize(("route", "raw"), [
    (routes.V1, "codes=ken,bra&fields=score,global%20RANK&weights=human:2,infra:1&sort=custom&limit=5&offset=5"),
    (routes.V1, "code=tuv&shortnames=1&indicators=ge.est&year=2025&format=CSV"),
    (routes.INDICATORS, "snapshot=2024-06&region=ssa&income=lmc&shape=LONG"),
    (routes.HISTORY, "codes=KEN&years=2024:2026&fields=Region,score"),
    (routes.AGGREGATES, "by=INCOME&fcv=0&years=2025"),
])
def test_explain_query_parses_back_to_the_same_query(route: Route, raw: str) -> None:
    query = parse_query_string(raw, route.grammar)
    meaning = explain(query, route.path)
    assert parse_query_string(str(meaning["query"]), route.grammar) == query
    parameters = meaning["parameters"]
    assert isinstance(parameters, dict)
    assert Query.parse(parameters, route.grammar) == query


def test_explained_route_names_the_data_routes() -> None:
    assert {name: route.path for name, route in EXPLAINED.items()} == {
        "readiness": "/api/v1/readiness", "indicators": "/api/v1/indicators",
        "history": "/api/v1/history", "aggregates": "/api/v1/aggregates",
        "rankings/changes": "/api/v1/rankings/changes",
    }
    assert explained_route("readiness") is routes.V1


@pytest.mark.parametrize("name", ["snapshots", "legacy", "v1", "Readiness", ""])
def test_explained_route_other_name_is_unknown_naming_accepted(name: str) -> None:
    with pytest.raises(UnknownQueryRoute) as raised:
        explained_route(name)
    assert raised.value.status == 404
    assert NAMES in raised.value.message


# --- over HTTP ------------------------------------------------------------------------------------


CANONICAL = [
    ("readiness", "sort=score&order=desc", {"sort": "Composite Readiness Score", "order": "desc"}),
    ("readiness", "sort=SCORE", {"sort": "Composite Readiness Score", "order": "desc"}),
    ("readiness", "region=lac", {"region": "Latin America & Caribbean"}),
    ("readiness", "region=South%20America", {"region": "Latin America & Caribbean"}),
    ("readiness", "region=sa&income=hic&fcv=1", {"region": "Latin America & Caribbean", "income": "High income",
                                                 "fcv": "true"}),
    ("readiness", "codes=ken,Bra&codes=ind&_=123", {"codes": "BRA,IND,KEN"}),
    ("readiness", "sort=Global%20Rank&order=ASC", {"sort": "Global Rank", "order": "asc"}),
    ("readiness", "weights=1,1,1,1,1&sort=CUSTOM", {"sort": "Custom Score", "order": "desc", "weights": "1,1,1,1,1"}),
    ("indicators", "code=ken&indicators=ge.est&shape=Long", {"codes": "KEN", "indicators": "GE.EST", "shape": "long"}),
    ("history", "code=KEN&fields=score&format=CSV", {"codes": "KEN", "fields": "Composite Readiness Score",
                                                     "format": "csv"}),
    ("aggregates", "by=REGION&fcv=false", {"fcv": "false", "by": "region"}),
]


@gen_test
@pytest.mark.parametrize(("name", "raw", "parameters"), CANONICAL)
async def test_query_route_aliases_and_any_case_give_the_canonical_form(
    http_client: Any, base_url: str, name: str, raw: str, parameters: dict[str, str]
) -> None:
    response = await get(http_client, base_url, f"/api/v1/query/{name}?{raw}")
    assert response.code == 200, response.body
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    meaning = body(response)
    assert meaning["parameters"] == parameters
    assert list(meaning) == ["apiVersion", "route", "query", "url", "parameters"]
    assert meaning["route"] == f"/api/v1/{name}"
    assert meaning["url"] == f"/api/v1/{name}?{meaning['query']}"


@gen_test
async def test_query_route_spellings_of_one_query_get_one_answer(http_client: Any, base_url: str) -> None:
    spellings = ["sort=score&order=desc&region=lac", "region=LAC&order=DESC&sort=SCORE",
                 "region=Latin%20America%20%26%20Caribbean&sort=Composite+Readiness+Score&order=desc&_x=1"]
    answers = [await get(http_client, base_url, f"/api/v1/query/readiness?{raw}") for raw in spellings]
    assert len({answer.body for answer in answers}) == 1
    assert len({answer.headers["ETag"] for answer in answers}) == 1


SAME_BYTES = [
    ("readiness", "sort=score&order=desc"),
    ("readiness", "region=lac&fields=score,Country%20Name&sort=global%20rank"),
    ("readiness", "income=hic&fcv=0&limit=5&offset=3&order=ASC&sort=score"),
    ("readiness", "codes=ken,bra&indicators=ge.est&shortnames=1"),
    ("readiness", "weights=human:2,infra:1&sort=custom&limit=3"),
    ("readiness", "sort=custom&limit=3"),  # the published weights, as if given
    ("readiness", "region=ssa&format=CSV&fields=score"),
    ("readiness", "year=2025&region=na"),
    ("readiness", "year=2025&snapshot=2024-06&region=na"),  # year chooses: snapshot is left out
    ("readiness", ""),
    ("indicators", "code=ken&indicators=ge.est,it.net.user.zs&shape=LONG"),
    ("history", "code=ken&years=2025:2026&fields=score"),
    ("history", "code=ken&years=2026:2025&fields=score"),  # either year first: the same range
    ("aggregates", "by=INCOME&snapshot=2024-06"),
]


@gen_test(timeout=60)  # history and aggregates read every snapshot's summary on a busy machine
@pytest.mark.parametrize(("name", "raw"), SAME_BYTES)
async def test_query_route_url_gets_the_same_bytes_as_the_request(
    http_client: Any, base_url: str, name: str, raw: str
) -> None:
    meaning = body(await get(http_client, base_url, f"/api/v1/query/{name}?{raw}"))
    original = await get(http_client, base_url, f"/api/v1/{name}?{raw}")
    canonical = await get(http_client, base_url, str(meaning["url"]))
    assert original.code == canonical.code == 200, original.body[:300]
    assert canonical.body == original.body
    assert canonical.headers["ETag"] == original.headers["ETag"]


BAD = [
    ("readiness", "sort=bogus", "sort="),
    ("readiness", "region=atlantis", "region="),
    ("readiness", "fcv=maybe", "fcv="),
    ("readiness", "order=up&sort=score", "order="),
    ("readiness", "regoin=LAC", "'regoin'"),
    ("readiness", "level=country", "level=country"),
    ("readiness", "year=2025&snapshot=2024-13", "snapshot="),
    ("indicators", "sort=score", "'sort'"),
    ("history", "weights=1,1,1,1,1", "'weights'"),
    ("history", "years=2024:", "years="),
    ("aggregates", "by=country", "by="),
]


@gen_test
@pytest.mark.parametrize(("name", "raw", "fragment"), BAD)
async def test_query_route_bad_input_is_the_data_routes_own_400(
    http_client: Any, base_url: str, name: str, raw: str, fragment: str
) -> None:
    explained = await get(http_client, base_url, f"/api/v1/query/{name}?{raw}")
    data = await get(http_client, base_url, f"/api/v1/{name}?{raw}")
    assert_error_envelope(explained, 400, fragment)
    assert explained.body == data.body
    assert explained.headers["Cache-Control"] == "no-store"


@gen_test
@pytest.mark.parametrize("target", ["/api/v1/query/nope", "/api/v1/query/snapshots?format=csv",
                                    "/api/v1/query/READINESS", "/api/v1/query/%20"])
async def test_query_route_unknown_route_is_404_naming_the_routes(http_client: Any, base_url: str, target: str) -> None:
    response = await get(http_client, base_url, target)
    assert_error_envelope(response, 404, "No query route", NAMES)


@gen_test
async def test_query_route_checks_form_not_existence(http_client: Any, base_url: str) -> None:
    """A year without a December archive is a 404 of the data route, and a well-formed query here."""
    assert (await get(http_client, base_url, "/api/v1/readiness?year=2019")).code == 404
    meaning = body(await get(http_client, base_url, "/api/v1/query/readiness?year=2019&snapshot="))
    assert meaning["parameters"] == {"year": "2019"}


@gen_test
async def test_query_route_caching_headers_head_and_304(http_client: Any, base_url: str) -> None:
    target = "/api/v1/query/readiness?sort=score"
    first = await get(http_client, base_url, target)
    assert first.headers["Cache-Control"] == "public, max-age=3600"
    assert first.headers["ETag"].startswith('"')
    assert "X-Readiness-Snapshot" not in first.headers
    head = await get(http_client, base_url, target, method="HEAD")
    assert head.code == 200 and head.body == b""
    assert head.headers["ETag"] == first.headers["ETag"]
    again = await get(http_client, base_url, target, headers={"If-None-Match": first.headers["ETag"]})
    assert again.code == 304 and again.body == b""
    with_slash = await get(http_client, base_url, "/api/v1/query/readiness/?sort=score")
    assert with_slash.body == first.body


def test_query_route_answers_without_any_snapshot(tmp_path: Path) -> None:
    """No snapshot is loaded (an empty data directory): the data route is not ready, this one answers."""
    store = SnapshotStore(tmp_path)
    with serving(make_app(Settings(), store)) as url:
        with urllib.request.urlopen(f"{url}/api/v1/query/readiness?region=lac", timeout=10) as response:
            assert response.status == 200
            assert orjson.loads(response.read())["parameters"] == {"region": "Latin America & Caribbean"}
    assert store.current is None


# --- the OpenAPI document -------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "route"), QUERY_PATHS.items())
def test_query_route_operations_document_the_data_routes_parameters(path: str, route: Route) -> None:
    data_path = route.path
    paths: Any = openapi_document()["paths"]
    for method in ("get", "head"):
        operation = paths[path][method]
        documented = [p for p in operation["parameters"] if p["in"] == "query"]
        assert [p["name"] for p in documented] == list(route.grammar.names)
        data = {p["name"]: p for p in paths[data_path][method]["parameters"] if p["in"] == "query"}
        for parameter in documented:  # the data route's own schema, its text prefixed
            assert parameter["schema"] == data[parameter["name"]]["schema"]
            assert parameter["description"].endswith(data[parameter["name"]]["description"])
        assert set(operation["responses"]) == {"200", "304", "400", "414"}


# --- docs/API.md ------------------------------------------------------------------------------------

_SECTION = (ROOT / "docs" / "API.md").read_text().split("### `GET /api/v1/query/{route}`")[1].split("\n## ")[0]
DOC_EXAMPLES = [
    (match.group(1), [line for line in block.splitlines() if line.startswith("{")][-1])
    for block in _SECTION.split("$ curl")[1:]
    if (match := re.match(r" -si? 'http://127\.0\.0\.1:8080(\S+)'", block)) is not None
]


def test_query_route_docs_show_four_examples() -> None:
    assert len(DOC_EXAMPLES) == 4


@gen_test
@pytest.mark.parametrize(("target", "shown"), DOC_EXAMPLES)
async def test_query_route_docs_examples_are_what_it_answers(
    http_client: Any, base_url: str, target: str, shown: str
) -> None:
    response = await get(http_client, base_url, target)
    assert response.body.decode() == shown
    etag = re.search(rf"^\$ curl -si '\S+{re.escape(target)}'\n(?:.*\n)*?Etag: (\S+)", _SECTION, re.MULTILINE)
    if etag is not None:
        assert response.headers["ETag"] == etag.group(1)
