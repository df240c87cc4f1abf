"""The data routes over HTTP (docs/API.md): /api/v1/indicators, /api/v1/history,
/api/v1/snapshots and /api/v1/snapshots/{id}/changes, on the real app over tiny snapshots,
every parameter and every bad input; with the real Redis as tier 2 at the end."""

from __future__ import annotations

import csv
import gzip
import io
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.ioloop import IOLoop
from tornado.web import Application

from builder import Release, build_snapshot, compare
from builder.method import INDICATORS
from builder.write import mark_forced
from config import Settings
from loaders import CHANGES_FILE, JsonValue, SnapshotStore, load_snapshot
from readiness.app import make_app, new_metrics
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import RedisTier, connect
from readiness.domain.tables import HISTORY_DEFAULT, INDICATOR_COLUMNS, MOVER_COLUMNS
from readiness.http.logs import AccessLog
from tests.builder_world import ECA, NEXT_MONTH, STANDARD, economy, world
from tests.conftest import access_lines, assert_error_envelope, body, flip, gen_test, links, place_snapshot
from tests.openapi_server import serving

EVERY = len(INDICATORS)
"""Indicators per economy in the tiny world."""

EARLY = {
    **{key: value for key, value in STANDARD.items() if key.code != "DDD"},
    economy("DDD", region=ECA, income="Low income"): 0.25,
}
"""The tiny world with DDD still a low-income economy: a filter must use each snapshot's own values."""


def data_directory(root: Path) -> Path:
    """2023-12 (DDD low income), 2024-06 (not a December), 2025-12 and the current 2026-11
    (with EEE, NEXT_MONTH); change reports for 2025-12 and 2026-11 as publishing writes them."""
    data = root / "data"
    place_snapshot(data, "2023-12", EARLY)
    place_snapshot(data, "2024-06", STANDARD)
    place_snapshot(data, "2025-12", STANDARD)
    place_snapshot(data, "2026-11", NEXT_MONTH)
    snapshots = data / "snapshots"
    for previous, current in (("2024-06", "2025-12"), ("2025-12", "2026-11")):
        report = compare(load_snapshot(snapshots / previous), load_snapshot(snapshots / current))
        (snapshots / current / CHANGES_FILE).write_bytes(report.encode())
    flip(data, "2026-11")
    return data


NOTICE = "SYNTHETIC: test data"
"""The notice every tiny snapshot's manifest carries (tests/conftest.py place_snapshot)."""
PROVENANCE = ("snapshot_id", "notice")
"""The columns every v1 CSV of a snapshot with a notice ends with (docs/API.md#csv)."""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return data_directory(tmp_path)


@pytest.fixture
def store(data: Path) -> SnapshotStore:
    store = SnapshotStore(data)
    store.load_current()
    return store


@pytest.fixture
def app(store: SnapshotStore) -> Application:
    return make_app(Settings(data_dir=store.data_dir), store, access=AccessLog(io.BytesIO()))


async def get(client: AsyncHTTPClient, base_url: str, path: str, **headers: str) -> HTTPResponse:
    return await client.fetch(f"{base_url}{path}", raise_error=False, headers=headers)


def rows(response: HTTPResponse) -> list[dict[str, JsonValue]]:
    assert response.code == 200, response.body
    data = body(response)["data"]
    assert isinstance(data, list)
    return data  # type: ignore[return-value]


def csv_rows(response: HTTPResponse) -> list[list[str]]:
    assert response.code == 200, response.body
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(response.body.decode("utf-8-sig"), newline="")))


# --- /api/v1/indicators ------------------------------------------------------------------------


