"""/api/v1/aggregates (docs/API.md#get-apiv1aggregates-summary-statistics-by-group): the statistics
(readiness/domain/aggregates.py) against a hand recomputation with the statistics module over the
sample's records, the groups, filters, nulls and the snapshots a query chooses; then over HTTP,
JSON and CSV, against pandas reading /api/v1/readiness, with ETag/304 and the errors."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import statistics
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy
import orjson
import pandas
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port
from tornado.web import Application

from config import Settings
from loaders import JsonValue, SnapshotStore, Summary
from readiness.app import make_app
from readiness.domain import routes
from readiness.domain.aggregates import (
    AGGREGATE_COLUMNS,
    MEASURES,
    UNCLASSIFIED,
    aggregate_rows,
    aggregate_snapshots,
    describe,
    numbers,
    quantile,
)
from readiness.domain.compute import compute_aggregates
from readiness.domain.errors import ArchiveNotFound, NoSnapshotInYears, ReadinessError, SnapshotNotFound
from readiness.domain.query import Grouping, parse_query_string
from readiness.http.logs import AccessLog
from tests.builder_world import STANDARD, economy
from tests.conftest import (
    access_lines,
    assert_error_envelope,
    body,
    country,
    flip,
    gen_test,
    links,
    place_snapshot,
    snapshot,
    summarized_sample,
)

CURRENT = "2026-11"
SCORES = ("score", "infra", "human", "access", "innovation", "governance")
"""The aliases of MEASURES, in its order (docs/API.md#field-names-and-aliases)."""


@pytest.fixture(scope="module")
def warm_store() -> Iterator[SnapshotStore]:
    """The sample's store with every snapshot's summary read, once for the module."""
    store = summarized_sample()
    yield store
    store.close()


@pytest.fixture(scope="module")
def summaries(warm_store: SnapshotStore) -> tuple[Summary, ...]:
    found = warm_store.summaries_now()
    assert found is not None and [summary.id for summary in found] == [
        "2022-06", "2023-12", "2024-06", "2024-12", "2025-12", CURRENT
    ]
    return found


def aggregates(summaries: tuple[Summary, ...], raw: str = "") -> dict[str, Any]:
    """The JSON answer of ``/api/v1/aggregates?<raw>`` computed from the summaries."""
    answer = compute_aggregates(summaries, summaries[-1].series, parse_query_string(raw, routes.AGGREGATES.grammar),
                                routes.AGGREGATES)
    parsed: dict[str, Any] = orjson.loads(answer.body)
    return parsed


# --- the statistics -----------------------------------------------------------------------------


def cents(exact: Fraction) -> set[float]:
    """``exact`` rounded to two decimals; both neighbours when it lies exactly halfway, where the
    float a computation reaches may fall either side."""
    hundredths = exact * 100
    if hundredths.denominator == 2:
        return {float(Fraction(hundredths.numerator // 2, 100)), float(Fraction(hundredths.numerator // 2 + 1, 100))}
    return {float(round(exact, 2))}


def by_hand(values: list[float]) -> dict[str, Any]:
    """The statistics with the statistics module, exact (fractions of the published two-decimal
    values; quartiles ``method="inclusive"``: linear interpolation between the closest ranks)."""
    published = [Fraction(repr(value)) for value in values]
    exact = published * 3 if len(values) < 2 else statistics.quantiles(published, n=4, method="inclusive")
    return {
        "count": len(values),
        "mean": cents(statistics.mean(published)),
        "median": cents(statistics.median(published)),
        "min": {round(min(values), 2)},
        "max": {round(max(values), 2)},
        "p25": cents(exact[0]),
        "p75": cents(exact[2]),
    }


def group_name(record: dict[str, JsonValue], field: str | None) -> str:
    """The group of an economy, by hand: World, its field's value, FCV or Not FCV, else Not classified."""
    value = record.get(field) if field else "World"
    if field == "FCV Status":
        return {True: "FCV", False: "Not FCV"}.get(value, UNCLASSIFIED)
    return str(value) if value else UNCLASSIFIED


def assert_statistics(row: dict[str, Any], values: list[float]) -> None:
    expected = by_hand(values)
    assert row["count"] == expected.pop("count"), row
    for name, allowed in expected.items():
        assert row[name] in allowed, (row, name, allowed)


@pytest.mark.parametrize(
    ("by", "field", "groups"),
    [
        (Grouping.WORLD, None, ["World"]),
        (Grouping.REGION, "Region", ["East Asia & Pacific", "Europe & Central Asia", "Latin America & Caribbean",
                                     "Middle East & North Africa", "North America", "South Asia",
                                     "Sub-Saharan Africa"]),
        (Grouping.INCOME, "Income Level", ["Low income", "Lower middle income", "Upper middle income", "High income",
                                           UNCLASSIFIED]),
        (Grouping.FCV, "FCV Status", ["FCV", "Not FCV"]),
    ],
)
def test_aggregates_sample_equal_a_hand_recomputation_with_statistics(
    summaries: tuple[Summary, ...], by: Grouping, field: str | None, groups: list[str]
) -> None:
    series = summaries[-1].series
    records = [country.record for country in series.countries.values()]
    members: dict[str, list[dict[str, JsonValue]]] = {}
    for record in records:
        members.setdefault(group_name(record, field), []).append(record)
    rows = aggregate_rows([(series, series.countries.values())], by)
    assert [(row["group"], row["measure"]) for row in rows] == [
        (group, measure) for group in groups for measure in MEASURES
    ]
    for row in rows:
        assert row["snapshot"] == CURRENT and row["year"] == 2026
        assert_statistics(row, [float(record[row["measure"]]) for record in members[row["group"]]
                                if record.get(row["measure"]) is not None])
    counted = [row["count"] for row in rows if row["measure"] == MEASURES[0]]
    assert sum(counted) == len(records) == 217  # every economy in exactly one group, microstates too


@settings(max_examples=300, derandomize=True, database=None)
@given(st.lists(st.integers(0, 10_000).map(lambda hundredths: hundredths / 100), min_size=1, max_size=300),
       st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]))
def test_quantile_is_numpys_linear_interpolation_to_the_last_bit(values: list[float], fraction: float) -> None:
    ordered = sorted(values)
    assert quantile(ordered, fraction) == float(numpy.quantile(numpy.array(ordered), fraction))


SOUTH_ASIA_2026_11 = [26.53, 50.22, 41.43, 41.78, 41.92, 57.54, 42.96, 47.82]
"""The sample's South Asian composites of 2026-11: a true mean of 43.775, halfway (docs/METHOD.md)."""


def test_aggregates_mean_halfway_rounds_the_double_as_python_does() -> None:
    assert statistics.mean(Fraction(str(value)) for value in SOUTH_ASIA_2026_11) == Fraction("43.775")
    assert describe(SOUTH_ASIA_2026_11)["mean"] == 43.77 == round(math.fsum(SOUTH_ASIA_2026_11) / 8, 2)
    assert numpy.round(math.fsum(SOUTH_ASIA_2026_11) / 8, 2) == 43.78  # numpy's (pandas') rounding, the doc's warning
    assert round(float(pandas.Series(SOUTH_ASIA_2026_11).mean()), 2) == 43.78  # a plain sum: 43.775000000000006


def test_describe_leaves_out_nulls_and_gives_nulls_without_values() -> None:
    assert numbers([None, 10.0, "12", True, 20, float("nan"), 30.5]) == [10.0, 20.0, 30.5]
    assert describe(numbers([None, 10.0, 20, None, 30.5, 40.0])) == {
        "count": 4, "mean": 25.12, "median": 25.25, "min": 10.0, "max": 40.0, "p25": 17.5, "p75": 32.88,
    }
    assert describe([]) == dict.fromkeys(("count", "mean", "median", "min", "max", "p25", "p75")) | {"count": 0}


def test_aggregates_nulls_left_out_and_microstates_counted() -> None:
    tiny = snapshot(
        country("AAA", "Alpha", **{"Composite Readiness Score": 40.0, "Governance Score": None, "FCV Status": True}),
        country("BBB", "Beta", **{"Composite Readiness Score": 60.0, "Governance Score": 50.0, "FCV Status": False}),
        country("MMM", "Micro", **{"Composite Readiness Score": 80.0, "Governance Score": None, "Microstate": True,
                                   "Global Rank": None, "FCV Status": False}),
        snapshot_id=CURRENT,
    )
    table = aggregate_rows([(tiny, tiny.countries.values())], Grouping.FCV)
    rows = {(row["group"], row["measure"]): row for row in table}
    assert [group for group, measure in rows if measure == MEASURES[0]] == ["FCV", "Not FCV"]
    assert rows["Not FCV", "Composite Readiness Score"] == {
        "snapshot": CURRENT, "year": 2026, "group": "Not FCV", "measure": "Composite Readiness Score",
        "count": 2, "mean": 70.0, "median": 70.0, "min": 60.0, "max": 80.0, "p25": 65.0, "p75": 75.0,
    }
    assert rows["Not FCV", "Governance Score"]["count"] == 1
    assert rows["FCV", "Governance Score"] == {
        "snapshot": CURRENT, "year": 2026, "group": "FCV", "measure": "Governance Score", "count": 0,
        "mean": None, "median": None, "min": None, "max": None, "p25": None, "p75": None,
    }
    assert rows["FCV", "Infrastructure Score"]["count"] == 0  # a score absent from every record


def test_aggregates_economy_without_fcv_status_not_classified_never_not_fcv() -> None:
    # FCV Status is not a required field of the data contract (REQUIRED_COUNTRY_FIELDS): an
    # economy without it is of no FCV group, neither "FCV" nor "Not FCV".
    tiny = snapshot(
        country("AAA", "Alpha", **{"Composite Readiness Score": 40.0, "FCV Status": True}),
        country("BBB", "Beta", **{"Composite Readiness Score": 60.0, "FCV Status": False}),
        country("NNN", "Unknown", **{"Composite Readiness Score": 90.0}),
        snapshot_id=CURRENT,
    )
    table = aggregate_rows([(tiny, tiny.countries.values())], Grouping.FCV)
    composite = {row["group"]: row for row in table if row["measure"] == MEASURES[0]}
    assert list(composite) == ["FCV", "Not FCV", UNCLASSIFIED]
    assert [(row["count"], row["mean"]) for row in composite.values()] == [(1, 40.0), (1, 60.0), (1, 90.0)]


# --- groups, filters and the snapshots chosen ----------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown", "groups"),
    [
        ("", [CURRENT], ["World"]),
        ("by=income&region=SSA", [CURRENT],
         ["Low income", "Lower middle income", "Upper middle income", "High income"]),
        ("by=region&fcv=true&income=LIC", [CURRENT],
         ["Middle East & North Africa", "South Asia", "Sub-Saharan Africa"]),
        ("year=2025", ["2025-12"], ["World"]),
        ("snapshot=2024-06&by=fcv", ["2024-06"], ["FCV", "Not FCV"]),
        ("snapshot=2026-11", [CURRENT], ["World"]),
        ("years=2024:2026", ["2024-12", "2025-12", CURRENT], ["World"]),
        ("years=2020:2023&by=FCV", ["2023-12"], ["FCV", "Not FCV"]),
    ],
)
def test_aggregates_snapshots_groups_and_filters(
    summaries: tuple[Summary, ...], raw: str, shown: list[str], groups: list[str]
) -> None:
    answer = aggregates(summaries, raw)
    rows = answer["data"]
    assert answer["snapshot"] == shown[-1] and answer["count"] == len(rows) == len(shown) * len(groups) * len(MEASURES)
    assert [(row["snapshot"], row["group"], row["measure"]) for row in rows] == [
        (snapshot_id, group, measure) for snapshot_id in shown for group in groups for measure in MEASURES
    ]
    query = parse_query_string(raw, routes.AGGREGATES.grammar)
    for row in rows:
        series = next(summary.series for summary in summaries if summary.id == row["snapshot"])
        assert row["year"] == int(str(row["snapshot"])[:4])
        field = {Grouping.WORLD: None, Grouping.REGION: "Region", Grouping.INCOME: "Income Level",
                 Grouping.FCV: "FCV Status"}[query.by]
        members = [
            country.record for country in series.countries.values()
            if (query.region is None or country.record["Region"] == query.region)
            and (query.income is None or country.record["Income Level"] == query.income)
            and (query.fcv is None or country.record["FCV Status"] is query.fcv)
            and group_name(country.record, field) == row["group"]
        ]
        assert_statistics(row, [float(record[row["measure"]]) for record in members])


def test_aggregates_pinned_june_differs_from_its_december(summaries: tuple[Summary, ...]) -> None:
    june, december = aggregates(summaries, "snapshot=2024-06")["data"], aggregates(summaries, "year=2024")["data"]
    assert {row["snapshot"] for row in june} == {"2024-06"} and {row["snapshot"] for row in december} == {"2024-12"}
    assert [row["count"] for row in june] == [217] * len(MEASURES)


@pytest.mark.parametrize(
    ("raw", "error", "message"),
    [
        ("year=2022", ArchiveNotFound, "year=2022"),
        ("snapshot=2021-06", SnapshotNotFound, "'2021-06'"),
        ("snapshot=2027-12", SnapshotNotFound, "'2027-12'"),
        ("years=1990:2021", NoSnapshotInYears, "years=1990:2021"),
        ("years=2022", NoSnapshotInYears, "years=2022"),  # 2022-06 is neither a December nor current
    ],
)
def test_aggregates_selecting_no_snapshot_raises_404(
    summaries: tuple[Summary, ...], raw: str, error: type[ReadinessError], message: str
) -> None:
    with pytest.raises(error, match=message) as raised:
        aggregate_snapshots(summaries, CURRENT, parse_query_string(raw, routes.AGGREGATES.grammar))
    assert raised.value.status == 404


def test_aggregates_csv_has_the_columns_and_the_json_rows(summaries: tuple[Summary, ...]) -> None:
    query = parse_query_string("by=region&format=csv", routes.AGGREGATES.grammar)
    answer = compute_aggregates(summaries, summaries[-1].series, query, routes.AGGREGATES)
    table = list(csv.reader(io.StringIO(answer.body.decode("utf-8-sig"))))
    assert tuple(table[0]) == (*AGGREGATE_COLUMNS, "snapshot_id", "notice")
    rows = aggregates(summaries, "by=region")["data"]
    assert [line[:-2] for line in table[1:]] == [
        ["" if row[name] is None else str(row[name]) for name in AGGREGATE_COLUMNS] for row in rows]
    assert [line[-2] for line in table[1:]] == [row["snapshot"] for row in rows]
    assert answer.meta.total == len(rows) == 42


# --- over HTTP ------------------------------------------------------------------------------------


@pytest.fixture
def app(warm_store: SnapshotStore) -> Application:
    return make_app(Settings(), warm_store, access=AccessLog(io.BytesIO()))


async def get(client: AsyncHTTPClient, base_url: str, path: str, **headers: str) -> HTTPResponse:
    return await client.fetch(f"{base_url}{path}", raise_error=False, headers=headers)


@gen_test
async def test_aggregates_http_json(
    http_client: AsyncHTTPClient, base_url: str, summaries: tuple[Summary, ...]
) -> None:
    response = await get(http_client, base_url, "/api/v1/aggregates?by=income&region=SSA")
    assert response.code == 200 and response.headers["Content-Type"] == "application/json; charset=utf-8"
    parsed = body(response)
    assert parsed == aggregates(summaries, "by=income&region=SSA")
    assert parsed["apiVersion"] == "1" and parsed["snapshot"] == CURRENT and parsed["count"] == 24
    assert response.headers["X-Readiness-Snapshot"] == CURRENT and response.headers["X-Total-Count"] == "24"
    assert response.headers["Cache-Control"].startswith("public, max-age=300")


@gen_test
async def test_aggregates_http_csv(
    http_client: AsyncHTTPClient, base_url: str, summaries: tuple[Summary, ...]
) -> None:
    response = await get(http_client, base_url, "/api/v1/aggregates?years=2025:2026&by=fcv&format=csv")
    assert response.code == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"].startswith('attachment; filename="aggregates-2026-11')
    frame = pandas.read_csv(io.BytesIO(response.body))
    assert frame.pop("notice").str.startswith("SYNTHETIC").all()
    assert (frame.pop("snapshot_id") == frame["snapshot"]).all()
    assert tuple(frame.columns) == AGGREGATE_COLUMNS and len(frame) == 2 * 2 * len(MEASURES)
    rows = aggregates(summaries, "years=2025:2026&by=fcv")["data"]
    assert frame.to_dict("records") == rows


@gen_test
async def test_aggregates_by_region_equal_pandas_over_the_readiness_route(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    """What a researcher computes from the economies themselves, with pandas' groupby (mean,
    median, quantile), rounded to two decimals, is exactly what the route answers."""
    economies = body(await get(http_client, base_url, f"/api/v1/readiness?fields=Region,{','.join(SCORES)}"))
    frame = pandas.DataFrame(economies["data"])
    assert len(frame) == 217
    grouped = frame.groupby("Region")
    table = body(await get(http_client, base_url, "/api/v1/aggregates?by=region"))["data"]
    assert len(table) == 7 * len(MEASURES)
    for row in table:
        column = grouped[row["measure"]]
        group = row["group"]
        assert row["count"] == int(column.count()[group])
        assert row["mean"] == round(float(column.mean()[group]), 2), row
        assert row["median"] == round(float(column.median()[group]), 2), row
        assert row["min"] == round(float(column.min()[group]), 2) and row["max"] == round(float(column.max()[group]), 2)
        assert row["p25"] == round(float(column.quantile(0.25)[group]), 2), row
        assert row["p75"] == round(float(column.quantile(0.75)[group]), 2), row


@gen_test
async def test_aggregates_pages_with_limit_offset_and_link(http_client: AsyncHTTPClient, base_url: str) -> None:
    whole = await get(http_client, base_url, "/api/v1/aggregates?by=region")
    rows = orjson.loads(whole.body)["data"]
    assert len(rows) > 10 and "Link" not in whole.headers
    collected: list[Any] = []
    target = "/api/v1/aggregates?by=region&limit=10"
    while True:
        page = await get(http_client, base_url, target)
        assert page.headers["X-Total-Count"] == str(len(rows))
        collected += orjson.loads(page.body)["data"]
        following = links(page.headers.get("Link")).get("next")
        if following is None:
            break
        assert "offset=" in following
        target = following
    assert collected == rows


@gen_test
async def test_aggregates_revalidates_and_hits_the_lane(
    http_client: AsyncHTTPClient, base_url: str, app: Application
) -> None:
    path = "/api/v1/aggregates?by=region"
    first = await get(http_client, base_url, path)
    assert first.code == 200
    etag = first.headers["Etag"]
    again = await get(http_client, base_url, path, **{"If-None-Match": etag})
    assert again.code == 304 and again.headers["Etag"] == etag and again.body == b""
    modified = await get(http_client, base_url, path, **{"If-Modified-Since": first.headers["Last-Modified"]})
    assert modified.code == 304
    pinned = "/api/v1/aggregates?snapshot=2024-06"
    assert (await get(http_client, base_url, pinned)).code == 200
    archived = await get(http_client, base_url, pinned)
    assert archived.headers["Cache-Control"].startswith("public, max-age=86400")
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit", "hit", "miss", "hit"]


def without_field(directory: Path, code: str, field: str) -> None:
    """Remove ``field`` from economy ``code``'s file of a snapshot ``directory``, its checksum with it."""
    path = directory / "countries" / f"{code}.json"
    record = orjson.loads(path.read_bytes())
    del record[field]
    raw = orjson.dumps(record)
    path.write_bytes(raw)
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    manifest["checksums"][code] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest))


