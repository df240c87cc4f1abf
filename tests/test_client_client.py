"""The official client's routes (clients/python/readiness_client/client.py): each method one
DataFrame equal to the service's JSON, against a real ``server.py`` on the bundled (synthetic)
sample; paging followed, snapshots pinned, answers revalidated from disk, the notice warned,
citations as the service writes them. What the service does not do on demand (a snapshot
published between two pages, a ``Link`` leading back) is scripted (tests/client_fake.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from readiness_client import ApiError, Client, NoticeWarning, SnapshotChanged
from readiness_client.client import frame, param, query, records, years_param
from tests.client_fake import Reply, scripted
from tests.processes import Server, get, serving_sample

# Every answer of the sample carries its notice: the tests that are not about it leave it be.
pytestmark = pytest.mark.filterwarnings("ignore::readiness_client.NoticeWarning")

# --- pure functions -------------------------------------------------------------------------


def test_param_writes_values_as_the_service_reads_them() -> None:
    assert param(None) is None
    assert param(True) == "true" and param(False) == "false"
    assert param(2024) == "2024" and param("lac") == "lac"
    assert param(["KEN", "BRA"]) == "KEN,BRA" and param(("KEN",)) == "KEN"
    assert param({"infrastructure": 2, "human": 1}) == "infrastructure:2,human:1"
    assert years_param((2015, 2020)) == "2015:2020"
    assert years_param(2024) == "2024" and years_param("2023:2025") == "2023:2025" and years_param(None) is None
    assert query(codes=["KEN"], region=None, fcv=False, limit=5) == {"codes": "KEN", "fcv": "false", "limit": "5"}


def test_records_reads_a_list_or_one_object() -> None:
    assert records([{"a": 1}, {"a": 2}]) == [{"a": 1}, {"a": 2}]
    assert records({"a": 1}) == [{"a": 1}]
    with pytest.raises(TypeError):
        records("text")


def test_frame_keeps_json_integers_and_booleans_with_nulls_typed() -> None:
    table = frame([
        {"code": "KEN", "rank": 3, "score": 42.0, "fcv": True, "note": None},
        {"code": "ABW", "rank": None, "score": None, "fcv": None, "note": None},
    ])
    assert list(table.columns) == ["code", "rank", "score", "fcv", "note"]
    assert str(table["rank"].dtype) == "Int64" and table["rank"].iloc[0] == 3 and table["rank"].isna().iloc[1]
    assert str(table["fcv"].dtype) == "boolean"
    assert table["score"].dtype == "float64"  # a JSON number with a fraction stays a float
    assert frame([]).empty


def test_page_size_and_limit_are_checked() -> None:
    with pytest.raises(ValueError, match="page_size=0"):
        Client("http://127.0.0.1:9", page_size=0)
    with pytest.raises(ValueError, match="page_size=1001"):
        Client("http://127.0.0.1:9", page_size=1001)
    with pytest.raises(ValueError, match="limit=0"):
        Client("http://127.0.0.1:9", cache=False).readiness(limit=0)


# --- against server.py ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving_sample(tmp_path_factory.mktemp("client-server")) as running:
        yield running


@pytest.fixture
def client(server: Server, tmp_path: Path) -> Client:
    return Client(server.url(""), cache_dir=tmp_path / "cache")


def envelope(server: Server, path: str) -> dict[str, Any]:
    status, body = get(server.url(path))
    assert status == 200, body
    parsed: dict[str, Any] = json.loads(body)
    return parsed


def rows_of(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The DataFrame's rows as JSON would write them: a missing value as None."""
    def plain(value: Any) -> Any:
        if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
            return None
        return value.item() if hasattr(value, "item") else value
    return [{name: plain(value) for name, value in row.items()} for row in table.to_dict("records")]


def json_rows(data: Any, columns: list[str]) -> list[dict[str, Any]]:
    """The envelope's rows with every column (a key a row lacks is a missing value)."""
    return [{name: row.get(name) for name in columns} for row in records(data)]


