"""``/api/v1/rankings/changes`` (readiness/domain/movers.py and its entry in the route table):
the rows as plain functions over tiny series, then the route over HTTP on the bundled sample,
its CSV read by pandas, its paging, its errors, what it means to /api/v1/query and its OpenAPI
operation."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import quote

import orjson
import pandas as pd
import pytest
from tornado.httpclient import HTTPResponse

from loaders import Snapshot, Summary, series_of
from readiness.domain import routes
from readiness.domain.errors import InvalidParameter, InvalidRequest, SnapshotNotFound
from readiness.domain.meta import Format
from readiness.domain.movers import COLUMN_NAMES, compared, compute_movers, mover_rows, movers_cost
from readiness.domain.query import Query
from readiness.http.openapi import openapi_document
from tests.conftest import assert_error_envelope, body, country, gen_test, links, snapshot
from tests.test_openapi import assert_conforms

ROUTE = routes.RANKING_CHANGES
PATH = "/api/v1/rankings/changes"


def _world(snapshot_id: str, **scores: tuple[float | None, int | None]) -> Snapshot:
    """A series of economies with (composite, global rank), Kenya and Somalia fragile."""
    regions = {"KEN": "Sub-Saharan Africa", "SOM": "Sub-Saharan Africa", "BRA": "Latin America & Caribbean",
               "TUV": "East Asia & Pacific"}
    return snapshot(*(
        country(code, code.title(), regions[code], **{"Composite Readiness Score": score, "Global Rank": rank,
                                                      "FCV Status": code == "SOM", "Income Level": "Low income"})
        for code, (score, rank) in scores.items()
    ), snapshot_id=snapshot_id)


def _summaries(*worlds: Snapshot) -> list[Summary]:
    return [Summary("identity", len(world.countries), len(world.countries), False, (), series_of(world))
            for world in worlds]


OLD = _world("2025-06", KEN=(40.0, 3), SOM=(10.0, 4), BRA=(60.0, 1), TUV=(50.0, None))
DECEMBER = _world("2025-12", KEN=(41.5, 2), SOM=(10.0, 4), BRA=(58.0, 1), TUV=(50.25, None))
NOW = _world("2026-11", KEN=(45.0, 1), SOM=(9.0, 4), BRA=(44.0, 2))
SUMMARIES = _summaries(OLD, DECEMBER, NOW)


def _query(raw: str = "") -> Query:
    return ROUTE.parse(raw)


def _rows(raw: str = "") -> list[dict[str, Any]]:
    earlier, later = compared(SUMMARIES, NOW, _query(raw))
    return mover_rows(earlier, later, _query(raw))


def test_default_compares_the_current_snapshot_with_the_one_listed_before_it() -> None:
    earlier, later = compared(SUMMARIES, NOW, _query())
    assert (earlier.id, later.id) == ("2025-12", "2026-11")
    earlier, later = compared(SUMMARIES, NOW, _query("to=2025-12"))
    assert (earlier.id, later.id) == ("2025-06", "2025-12")


def test_any_two_listed_snapshots_either_way() -> None:
    assert [row["score_change"] for row in _rows("from=2026-11&to=2025-06")] == [16.0, -5.0, 1.0]
    assert {(row["from"], row["to"]) for row in _rows("from=2025-06&to=2026-11")} == {("2025-06", "2026-11")}


def test_rows_are_economies_in_both_largest_score_move_first_with_directions() -> None:
    rows = _rows()
    assert [row["Country Code"] for row in rows] == ["BRA", "KEN", "SOM"]  # TUV left: not in 2026-11
    assert rows[0] == {
        "Country Code": "BRA", "Country Name": "Bra", "Region": "Latin America & Caribbean",
        "Income Level": "Low income", "from": "2025-12", "to": "2026-11",
        "score_from": 58.0, "score_to": 44.0, "score_change": -14.0, "score_direction": "down",
        "rank_from": 1, "rank_to": 2, "rank_change": 1, "rank_direction": "worse",
    }
    assert (rows[1]["score_direction"], rows[1]["rank_direction"]) == ("up", "better")
    assert (rows[2]["score_change"], rows[2]["rank_change"], rows[2]["rank_direction"]) == (-1.0, 0, "same")
    assert tuple(rows[0]) == COLUMN_NAMES


def test_measure_rank_orders_by_the_rank_move_ties_by_code_and_unknown_last() -> None:
    assert [row["Country Code"] for row in _rows("measure=RANK")] == ["BRA", "KEN", "SOM"]  # 1 and -1: by code
    rows = _rows("from=2025-06&to=2025-12&measure=rank")
    assert [row["Country Code"] for row in rows] == ["KEN", "BRA", "SOM", "TUV"]  # BRA, SOM: 0; TUV unranked
    assert (rows[-1]["rank_change"], rows[-1]["rank_direction"], rows[-1]["score_change"]) == (None, None, 0.25)


def test_filters_apply_to_the_later_snapshot_and_codes_select() -> None:
    assert [row["Country Code"] for row in _rows("fcv=1")] == ["SOM"]
    assert [row["Country Code"] for row in _rows("region=ssa")] == ["KEN", "SOM"]
    assert [row["Country Code"] for row in _rows("codes=som,ken")] == ["KEN", "SOM"]


@pytest.mark.parametrize(
    ("raw", "error", "message"),
    [
        ("from=2019-12", SnapshotNotFound, "No snapshot '2019-12'"),
        ("to=2030-01", SnapshotNotFound, "No snapshot '2030-01'"),
        ("to=2025-06", InvalidRequest, "No snapshot is listed before 2025-06"),
    ],
)
def test_a_snapshot_not_listed_or_none_before_is_said_before_any_work(
    raw: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        movers_cost(SUMMARIES, NOW, _query(raw))


def test_a_snapshot_newer_than_the_current_one_is_not_listed() -> None:
    with pytest.raises(SnapshotNotFound):
        compared(SUMMARIES, DECEMBER, _query("to=2026-11"))


@pytest.mark.parametrize(("raw", "name"), [("from=2025-13", "from"), ("to=2025", "to"), ("measure=size", "measure")])
def test_bad_values_name_their_parameter(raw: str, name: str) -> None:
    with pytest.raises(InvalidParameter, match=f"{name}="):
        _query(raw)


def test_canonical_query_keeps_from_to_and_measure_and_drops_the_default_measure() -> None:
    assert _query("measure=score&to=2026-11&from=2025-12&region=lac").canonical() == (
        "region=Latin%20America%20%26%20Caribbean&from=2025-12&to=2026-11"
    )
    assert _query("measure=Rank").option("measure") == "rank"


def test_answer_pages_with_a_link_and_totals_and_says_its_snapshots() -> None:
    answer = compute_movers(SUMMARIES, NOW, _query("limit=2"), ROUTE)
    document = orjson.loads(answer.body)
    assert (document["snapshot"], document["count"], answer.meta.total) == ("2026-11", 2, 3)
    assert links(answer.meta.links) == {"next": f"{PATH}?limit=2&offset=2", "last": f"{PATH}?limit=2&offset=2"}
    assert (document["page"], document["pages"], document["per_page"], document["total"]) == (1, 2, 2, 3)
    last = compute_movers(SUMMARIES, NOW, _query("limit=2&offset=2"), ROUTE)
    assert links(last.meta.links) == {"first": f"{PATH}?limit=2", "prev": f"{PATH}?limit=2"}
    assert [row["Country Code"] for row in orjson.loads(last.body)["data"]] == ["SOM"]


def test_answer_names_codes_neither_snapshot_has() -> None:
    document = orjson.loads(compute_movers(SUMMARIES, NOW, _query("codes=KEN,XYZ"), ROUTE).body)
    assert document["unmatched"] == {"codes": ["XYZ"]}


def test_csv_has_the_columns_in_order() -> None:
    answer = compute_movers(SUMMARIES, NOW, Query(format=Format.CSV), ROUTE)
    header = answer.body.decode("utf-8-sig").splitlines()[0]
    assert header.startswith(",".join(COLUMN_NAMES) + ",snapshot_id")  # then notice, where the snapshots have one
    assert answer.meta.download == "movers"


# --- over HTTP, on the bundled sample -------------------------------------------------------


@gen_test
async def test_http_answer_is_the_current_snapshot_against_the_previous_one(http_client: Any, base_url: str) -> None:
    response = await http_client.fetch(f"{base_url}{PATH}?limit=5")
    document = body(response)
    assert response.headers["X-Readiness-Snapshot"] == "2026-11" and document["count"] == 5
    assert {(row["from"], row["to"]) for row in document["data"]} == {("2025-12", "2026-11")}  # type: ignore[index]
    changes = [abs(row["score_change"]) for row in document["data"]]  # type: ignore[index]
    assert changes == sorted(changes, reverse=True)
    assert links(response.headers["Link"]) == {"next": f"{PATH}?limit=5&offset=5", "last": f"{PATH}?limit=5&offset=215"}
    assert document["total"] == 217 and document["pages"] == 44
    assert document["notice"]  # the sample says it is synthetic
    assert_conforms("GET", PATH, 200, response.headers, response.body)


@gen_test
async def test_http_csv_read_by_pandas_is_the_json_rows(http_client: Any, base_url: str) -> None:
    query = "from=2024-12&region=lac&measure=rank"
    rows = body(await http_client.fetch(f"{base_url}{PATH}?{query}"))["data"]
    response: HTTPResponse = await http_client.fetch(f"{base_url}{PATH}?{query}&format=csv")
    assert response.headers["Content-Disposition"] == 'attachment; filename="movers-2026-11-synthetic.csv"'
    table = pd.read_csv(io.BytesIO(response.body), encoding="utf-8-sig", keep_default_na=False, na_values=[""])
    assert list(table.columns) == [*COLUMN_NAMES, "snapshot_id", "notice"]
    assert set(table["snapshot_id"]) == {"2026-11"}  # the later snapshot compared
    assert list(table["Country Code"]) == [row["Country Code"] for row in rows]  # type: ignore[index]
    read = [None if pd.isna(change) else int(change) for change in table["rank_change"]]  # unranked: empty
    assert read == [row["rank_change"] for row in rows]  # type: ignore[index]
    assert_conforms("GET", PATH, 200, response.headers, response.body)


@gen_test
async def test_http_second_request_is_a_hit_with_the_same_etag(http_client: Any, base_url: str) -> None:
    first = await http_client.fetch(f"{base_url}{PATH}?codes=KEN,BRA&from=2023-12")
    again = await http_client.fetch(f"{base_url}{PATH}?from=2023-12&codes=bra,ken",
                                    headers={"If-None-Match": first.headers["Etag"]}, raise_error=False)
    assert again.code == 304


@gen_test
@pytest.mark.parametrize(
    ("query", "status", "fragment"),
    [
        ("from=2019-12", 404, "No snapshot '2019-12'"),
        ("to=2022-06", 400, "No snapshot is listed before 2022-06"),
        ("from=2024-13", 400, "from='2024-13'"),
        ("measure=size", 400, "measure='size'"),
        ("years=2024", 400, "Unknown parameter 'years'"),
    ],
)
async def test_http_errors_name_what_is_wrong(
    http_client: Any, base_url: str, query: str, status: int, fragment: str
) -> None:
    response = await http_client.fetch(f"{base_url}{PATH}?{query}", raise_error=False)
    assert_error_envelope(response, status, fragment)
    assert_conforms("GET", PATH, status, response.headers, response.body)


@gen_test
async def test_query_route_explains_it(http_client: Any, base_url: str) -> None:
    response = await http_client.fetch(f"{base_url}/api/v1/query/rankings/changes?TO=2026-11&measure=RANK&_=1"
                                       .replace("TO", "to"))
    meaning = body(response)
    assert meaning["route"] == PATH and meaning["parameters"] == {"to": "2026-11", "measure": "rank"}
    same = await http_client.fetch(f"{base_url}{meaning['url']}")
    direct = await http_client.fetch(f"{base_url}{PATH}?measure=rank&to={quote('2026-11')}")
    assert same.body == direct.body


def test_openapi_operation_lists_its_parameters_and_rows() -> None:
    document: Any = openapi_document()
    operation = document["paths"][PATH]["get"]
    assert operation["operationId"] == "getRankingChanges"
    assert [p["name"] for p in operation["parameters"] if p["in"] == "query"] == list(ROUTE.grammar.names)
    row = document["components"]["schemas"]["RankingChangesRow"]
    assert row["required"] == list(COLUMN_NAMES)
    assert "/api/v1/query/rankings/changes" in document["paths"]