@gen_test
async def test_aggregates_http_by_fcv_economy_without_fcv_status_not_classified(tmp_path: Path) -> None:
    # From the files up: a snapshot whose economy BBB has no FCV Status (the contract does not
    # require it) is loaded, summarized and aggregated; BBB is "Not classified", not "Not FCV".
    data = tmp_path / "data"
    positions = {economy("AAA", fcv_type="Conflict") if e.code == "AAA" else e: p for e, p in STANDARD.items()}
    without_field(place_snapshot(data, CURRENT, positions), "BBB", "FCV Status")
    flip(data, CURRENT)
    store = SnapshotStore(data)
    loaded = store.load_current()
    assert loaded is not None and "FCV Status" not in loaded.countries["BBB"].record
    sock, port = bind_unused_port()
    server = HTTPServer(make_app(Settings(data_dir=data), store, access=AccessLog(io.BytesIO())))
    server.add_sockets([sock])
    try:
        client = AsyncHTTPClient()
        response = await get(client, f"http://127.0.0.1:{port}", "/api/v1/aggregates?by=fcv")
        not_fcv = await get(client, f"http://127.0.0.1:{port}", "/api/v1/aggregates?by=fcv&fcv=false")
    finally:
        server.stop()
        store.close()
    assert response.code == 200, response.body
    composite = {row["group"]: row for row in body(response)["data"] if row["measure"] == MEASURES[0]}
    # Composites (tests/builder_world.py): AAA 8.0, BBB 50.0, CCC 92.0, DDD 29.0; MMM a microstate.
    assert {group: row["count"] for group, row in composite.items()} == {"FCV": 1, "Not FCV": 3, UNCLASSIFIED: 1}
    assert composite[UNCLASSIFIED]["mean"] == 50.0 and composite["FCV"]["mean"] == 8.0
    # fcv=false keeps the economies whose FCV Status is false: BBB's is not.
    assert [row["group"] for row in body(not_fcv)["data"] if row["measure"] == MEASURES[0]] == ["Not FCV"]