ROUTES: list[tuple[str, Callable[[Client], pd.DataFrame], str]] = [
    ("readiness region", lambda c: c.readiness(region="lac"), "/api/v1/readiness?region=lac"),
    ("readiness codes", lambda c: c.readiness(["KEN", "BRA", "XXX"], fields=["Country Name", "score", "Global Rank"],
                                              indicators=["GE.EST"]),
     "/api/v1/readiness?codes=KEN,BRA,XXX&fields=Country%20Name,score,Global%20Rank&indicators=GE.EST"),
    ("readiness one code", lambda c: c.readiness("KEN", fields=["score"]), "/api/v1/readiness?code=KEN&fields=score"),
    ("readiness weights", lambda c: c.readiness(income="LIC", weights=[2, 1, 1, 1, 1], sort="custom"),
     "/api/v1/readiness?income=LIC&weights=2,1,1,1,1&sort=custom"),
    ("indicators", lambda c: c.indicators("KEN", indicators=["GE.EST", "IT.NET.USER.ZS"]),
     "/api/v1/indicators?code=KEN&indicators=GE.EST,IT.NET.USER.ZS"),
    ("indicators long years", lambda c: c.indicators(["KEN", "BRA"], indicators=["IT.NET.USER.ZS"],
                                                     years=(2024, 2026), shape="long"),
     "/api/v1/indicators?codes=KEN,BRA&indicators=IT.NET.USER.ZS&years=2024:2026&shape=long"),
    ("history long", lambda c: c.history(codes=["KEN", "BRA"], shape="long"),
     "/api/v1/history?codes=KEN,BRA&shape=long"),
    ("history region", lambda c: c.history(region="ssa", fcv=True, years=(2025, 2026), fields=["score"]),
     "/api/v1/history?region=ssa&fcv=true&years=2025:2026&fields=score"),
    ("aggregates", lambda c: c.aggregates(by="region"), "/api/v1/aggregates?by=region"),
    ("aggregates years", lambda c: c.aggregates(by="fcv", years=(2025, 2026)),
     "/api/v1/aggregates?by=fcv&years=2025:2026"),
    ("movers", lambda c: c.movers(from_="2024-12", measure="rank", region="ssa"),
     "/api/v1/rankings/changes?from=2024-12&measure=rank&region=ssa"),
    ("snapshots", lambda c: c.snapshots(), "/api/v1/snapshots"),
]


@pytest.mark.parametrize(("call", "path"), [pytest.param(call, path, id=name) for name, call, path in ROUTES])
def test_each_route_is_one_dataframe_equal_to_its_json(client: Client, server: Server,
                                                       call: Callable[[Client], pd.DataFrame], path: str) -> None:
    table = call(client)
    answer = envelope(server, path)
    assert len(table) == len(records(answer["data"])) > 0
    assert rows_of(table) == json_rows(answer["data"], list(table.columns))
    assert table.attrs["notice"] == answer["notice"]
    assert table.attrs["snapshot"] == (answer["snapshot"] if answer["snapshot"] != "current" else "2026-11")


def test_history_long_keeps_the_values_numeric_and_the_ranks_whole(client: Client) -> None:
    table = client.history(codes=["KEN"], years=2026, shape="long")
    assert list(table["measure"])[:2] == ["Composite Readiness Score", "Infrastructure Score"]
    assert table["value"].dtype == "float64"
    wide = client.history(codes=["KEN"], years=2026)
    assert str(wide["Global Rank"].dtype) == "int64" and wide["Global Rank"].iloc[0] == 123


def test_small_pages_are_followed_to_every_row(server: Server, tmp_path: Path) -> None:
    paged = Client(server.url(""), page_size=7, cache_dir=tmp_path)
    table = paged.readiness(region="lac", sort="score")
    whole = envelope(server, "/api/v1/readiness?region=lac&sort=score")
    assert (len(table), table.attrs["pages"], table.attrs["total"]) == (42, 6, 42)
    assert rows_of(table) == json_rows(whole["data"], list(table.columns))
    long = Client(server.url(""), page_size=50, cache_dir=tmp_path).history(codes=["KEN", "BRA"], shape="long")
    assert (len(long), long.attrs["pages"]) == (64, 2)


def test_limit_stops_paging_at_that_many_rows(server: Server, tmp_path: Path) -> None:
    table = Client(server.url(""), page_size=3, cache_dir=tmp_path).readiness(sort="score", limit=10)
    top = envelope(server, "/api/v1/readiness?sort=score&limit=10")
    assert (len(table), table.attrs["pages"], table.attrs["total"]) == (10, 4, 217)
    assert rows_of(table) == json_rows(top["data"], list(table.columns))


def test_a_pinned_client_answers_from_its_snapshot(server: Server, tmp_path: Path) -> None:
    pinned = Client(server.url(""), snapshot="2024-06", cache_dir=tmp_path)
    table = pinned.readiness(["KEN"], fields=["score", "Global Rank"])
    assert table.attrs["snapshot"] == "2024-06"
    assert rows_of(table) == json_rows(
        envelope(server, "/api/v1/readiness?snapshot=2024-06&codes=KEN&fields=score,Global%20Rank")["data"],
        list(table.columns))
    assert set(pinned.indicators("KEN", indicators=["GE.EST"])["snapshot"]) == {"2024-06"}
    assert set(pinned.aggregates()["snapshot"]) == {"2024-06"}
    assert pinned.movers(limit=1).attrs["snapshot"] == "2024-06"
    # A year asked for in the call chooses over the pin.
    assert pinned.readiness("KEN", year=2025).attrs["snapshot"] == "2025-12"
    # History: the snapshots up to the pin, so the series it gave is the series it gives.
    history = Client(server.url(""), snapshot="2024-12", cache_dir=tmp_path).history("KEN")
    assert list(history["snapshot"]) == ["2023-12", "2024-12"]