@gen_test
async def test_indicators_default_every_indicator_of_every_economy_by_code(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators")
    document = body(response)
    assert document["apiVersion"] == "1" and document["snapshot"] == "2026-11"
    table = rows(response)
    assert document["count"] == len(table) == 6 * EVERY
    assert response.headers["X-Total-Count"] == str(6 * EVERY)
    assert response.headers["X-Readiness-Snapshot"] == "2026-11"
    assert response.headers["Last-Modified"] == "Sun, 01 Nov 2026 00:00:00 GMT"
    assert [row["Country Code"] for row in table[::EVERY]] == ["AAA", "BBB", "CCC", "DDD", "EEE", "MMM"]
    assert [row["indicator_code"] for row in table[:EVERY]] == [indicator.code for indicator in INDICATORS]
    assert all(tuple(row) == INDICATOR_COLUMNS for row in table)
    assert table[0]["snapshot"] == "2026-11" and table[0]["Country Name"] == "Economy AAA"


@gen_test
@pytest.mark.parametrize(
    ("query", "codes", "per_economy"),
    [
        ("code=bbb", ["BBB"], EVERY),
        ("codes=MMM,AAA,XXX", ["AAA", "MMM"], EVERY),
        ("region=ECA", ["DDD"], EVERY),
        ("income=hic", ["DDD", "MMM"], EVERY),
        ("income=High%20income&region=EAP", ["MMM"], EVERY),
        ("fcv=false&code=CCC", ["CCC"], EVERY),
        ("fcv=1", [], EVERY),
        ("indicators=ge.est,IT.NET.USER.ZS&code=AAA", ["AAA"], 2),
        ("indicators=NO.SUCH", [], 0),
    ],
)
async def test_indicators_filters(
    http_client: AsyncHTTPClient, base_url: str, query: str, codes: list[str], per_economy: int
) -> None:
    table = rows(await get(http_client, base_url, f"/api/v1/indicators?{query}"))
    assert sorted({str(row["Country Code"]) for row in table}) == (codes if per_economy else [])
    assert len(table) == len(codes) * per_economy


@gen_test
async def test_indicators_limit_cuts_rows_and_total_counts_all(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?limit=3&code=CCC")
    assert [row["indicator_code"] for row in rows(response)] == [indicator.code for indicator in INDICATORS[:3]]
    assert body(response)["count"] == 3 and response.headers["X-Total-Count"] == str(EVERY)


def next_link(response: HTTPResponse) -> str | None:
    """The target of the ``Link`` header's ``rel="next"``, None without one."""
    return links(response.headers.get("Link")).get("next")


async def follow(client: AsyncHTTPClient, base_url: str, path: str) -> tuple[list[HTTPResponse], int]:
    """Every page from ``path`` on, following ``Link: rel="next"``; and X-Total-Count (the same on
    each). Each page's ``last`` link is the page following ``next`` ends on, and the envelope's
    ``page``, ``pages`` and ``total`` count the pages followed."""
    pages = [await get(client, base_url, path)]
    while (following := next_link(pages[-1])) is not None:
        pages.append(await get(client, base_url, following))
    totals = {page.headers["X-Total-Count"] for page in pages}
    assert len(totals) == 1
    total = int(totals.pop())
    assert "next" not in links(pages[-1].headers.get("Link"))
    lasts = {links(page.headers.get("Link")).get("last") for page in pages[:-1]}
    assert len(pages) == 1 or lasts == {pages[-1].request.url.removeprefix(base_url)}
    for number, page in enumerate(pages, 1):
        if page.headers["Content-Type"].startswith("application/json"):
            document = body(page)
            assert (document["page"], document["pages"], document["total"]) == (number, len(pages), total)
    return pages, total


@gen_test
@pytest.mark.parametrize(("route", "query"), [
    ("/api/v1/indicators", "limit=7"), ("/api/v1/indicators", "region=ECA&indicators=GE.EST,IT.NET.USER.ZS&limit=1"),
    ("/api/v1/history", "limit=5&fields=score"), ("/api/v1/history", "limit=2&years=2025:2026&code=AAA,BBB,CCC"),
])
async def test_data_routes_following_next_links_gives_every_row(
    http_client: AsyncHTTPClient, base_url: str, route: str, query: str
) -> None:
    unpaged = "&".join(part for part in query.split("&") if not part.startswith("limit="))
    full = rows(await get(http_client, base_url, f"{route}?{unpaged}"))
    pages, total = await follow(http_client, base_url, f"{route}?{query}")
    assert [row for page in pages for row in rows(page)] == full and total == len(full)
    limit = int(query.partition("limit=")[2].partition("&")[0])
    assert len(pages) == max(1, -(-total // limit))
    csv_pages, csv_total = await follow(http_client, base_url, f"{route}?{query}&format=csv")
    full_csv = csv_rows(await get(http_client, base_url, f"{route}?{unpaged}&format=csv"))
    assert csv_total == total and len(csv_pages) == len(pages)
    assert [csv_rows(csv_pages[0])[0]] + [line for page in csv_pages for line in csv_rows(page)[1:]] == full_csv


def test_an_answer_too_large_is_a_400_that_says_how_to_ask_for_less(sample_store: SnapshotStore) -> None:
    # The sample's indicator table, long and unpaged (4 MB), is priced over a limit of 0.1 MB
    # (at the default 8 MiB: the table over years).
    app = make_app(Settings(max_answer_bytes=100_000), sample_store, access=AccessLog(io.BytesIO()))
    with serving(app) as url:
        status, headers, answer = _get(url + "/api/v1/indicators?shape=long")
        assert status == 400 and headers["Cache-Control"] == "no-store"
        message = orjson.loads(answer)["error"]
        refusal = r"Invalid request\. This answer would be about \d+\.\d MB, over the 0\.1 MB one answer may be: "
        assert re.match(refusal, message), message
        assert "a page at a time (limit= and offset=; the Link header names the next page)" in message
        assert message.endswith("or narrow it (codes=, indicators=, years=, fields=, region=, income=).")
        # Its pages are answered, each priced as the page; a route without paging says to narrow.
        status, headers, answer = _get(url + "/api/v1/indicators?shape=long&limit=100&offset=200")
        assert status == 200 and orjson.loads(answer)["count"] == 100 and "offset=300" in headers["Link"]
        assert _get(url + "/api/v1/indicators?shape=long&codes=AAA,BBB")[0] == 200  # narrowed


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@gen_test
async def test_data_routes_offset_link_and_bad_offset(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?code=ccc&limit=3&offset=3")
    assert [row["indicator_code"] for row in rows(response)] == [indicator.code for indicator in INDICATORS[3:6]]
    assert links(response.headers["Link"]) == {
        "first": "/api/v1/indicators?codes=CCC&limit=3", "prev": "/api/v1/indicators?codes=CCC&limit=3",
        "next": "/api/v1/indicators?codes=CCC&limit=3&offset=6",
        "last": f"/api/v1/indicators?codes=CCC&limit=3&offset={(EVERY - 1) // 3 * 3}",
    }
    assert response.headers["X-Total-Count"] == str(EVERY)
    last = await get(http_client, base_url, "/api/v1/history?offset=15")
    assert len(rows(last)) == 1 and last.headers["X-Total-Count"] == "16"
    assert links(last.headers["Link"]) == {"first": "/api/v1/history"}  # no limit: no prev, and nothing next
    for route in ("/api/v1/indicators", "/api/v1/history"):
        assert_error_envelope(await get(http_client, base_url, f"{route}?offset=-3"), 400, "offset=", "0 to 9999999")
    for route in ("/api/v1/snapshots", "/api/v1/snapshots/2026-11/changes"):
        assert_error_envelope(await get(http_client, base_url, f"{route}?offset=3"), 400, "Unknown parameter 'offset'")


@gen_test
async def test_indicators_year_reads_the_december_archive(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?year=2023&code=DDD&indicators=GE.EST")
    assert [(row["snapshot"], row["Income Level"]) for row in rows(response)] == [("2023-12", "Low income")]
    assert response.headers["X-Readiness-Snapshot"] == "2023-12"
    assert_error_envelope(await get(http_client, base_url, "/api/v1/indicators?year=2024"), 404, "year=2024")


@gen_test
async def test_indicators_csv_same_rows_and_columns(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?format=CSV&code=AAA")
    table = csv_rows(response)
    assert tuple(table[0]) == (*INDICATOR_COLUMNS, *PROVENANCE)
    assert len(table) == 1 + EVERY
    assert table[1][:5] == ["AAA", "Economy AAA", "Sub-Saharan Africa", "Low income", "2026-11"]
    assert {tuple(row[-2:]) for row in table[1:]} == {("2026-11", NOTICE)}
    assert response.headers["Content-Disposition"] == 'attachment; filename="indicators-2026-11-synthetic.csv"'
    assert response.headers["X-Total-Count"] == str(EVERY)
    empty = csv_rows(await get(http_client, base_url, "/api/v1/indicators?format=csv&fcv=true"))
    assert empty == [[*INDICATOR_COLUMNS, *PROVENANCE]]


BAD_INDICATORS = [
    ("format=xml", "format="),
    ("income=rich", "income="),
    ("fcv=maybe", "fcv="),
    ("limit=0", "limit="),
    ("limit=1001", "limit="),
    ("limit=ten", "limit="),
    ("year=24", "year="),
    ("code=K3N", "code="),
    ("indicators=GE%20EST", "indicators="),
    ("region=atlantis", "region="),
    ("regoin=SSA", "Did you mean 'region'?"),
    ("CODE=KEN", "Did you mean 'code'?"),
    ("fields=score", "fields='score' is not valid; use comma-separated column names (Country Name, Region,"),
    ("sort=score", "Unknown parameter 'sort'"),
]


@gen_test
@pytest.mark.parametrize(("query", "fragment"), BAD_INDICATORS)
async def test_indicators_bad_input_is_400(
    http_client: AsyncHTTPClient, base_url: str, query: str, fragment: str
) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/indicators?{query}"), 400, fragment)
    if not query.startswith("format="):  # a CSV request with a bad parameter gets the JSON 400
        assert_error_envelope(await get(http_client, base_url, f"/api/v1/indicators?{query}&format=csv"), 400, fragment)


# --- /api/v1/history ---------------------------------------------------------------------------


@gen_test
async def test_history_decembers_and_current_oldest_first_then_code(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore
) -> None:
    response = await get(http_client, base_url, "/api/v1/history")
    table = rows(response)
    assert [(row["snapshot"], row["Country Code"]) for row in table] == [
        (snapshot_id, code)
        for snapshot_id, codes in (("2023-12", "AAA BBB CCC DDD MMM"), ("2025-12", "AAA BBB CCC DDD MMM"),
                                   ("2026-11", "AAA BBB CCC DDD EEE MMM"))
        for code in codes.split()
    ]
    assert tuple(table[0]) == ("Country Code", "Country Name", "snapshot", "year", "date", *HISTORY_DEFAULT)
    assert (table[0]["year"], table[0]["date"]) == (2023, "2023-12-01")
    assert body(response)["snapshot"] == "2026-11" and response.headers["X-Readiness-Snapshot"] == "2026-11"
    assert response.headers["X-Total-Count"] == "16"
    assert store.loaded() == [store.current]  # no archive was loaded into the LRU for it


@gen_test
async def test_history_values_are_each_snapshots_own(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore
) -> None:
    table = rows(await get(http_client, base_url, "/api/v1/history?code=MMM&fields=score,Global%20Rank,Region"))
    scores = {}
    for snapshot_id in ("2023-12", "2025-12", "2026-11"):
        archived = await store.archive(snapshot_id)
        assert archived is not None
        scores[snapshot_id] = archived.countries["MMM"].record["Composite Readiness Score"]
    assert table == [
        {"Country Code": "MMM", "Country Name": "Economy MMM", "snapshot": snapshot_id, "year": int(snapshot_id[:4]),
         "date": f"{snapshot_id}-01", "Region": "East Asia & Pacific", "Composite Readiness Score": score,
         "Global Rank": None}
        for snapshot_id, score in scores.items()
    ]


@gen_test
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("years=2025:2026", [("2025-12", 5), ("2026-11", 6)]),
        ("years=2023", [("2023-12", 5)]),
        ("code=EEE", [("2026-11", 1)]),
        ("income=HIC", [("2023-12", 1), ("2025-12", 2), ("2026-11", 2)]),  # DDD was low income in 2023
        ("income=LIC&code=DDD", [("2023-12", 1)]),
        ("region=ECA&years=2020:2030", [("2023-12", 1), ("2025-12", 1), ("2026-11", 1)]),
        ("fcv=true", []),
    ],
)
async def test_history_filters(
    http_client: AsyncHTTPClient, base_url: str, query: str, expected: list[tuple[str, int]]
) -> None:
    table = rows(await get(http_client, base_url, f"/api/v1/history?{query}"))
    counted: dict[str, int] = {}
    for row in table:
        counted[str(row["snapshot"])] = counted.get(str(row["snapshot"]), 0) + 1
    assert list(counted.items()) == expected


@gen_test
@pytest.mark.parametrize(("years", "shown"), [("2010:2012", "years=2010:2012"), ("2024", "years=2024")])
async def test_history_years_without_a_snapshot_is_404_naming_the_years_there_are(
    http_client: AsyncHTTPClient, base_url: str, years: str, shown: str
) -> None:
    # 2024 has a snapshot (2024-06), but not one history shows: neither a December nor current.
    for suffix in ("", "&format=csv"):
        response = await get(http_client, base_url, f"/api/v1/history?years={years}{suffix}")
        assert_error_envelope(
            response, 404, f"No snapshot for {shown}: years selects the December archives and the current snapshot, "
            "which exist for 2023, 2025, 2026", "/api/v1/snapshots"
        )


@gen_test
async def test_history_limit_and_csv(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await get(http_client, base_url, "/api/v1/history?limit=2&fields=score")
    assert [(row["snapshot"], row["Country Code"]) for row in rows(response)] == [
        ("2023-12", "AAA"), ("2023-12", "BBB")
    ]
    assert response.headers["X-Total-Count"] == "16"
    response = await get(http_client, base_url, "/api/v1/history?format=csv&fields=score&code=AAA")
    table = csv_rows(response)
    assert table[0] == ["Country Code", "Country Name", "snapshot", "year", "date", "Composite Readiness Score",
                        *PROVENANCE]
    assert [line[2:5] for line in table[1:]] == [
        ["2023-12", "2023", "2023-12-01"], ["2025-12", "2025", "2025-12-01"], ["2026-11", "2026", "2026-11-01"]]
    assert [line[-2:] for line in table[1:]] == [["2023-12", NOTICE], ["2025-12", NOTICE], ["2026-11", NOTICE]]
    assert response.headers["Content-Disposition"] == 'attachment; filename="history-2026-11-synthetic.csv"'


BAD_HISTORY = [
    ("years=2026:", "years="),  # (2026:2025 is the range 2025-2026: docs/API.md)
    ("years=26", "years="),
    ("years=2025-2026", "years="),
    ("fields=Population,%20total", "fields="),
    ("fields=Microstate", "fields="),
    ("fields=nonsense", "fields="),
    ("format=json2", "format="),
    ("income=middle", "income="),
    ("limit=-1", "limit="),
    ("year=2025", "Did you mean 'years'?"),
    ("indicators=GE.EST", "Unknown parameter 'indicators'"),
]


@gen_test
@pytest.mark.parametrize(("query", "fragment"), BAD_HISTORY)
async def test_history_bad_input_is_400(http_client: AsyncHTTPClient, base_url: str, query: str, fragment: str) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/history?{query}"), 400, fragment)


@gen_test
async def test_history_follows_a_publish(
    http_client: AsyncHTTPClient, base_url: str, data: Path, app: Application
) -> None:
    before = rows(await get(http_client, base_url, "/api/v1/history?code=AAA"))
    place_snapshot(data, "2026-12", NEXT_MONTH)
    flip(data, "2026-12")
    await app.lane.service.store.refresh()
    after = rows(await get(http_client, base_url, "/api/v1/history?code=AAA"))
    assert [row["snapshot"] for row in before] == ["2023-12", "2025-12", "2026-11"]
    # 2026-11: no longer current, not a December
    assert [row["snapshot"] for row in after] == ["2023-12", "2025-12", "2026-12"]


# --- /api/v1/snapshots -------------------------------------------------------------------------


@gen_test
async def test_catalogue_lists_every_snapshot_newest_first(
    http_client: AsyncHTTPClient, base_url: str, data: Path
) -> None:
    place_snapshot(data, "2027-01")  # placed for publishing, not current: not listed
    response = await get(http_client, base_url, "/api/v1/snapshots")
    document = body(response)
    assert document["snapshot"] == document["snapshot_id"] == "2026-11" and document["current"] is True
    assert document["count"] == 4
    entries = document["data"]
    assert isinstance(entries, list)
    assert [(e["id"], e["current"], e["selectable"], e["economies"], e["ranked_economies"], e["changes"])  # type: ignore[index]
            for e in entries] == [
        ("2026-11", True, True, 6, 5, "/api/v1/snapshots/2026-11/changes"),  # year=2026 selects it
        ("2025-12", False, True, 5, 4, "/api/v1/snapshots/2025-12/changes"),
        ("2024-06", False, False, 5, 4, None),
        ("2023-12", False, True, 5, 4, None),
    ]
    assert entries[0] == {**entries[0], "year": 2026, "month": 11, "published": "2026-11-01",  # type: ignore[dict-item]
                          "synthetic": True, "notice": "SYNTHETIC: test data"}
    indicators = document["indicators"]
    assert isinstance(indicators, list) and [i["code"] for i in indicators] == [i.code for i in INDICATORS]  # type: ignore[index]
    assert "Do not cite this snapshot" in str(document["citation"])
    assert response.headers["X-Readiness-Snapshot"] == "2026-11" and response.headers["X-Total-Count"] == "4"


def test_catalogue_and_metrics_name_the_checks_a_snapshot_was_published_past(tmp_path: Path) -> None:
    data = data_directory(tmp_path)
    why = "the 2026 data year entered the window"
    mark_forced(data / "snapshots" / "2026-11", why, {"rank-shift": ["the composite's ranking reshuffled: …"],
                                                      "median-move": ["the typical economy's composite moved …"]})
    # A manifest forced before the checks had names: its findings only.
    older = data / "snapshots" / "2025-12" / "manifest.json"
    older.write_bytes(orjson.dumps({**orjson.loads(older.read_bytes()), "forced": ["3 economies, 3 fewer"]}))
    store = SnapshotStore(data)
    store.load_current()
    metrics = new_metrics(store)
    app = make_app(Settings(data_dir=data), store, metrics=metrics, access=AccessLog(io.BytesIO()))
    with serving(app) as url:
        status, _, answer = _get(url + "/api/v1/snapshots")
    assert status == 200
    assert {entry["id"]: entry["forced"] for entry in orjson.loads(answer)["data"]} == {
        "2026-11": {"checks": ["rank-shift", "median-move"], "reason": why},
        "2025-12": {"checks": [], "reason": None},
        "2024-06": None,
        "2023-12": None,
    }
    exposed = [line for line in metrics.render().decode().splitlines() if line.startswith("readiness_snapshot_forced")]
    assert exposed == ['readiness_snapshot_forced{check="rank-shift",snapshot="2026-11"} 1.0',
                       'readiness_snapshot_forced{check="median-move",snapshot="2026-11"} 1.0'], (
        "the snapshots in memory (the current one here), a series per accepted check")


@gen_test
@pytest.mark.parametrize(
    ("query", "fragment"), [("format=csv", "Unknown parameter 'format'"), ("year=2025", "takes no parameters")]
)
async def test_catalogue_takes_no_parameters(
    http_client: AsyncHTTPClient, base_url: str, query: str, fragment: str
) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/snapshots?{query}"), 400, fragment)
    assert (await get(http_client, base_url, "/api/v1/snapshots?_=123")).code == 200


# --- /api/v1/snapshots/{id}/changes ------------------------------------------------------------


@gen_test
async def test_changes_serves_the_report(http_client: AsyncHTTPClient, base_url: str, data: Path) -> None:
    response = await get(http_client, base_url, "/api/v1/snapshots/2026-11/changes")
    document = body(response)
    report = orjson.loads((data / "snapshots" / "2026-11" / CHANGES_FILE).read_bytes())
    assert document == {"apiVersion": "1", "snapshot": "2026-11", "snapshot_id": "2026-11", "current": True,
                        "count": 1, "data": report, "notice": "SYNTHETIC: test data"}
    assert report["economies"]["added"] == [{"code": "EEE", "name": "Economy EEE"}]
    assert response.headers["X-Readiness-Snapshot"] == "2026-11"
    assert response.headers["Last-Modified"] == "Sun, 01 Nov 2026 00:00:00 GMT"
    archived = await get(http_client, base_url, "/api/v1/snapshots/2025-12/changes")
    assert body(archived)["data"]["previous"] == "2024-06"  # type: ignore[index]
    assert (body(archived)["snapshot_id"], body(archived)["current"]) == ("2025-12", False)


@gen_test
async def test_changes_csv_lists_the_movers(http_client: AsyncHTTPClient, base_url: str, data: Path) -> None:
    response = await get(http_client, base_url, "/api/v1/snapshots/2026-11/changes?format=csv")
    table = csv_rows(response)
    report = orjson.loads((data / "snapshots" / "2026-11" / CHANGES_FILE).read_bytes())
    movers = sum(len(score["largest"]) for score in report["scores"].values()) + len(report["ranks"]["largest"])
    assert tuple(table[0]) == (*MOVER_COLUMNS, *PROVENANCE) and len(table) == 1 + movers > 1
    assert {tuple(row[-2:]) for row in table[1:]} == {("2026-11", NOTICE)}
    assert response.headers["Content-Disposition"] == 'attachment; filename="changes-2026-11-synthetic.csv"'


@gen_test
@pytest.mark.parametrize(
    ("path", "status", "fragment"),
    [
        ("/api/v1/snapshots/2023-12/changes", 404, "has no change report"),  # listed, no report
        ("/api/v1/snapshots/2019-12/changes", 404, "No snapshot '2019-12'"),
        ("/api/v1/snapshots/2027-01/changes", 404, "No snapshot '2027-01'"),
        ("/api/v1/snapshots/2026-13/changes", 400, "snapshot id '2026-13'"),
        ("/api/v1/snapshots/latest/changes", 400, "snapshot id 'latest'"),
        ("/api/v1/snapshots/..%2F2026-11/changes", 400, "snapshot id"),
        ("/api/v1/snapshots/2026-11%00/changes", 400, "snapshot id"),
        ("/api/v1/snapshots/2026-11/changes?format=xml", 400, "format="),
        ("/api/v1/snapshots/2026-11/changes?limit=3", 400, "Unknown parameter 'limit'"),
    ],
)
async def test_changes_bad_or_absent(
    http_client: AsyncHTTPClient, base_url: str, data: Path, path: str, status: int, fragment: str
) -> None:
    place_snapshot(data, "2027-01")
    (data / "snapshots" / "2027-01" / CHANGES_FILE).write_bytes(b"{}")
    assert_error_envelope(await get(http_client, base_url, path), status, fragment)


@gen_test
@pytest.mark.parametrize(
    "damage", [b"{", b'{"format": 2, "snapshot": "2026-11"}', b'{"format": 1, "snapshot": "2025-12"}', b"[]"]
)
async def test_changes_damaged_report_is_404(
    http_client: AsyncHTTPClient, base_url: str, data: Path, damage: bytes
) -> None:
    (data / "snapshots" / "2026-11" / CHANGES_FILE).write_bytes(damage)
    assert_error_envelope(await get(http_client, base_url, "/api/v1/snapshots/2026-11/changes"), 404, "cannot be read")


# --- caching: ETag/304, gzip, the hit lane, on every route -------------------------------------

ROUTES = [
    "/api/v1/indicators?code=AAA",
    "/api/v1/indicators?limit=5&offset=5",
    "/api/v1/history?limit=3&format=csv",
    "/api/v1/indicators?format=csv",
    "/api/v1/history",
    "/api/v1/history?format=csv",
    "/api/v1/snapshots",
    "/api/v1/snapshots/2026-11/changes",
    "/api/v1/snapshots/2026-11/changes?format=csv",
    "/api/v1/indicators?years=2023:2026&indicators=GE.EST",
    "/api/v1/indicators?snapshot=2024-06&shape=long&limit=7",
    "/api/v1/history?shape=long&format=csv",
    "/api/v1/aggregates?by=region",
    "/api/v1/aggregates?years=2023:2026&by=income&format=csv",
]


@gen_test
@pytest.mark.parametrize("path", ROUTES)
async def test_every_route_revalidates_compresses_and_hits_the_lane(
    http_client: AsyncHTTPClient, base_url: str, app: Application, path: str
) -> None:
    first = await get(http_client, base_url, path)
    assert first.code == 200
    etag = first.headers["Etag"]
    again = await get(http_client, base_url, path, **{"If-None-Match": etag})
    assert again.code == 304 and again.headers["Etag"] == etag
    modified = await get(http_client, base_url, path, **{"If-Modified-Since": first.headers["Last-Modified"]})
    assert modified.code == 304
    zipped = await http_client.fetch(
        f"{base_url}{path}", headers={"Accept-Encoding": "gzip"}, decompress_response=False
    )
    if len(first.body) >= 1024:
        assert zipped.headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped.body) == first.body
    outcomes = [line["cache"] for line in access_lines(app)]
    assert outcomes[0] == "miss" and outcomes[1:] == ["hit"] * 3


# --- with the real Redis as tier 2 -------------------------------------------------------------


@pytest.fixture
def redis_apps(store: SnapshotStore, real_redis_url: str, io_loop: IOLoop) -> Iterator[tuple[Application, Application]]:
    """Two apps over the same store, each with its own tier 1 and a client of the real Redis:
    what one computes, the other finds in Redis."""
    apps, clients = [], []
    for _ in range(2):
        metrics = new_metrics(store)
        client = connect(real_redis_url, timeout=5.0)
        clients.append(client)
        tier = RedisTier(client, CircuitBreaker(3, 60), metrics)
        # Every computed answer written at once (no Redis admission): what one computes, the other finds.
        settings = Settings(data_dir=store.data_dir, redis_admit_window_seconds=0)
        apps.append(make_app(settings, store, metrics=metrics, redis=tier, access=AccessLog(io.BytesIO())))
    yield apps[0], apps[1]
    for client in clients:
        io_loop.run_sync(client.aclose)


@gen_test(timeout=30)  # two apps on their own ports, seven routes: many round trips
@pytest.mark.parametrize("path", ROUTES)
async def test_every_route_through_redis_gives_identical_answers(
    redis_apps: tuple[Application, Application], path: str
) -> None:
    from tornado.httpserver import HTTPServer
    from tornado.testing import bind_unused_port

    from tests.conftest import eventually

    one, other = redis_apps
    servers, urls = [], []
    for application in (one, other):
        sock, port = bind_unused_port()
        server = HTTPServer(application)
        server.add_sockets([sock])
        servers.append(server)
        urls.append(f"http://127.0.0.1:{port}")
    client = AsyncHTTPClient()
    try:
        computed = await client.fetch(urls[0] + path)
        service = one.lane.service

        async def written() -> bool:
            return not service._writes

        await eventually(written, "the first app's Redis write")
        shared = await client.fetch(urls[1] + path)
        assert shared.body == computed.body
        for name in ("Etag", "Content-Type", "X-Readiness-Snapshot", "Last-Modified", "X-Total-Count", "Link"):
            assert shared.headers.get(name) == computed.headers.get(name), name
        if "limit=" in path:  # the next page's Link survives the Redis round trip
            assert "next" in links(shared.headers["Link"])
        assert [line["cache"] for line in access_lines(other)] == ["redis"]
    finally:
        for server in servers:
            server.stop()


@gen_test
@pytest.mark.parametrize(
    "path", ["/api/v1/indicators", "/api/v1/history", "/api/v1/aggregates", "/api/v1/snapshots",
             "/api/v1/snapshots/2026-11/changes"]
)
async def test_every_route_answers_head_like_get_without_a_body(
    http_client: AsyncHTTPClient, base_url: str, path: str
) -> None:
    got = await http_client.fetch(f"{base_url}{path}", decompress_response=False)
    head = await http_client.fetch(f"{base_url}{path}", method="HEAD", decompress_response=False)
    assert head.code == 200 and head.body == b""
    assert head.headers["Content-Length"] == str(len(got.body)) and head.headers["Etag"] == got.headers["Etag"]


@gen_test
@pytest.mark.parametrize(
    "path", ["/api/v1/indicators", "/api/v1/history", "/api/v1/aggregates", "/api/v1/snapshots",
             "/api/v1/snapshots/2026-11/changes"]
)
async def test_every_route_without_a_snapshot_is_503(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore, path: str
) -> None:
    store.current = None
    assert_error_envelope(await get(http_client, base_url, path), 503, "not ready")


# --- nothing silent: the manifest's notice and what matched nothing (docs/API.md#the-response) ----




@gen_test
@pytest.mark.parametrize(
    "path",
    ["/api/v1/readiness?code=AAA", "/api/v1/readiness?year=2025", "/api/v1/indicators?code=AAA",
     "/api/v1/history?code=AAA", "/api/v1/snapshots", "/api/v1/snapshots/2026-11/changes"],
)
async def test_every_v1_json_answer_of_a_snapshot_with_a_notice_carries_it_last(
    http_client: AsyncHTTPClient, base_url: str, path: str
) -> None:
    document = body(await get(http_client, base_url, path))
    assert document["notice"] == NOTICE and list(document)[-1] == "notice"
    assert "unmatched" not in document  # an ordinary request: the specification's members and the notice only


@gen_test
async def test_indicators_unmatched_names_the_codes_and_indicators_that_matched_nothing(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?codes=ZZZ,aaa,XXX&indicators=ge.est,NO.SUCH")
    document = body(response)
    assert list(document) == [
        "apiVersion", "snapshot", "snapshot_id", "current", "count", "data", "unmatched", "notice"
    ]
    assert document["unmatched"] == {"codes": ["XXX", "ZZZ"], "indicators": ["NO.SUCH"]}
    assert [(row["Country Code"], row["indicator_code"]) for row in rows(response)] == [("AAA", "GE.EST")]
    codes_only = body(await get(http_client, base_url, "/api/v1/indicators?codes=AAA,XXX&indicators=GE.EST"))
    assert codes_only["unmatched"] == {"codes": ["XXX"]}
    indicators_only = body(await get(http_client, base_url, "/api/v1/indicators?indicators=NO.SUCH&region=ECA"))
    assert indicators_only["unmatched"] == {"indicators": ["NO.SUCH"]} and indicators_only["count"] == 0


@gen_test
async def test_indicators_economy_left_out_by_a_filter_is_not_unmatched(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    document = body(await get(http_client, base_url, "/api/v1/indicators?code=AAA&region=ECA"))  # AAA is SSA
    assert document["count"] == 0 and "unmatched" not in document


@gen_test
async def test_history_unmatched_names_the_codes_no_snapshot_shown_has(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    everywhere = body(await get(http_client, base_url, "/api/v1/history?codes=EEE,XXX"))
    assert everywhere["unmatched"] == {"codes": ["XXX"]}  # EEE is in 2026-11 only: it matched
    older = await get(http_client, base_url, "/api/v1/history?codes=EEE,AAA&years=2023:2025")
    assert body(older)["unmatched"] == {"codes": ["EEE"]}
    assert {row["Country Code"] for row in rows(older)} == {"AAA"}
    assert "unmatched" not in body(await get(http_client, base_url, "/api/v1/history?code=AAA&fcv=true"))


@gen_test
@pytest.mark.parametrize(
    "value", ["bogus", "Population,%20total", "microstate", "indicator_details", "score,Last%20Updated"]
)
async def test_history_fields_error_lists_the_fields_history_rows_have(
    http_client: AsyncHTTPClient, base_url: str, value: str
) -> None:
    response = await get(http_client, base_url, f"/api/v1/history?fields={value}")
    assert_error_envelope(response, 400, "fields=", "Regional Rank", "FCV Status", "or aliases (score, access")
    accepted = str(body(response)["error"]).partition("; use ")[2]
    for other in ("Population, total", "Microstate", "Last Updated", "FCV Type", "indicator_details"):
        assert other not in accepted


@gen_test
@pytest.mark.parametrize(
    ("query", "listed"),
    [("fields=bogus", ("Population, total", "Microstate", "indicator_details")),
     ("sort=bogus", ("Population, total", "Microstate", "or an alias (score"))],
)
async def test_readiness_fields_and_sort_errors_list_every_field_of_a_country(
    http_client: AsyncHTTPClient, base_url: str, query: str, listed: tuple[str, ...]
) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/readiness?{query}"), 400, *listed)


@gen_test
async def test_repeated_list_parameters_are_merged_and_others_keep_their_last_value(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    merged = await get(
        http_client, base_url, "/api/v1/history?codes=AAA&codes=XXX&fields=score&fields=Region&limit=9&limit=1"
    )
    assert body(merged)["unmatched"] == {"codes": ["XXX"]}  # codes=AAA,XXX
    [row] = rows(merged)  # limit=1, the last value
    assert (row["Country Code"], row["snapshot"], row["Region"]) == ("AAA", "2023-12", "Sub-Saharan Africa")
    assert "Composite Readiness Score" in row and "Global Rank" not in row  # fields=score,Region
    assert merged.headers["X-Total-Count"] == "3"


@gen_test
@pytest.mark.parametrize(
    ("path", "name"),
    [("/api/v1/readiness?format=csv", "readiness-2026-11-synthetic.csv"),
     ("/api/v1/readiness?format=csv&year=2023", "readiness-2023-12-synthetic.csv"),
     ("/api/v1/indicators?format=csv&code=AAA", "indicators-2026-11-synthetic.csv"),
     ("/api/v1/history?format=csv", "history-2026-11-synthetic.csv"),
     ("/api/v1/snapshots/2025-12/changes?format=csv", "changes-2025-12-synthetic.csv"),
     ("/api/readiness?format=csv", "readiness-2026-11.csv")],  # the legacy route's name is as it was
)
async def test_csv_download_of_a_synthetic_snapshot_is_named_so(
    http_client: AsyncHTTPClient, base_url: str, path: str, name: str
) -> None:
    response = await get(http_client, base_url, path)
    assert response.code == 200 and response.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert csv_rows(response)[0]  # a real CSV table


@gen_test
async def test_real_current_snapshot_has_no_notice_and_history_keeps_an_older_ones(
    http_client: AsyncHTTPClient, base_url: str, data: Path, app: Application
) -> None:
    build_snapshot(world(NEXT_MONTH, year=2026), Release.parse("2026-12"), data / "snapshots")  # no notice
    flip(data, "2026-12")
    await app.lane.service.store.refresh()
    current = await get(http_client, base_url, "/api/v1/readiness?code=AAA")
    assert "notice" not in body(current)
    assert list(body(current)) == ["apiVersion", "level", "snapshot", "snapshot_id", "current", "count", "data"]
    assert "notice" not in body(await get(http_client, base_url, "/api/v1/snapshots"))
    csv_download = await get(http_client, base_url, "/api/v1/indicators?format=csv&code=AAA")
    assert csv_download.headers["Content-Disposition"] == 'attachment; filename="indicators-2026-12.csv"'
    history = await get(http_client, base_url, "/api/v1/history?code=AAA")
    assert body(history)["snapshot"] == "2026-12" and body(history)["notice"] == NOTICE  # 2025-12's
    only_real = await get(http_client, base_url, "/api/v1/history?code=AAA&years=2026")
    assert "notice" not in body(only_real)
    mixed_csv = await get(http_client, base_url, "/api/v1/history?code=AAA&format=csv")
    assert mixed_csv.headers["Content-Disposition"] == 'attachment; filename="history-2026-12-synthetic.csv"'
    # Each row says its own snapshot, and its own snapshot's notice: none for the real one.
    assert [row[-2:] for row in csv_rows(mixed_csv)[1:]][-2:] == [["2025-12", NOTICE], ["2026-12", ""]]
    real_csv = csv_rows(await get(http_client, base_url, "/api/v1/readiness?code=AAA&format=csv"))
    assert real_csv[0][-1] == "snapshot_id" and "notice" not in real_csv[0] and real_csv[1][-1] == "2026-12"


# --- the conventions analysts know (docs/API.md#aliases) ---------------------------------------


@gen_test
async def test_history_snapshot_lists_june_archives_into_the_series(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    response = await get(http_client, base_url, "/api/v1/history?code=AAA&snapshot=2026-11,2024-06")
    assert [row["snapshot"] for row in rows(response)] == ["2024-06", "2026-11"]
    default = rows(await get(http_client, base_url, "/api/v1/history?code=AAA"))
    assert [row["snapshot"] for row in default] == ["2023-12", "2025-12", "2026-11"]  # no June without asking
    assert_error_envelope(await get(http_client, base_url, "/api/v1/history?snapshot=2024-06,2022-06"), 404,
                          "No snapshot '2022-06'")


@gen_test
@pytest.mark.parametrize(("route", "query", "snapshots"), [
    ("/api/v1/history", "code=AAA&mrv=2", ["2025-12", "2026-11"]),
    ("/api/v1/history", "code=AAA&time=latest", ["2026-11"]),
    ("/api/v1/history", "code=AAA&mrv=1&years=2020:2025", ["2025-12"]),
    ("/api/v1/history", "code=AAA&time=..2025", ["2023-12", "2025-12"]),
    ("/api/v1/history", "code=AAA&date=2025:2030", ["2025-12", "2026-11"]),
    ("/api/v1/indicators", "code=AAA&indicators=GE.EST&mrv=2", ["2025-12", "2026-11"]),
    ("/api/v1/indicators", "country=aaa&indicators=GE.EST&time=2023..2025", ["2023-12", "2025-12"]),
])
async def test_time_routes_read_mrv_date_and_time(
    http_client: AsyncHTTPClient, base_url: str, route: str, query: str, snapshots: list[str]
) -> None:
    assert [row["snapshot"] for row in rows(await get(http_client, base_url, f"{route}?{query}"))] == snapshots


@gen_test
async def test_aggregates_mrv_keeps_the_newest_snapshots(http_client: AsyncHTTPClient, base_url: str) -> None:
    table = rows(await get(http_client, base_url, "/api/v1/aggregates?mrv=2"))
    assert sorted({str(row["snapshot"]) for row in table}) == ["2025-12", "2026-11"]


@gen_test
async def test_indicators_fields_keep_the_key_and_the_columns_named(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?code=AAA&fields=reported_value,Region")
    table = rows(response)
    assert len(table) == EVERY
    assert all(list(row) == ["Country Code", "Region", "snapshot", "indicator_code", "reported_value"] for row in table)
    csv_table = csv_rows(await get(http_client, base_url,
                                   "/api/v1/indicators?code=AAA&fields=reported_value&format=csv"))
    assert csv_table[0] == ["Country Code", "snapshot", "indicator_code", "reported_value", "snapshot_id", "notice"]
    assert len(csv_table) == EVERY + 1
    long = rows(await get(http_client, base_url, "/api/v1/indicators?code=AAA&fields=normalized_value&shape=long"))
    assert {row["measure"] for row in long} == {"normalized_value"} and len(long) == EVERY
    assert list(long[0]) == ["Country Code", "snapshot", "indicator_code", "measure", "value"]


@gen_test
async def test_world_bank_paging_gives_the_same_answer_and_says_its_page(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    aliased = await get(http_client, base_url, "/api/v1/indicators?per_page=4&page=3")
    canonical = await get(http_client, base_url, "/api/v1/indicators?limit=4&offset=8")
    assert aliased.body == canonical.body and aliased.headers["Etag"] == canonical.headers["Etag"]
    document = body(aliased)
    total = 6 * EVERY
    assert (document["page"], document["pages"], document["per_page"], document["total"]) == (
        3, -(-total // 4), 4, total)
    assert links(aliased.headers["Link"]) == {
        "first": "/api/v1/indicators?limit=4", "prev": "/api/v1/indicators?limit=4&offset=4",
        "next": "/api/v1/indicators?limit=4&offset=12",
        "last": f"/api/v1/indicators?limit=4&offset={(total - 1) // 4 * 4}",
    }
    assert "page" not in body(await get(http_client, base_url, "/api/v1/indicators?code=AAA"))  # not paged


@gen_test
@pytest.mark.parametrize(("query", "fragment"), [
    ("per_page=5&limit=5", "per_page and limit were both given"),
    ("page=2&offset=5", "page and offset were both given"),
    ("date=2024&years=2024", "date and years were both given"),
    ("country=AAA&codes=BBB", "country and codes were both given"),
])
async def test_an_alias_beside_what_it_stands_for_is_a_400_naming_both(
    http_client: AsyncHTTPClient, base_url: str, query: str, fragment: str
) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/history?{query}"), 400, fragment)


@gen_test
async def test_query_route_shows_what_an_alias_stands_for(http_client: AsyncHTTPClient, base_url: str) -> None:
    document = body(await get(http_client, base_url, "/api/v1/query/history?country=bbb~aaa&time=2024..latest&page=2"))
    assert document["query"] == "codes=AAA,BBB&years=2024:9999&limit=50&offset=50"


@gen_test
@pytest.mark.parametrize(("path", "query"), [
    ("/api/v1/history", "code=AAA"), ("/api/v1/indicators", "code=AAA&limit=3"),
    ("/api/v1/snapshots/2026-11/changes", ""),
])
async def test_a_download_path_sends_the_csv_answer_as_a_file(
    http_client: AsyncHTTPClient, base_url: str, path: str, query: str
) -> None:
    download = await get(http_client, base_url, f"{path}.csv?{query}")
    csv_answer = await get(http_client, base_url, f"{path}?format=csv&{query}")
    assert download.code == csv_answer.code == 200, download.body
    assert download.body == csv_answer.body and download.body.startswith(b"\xef\xbb\xbf")
    assert csv_rows(csv_answer)[0][-2:] == ["snapshot_id", "notice"]  # the same bytes: the provenance columns
    assert download.headers["Content-Type"] == "application/octet-stream"
    assert download.headers["Content-Disposition"] == csv_answer.headers["Content-Disposition"]
    assert download.headers.get("Link") == csv_answer.headers.get("Link")  # pages link to the CSV answer's pages
    again = await get(http_client, base_url, f"{path}.csv?{query}", **{"If-None-Match": download.headers["Etag"]})
    assert again.code == 304


@gen_test
async def test_a_download_path_takes_no_format_and_the_legacy_route_has_none(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    assert_error_envelope(await get(http_client, base_url, "/api/v1/history.csv?format=csv"), 400,
                          "Unknown parameter 'format'")
    assert (await get(http_client, base_url, "/api/readiness.csv")).code == 404
    citation = await get(http_client, base_url, "/api/v1/citation.ris?snapshot=2025-12")
    assert citation.code == 200 and citation.headers["Content-Type"] == "application/octet-stream"
    assert citation.body == (await get(http_client, base_url, "/api/v1/citation?format=ris&snapshot=2025-12")).body
    assert_error_envelope(await get(http_client, base_url, "/api/v1/citation.bib?format=ris"), 400,
                          "Unknown parameter 'format'")