@gen_test
@pytest.mark.parametrize(
    ("query", "status", "fragment"),
    [
        ("by=country", 400, "by='country' is not valid; use world or region or income or fcv"),
        ("by=region&code=KEN", 400, "Unknown parameter 'code'"),
        # year chooses over years, which is still checked (docs/API.md): malformed, a 400.
        ("year=2025&years=2025-2026", 400, "years='2025-2026' is not valid"),
        ("year=2022", 404, "No archived snapshot for year=2022"),
        ("snapshot=2021-06", 404, "No snapshot '2021-06'"),
        ("years=1990", 404, "No snapshot for years=1990"),
        ("years=1990&format=csv", 404, "No snapshot for years=1990"),
    ],
)
async def test_aggregates_bad_input_and_no_snapshot(
    http_client: AsyncHTTPClient, base_url: str, query: str, status: int, fragment: str
) -> None:
    assert_error_envelope(await get(http_client, base_url, f"/api/v1/aggregates?{query}"), status, fragment)


@gen_test
async def test_aggregates_south_asia_from_the_published_scores_of_the_csv(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    """The route computes from the scores the readiness CSV serves (no unrounded ones exist):
    South Asia's mean is theirs, rounded by Python's ``round`` (docs/METHOD.md#group-statistics-apiv1aggregates)."""
    economies = await get(http_client, base_url, "/api/v1/readiness?region=SAS&fields=score&format=csv")
    scores = list(pandas.read_csv(io.BytesIO(economies.body))["Composite Readiness Score"])
    assert sorted(scores) == sorted(SOUTH_ASIA_2026_11)
    table = body(await get(http_client, base_url, "/api/v1/aggregates?by=region&region=SAS"))["data"]
    row = next(row for row in table if row["measure"] == "Composite Readiness Score")
    assert row["group"] == "South Asia" and row["count"] == 8
    assert row["mean"] == round(math.fsum(scores) / len(scores), 2) == 43.77