def test_pin_pins_the_current_snapshot(client: Client) -> None:
    pinned = client.pin()
    assert (pinned.snapshot, client.snapshot) == ("2026-11", None)
    assert pinned.readiness("KEN").attrs["url"].endswith("/api/v1/readiness?codes=KEN&snapshot=2026-11&limit=1000")
    assert "version = {2026-11}" in pinned.citation()


def test_a_second_call_is_revalidated_and_served_from_disk(server: Server, tmp_path: Path) -> None:
    first = Client(server.url(""), page_size=10, cache_dir=tmp_path).readiness(region="ssa")
    again = Client(server.url(""), page_size=10, cache_dir=tmp_path).readiness(region="ssa")
    assert (first.attrs["pages"], first.attrs["revalidated"]) == (5, 0)
    assert (again.attrs["pages"], again.attrs["revalidated"]) == (5, 5)
    pd.testing.assert_frame_equal(again, first)
    uncached = Client(server.url(""), page_size=10, cache=False).readiness(region="ssa")
    assert uncached.attrs["revalidated"] == 0
    assert Client(server.url(""), cache=False).clear_cache() == 0


def test_clear_cache_empties_the_disk(client: Client) -> None:
    client.readiness("KEN")
    client.aggregates()
    assert client.clear_cache() == 2
    assert client.readiness("KEN").attrs["revalidated"] == 0


def test_the_notice_is_raised_as_a_warning_at_the_callers_line(client: Client, server: Server) -> None:
    notice = envelope(server, "/api/v1/aggregates")["notice"]
    with pytest.warns(NoticeWarning) as caught:
        client.aggregates()
    assert [(str(warning.message), warning.filename) for warning in caught] == [(notice, __file__)]
    assert notice.startswith("SYNTHETIC SAMPLE DATA")
    with pytest.warns(NoticeWarning) as caught:
        client.snapshots()
    assert [warning.filename for warning in caught] == [__file__]
    assert issubclass(NoticeWarning, UserWarning)


@pytest.mark.parametrize("format_", ["bibtex", "ris", "csl", "text"])
def test_citation_is_the_services_text(client: Client, server: Server, format_: str) -> None:
    status, body = get(server.url(f"/api/v1/citation?format={format_}&snapshot=2024-12"))
    assert status == 200
    text = client.citation(format_, snapshot="2024-12")  # type: ignore[arg-type]
    assert text == body.decode("utf-8")
    assert "2024-12" in text
    if format_ == "csl":
        assert json.loads(text)[0]["version"] == "2024-12"


def test_a_refused_request_raises_the_services_message(client: Client) -> None:
    with pytest.raises(ApiError) as raised:
        client.readiness(order="up")  # type: ignore[arg-type]
    assert raised.value.status == 400
    assert raised.value.message == "Invalid request. order='up' is not valid; use asc or desc."
    with pytest.raises(ApiError) as raised:
        client.readiness(snapshot="2019-12")
    assert raised.value.status == 404


# --- what the service does not do on demand -------------------------------------------------


def page(rows: list[int], snapshot: str, link: str | None = None) -> Reply:
    headers = {"X_Readiness_Snapshot": snapshot, "X_Total_Count": "4", **({"Link": link} if link else {})}
    return Reply.json({"apiVersion": "1", "snapshot": snapshot, "count": len(rows),
                       "data": [{"n": n} for n in rows]}, **headers)


def test_pages_from_two_snapshots_are_refused() -> None:
    with scripted() as fake:
        next_page = '</api/v1/history?limit=2&offset=2>; rel="next"'
        fake.script("/api/v1/history?limit=2", page([1, 2], "2026-11", next_page))
        fake.script("/api/v1/history?limit=2&offset=2", page([3, 4], "2026-12"))
        with pytest.raises(SnapshotChanged, match="2026-11 and 2026-12"):
            Client(fake.url, page_size=2, cache=False).history()


def test_a_link_leading_back_is_refused_not_followed_forever() -> None:
    with scripted() as fake:
        fake.script("/api/v1/history?limit=2", page([1, 2], "2026-11", '</api/v1/history?limit=2>; rel="next"'))
        with pytest.raises(ApiError, match="leads back"):
            Client(fake.url, page_size=2, cache=False).history()
        assert len(fake.requests) == 1


def test_world_bank_style_links_are_followed_too() -> None:
    with scripted() as fake:
        links = '</api/v1/history?limit=2>; rel="first", </api/v1/history?limit=2&page=2>; rel="next"'
        fake.script("/api/v1/history?limit=2", page([1, 2], "2026-11", links))
        last = '</api/v1/history?limit=2>; rel="first", </api/v1/history?limit=2>; rel="prev"'
        fake.script("/api/v1/history?limit=2&page=2", page([3, 4], "2026-11", last))
        table = Client(fake.url, page_size=2, cache=False).history()
    assert list(table["n"]) == [1, 2, 3, 4]
