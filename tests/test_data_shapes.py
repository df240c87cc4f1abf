"""``snapshot=``, the indicator table over ``years``, its percentile numbers and ``shape=long``
over HTTP (docs/API.md#the-data-routes-indicators-history-snapshots-change-reports), on the real
app over the tiny data directory of tests/test_data_routes.py: 2023-12, 2024-06 (not a
December), 2025-12 and the current 2026-11."""

from __future__ import annotations

import io
import re
from pathlib import Path

import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient
from tornado.web import Application

from config import Settings
from loaders import JsonValue, SnapshotStore
from readiness.app import make_app
from readiness.domain.shapes import HISTORY_LONG_COLUMNS, INDICATOR_LONG_COLUMNS, INDICATOR_MEASURES
from readiness.domain.tables import HISTORY_DEFAULT, INDICATOR_COLUMNS
from readiness.http.logs import AccessLog
from tests.conftest import access_lines, assert_error_envelope, body, gen_test, links
from tests.test_data_routes import EVERY, csv_rows, data_directory, get, rows

LISTED = ("2023-12", "2024-06", "2025-12", "2026-11")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return data_directory(tmp_path)


@pytest.fixture
def store(data: Path) -> SnapshotStore:
    store = SnapshotStore(data, archive_slots=1)  # fewer slots than archives: cycling them must not thrash
    store.load_current()
    return store


@pytest.fixture
def app(store: SnapshotStore) -> Application:
    return make_app(Settings(data_dir=store.data_dir), store, access=AccessLog(io.BytesIO()))


# --- snapshot= ---------------------------------------------------------------------------------


@gen_test
@pytest.mark.parametrize("route", ["readiness", "indicators"])
async def test_snapshot_serves_a_june_archive_named_everywhere_with_the_archive_cache_policy(
    http_client: AsyncHTTPClient, base_url: str, route: str
) -> None:
    june = await get(http_client, base_url, f"/api/v1/{route}?snapshot=2024-06")
    assert june.code == 200, june.body
    assert june.headers["X-Readiness-Snapshot"] == "2024-06" and body(june)["snapshot"] == "2024-06"
    assert june.headers["Last-Modified"] == "Sat, 01 Jun 2024 00:00:00 GMT"
    december = await get(http_client, base_url, f"/api/v1/{route}?year=2025")
    current = await get(http_client, base_url, f"/api/v1/{route}")
    assert june.headers["Cache-Control"] == december.headers["Cache-Control"] != current.headers["Cache-Control"]
    assert june.body != current.body
    if route == "indicators":
        assert {row["snapshot"] for row in rows(june)} == {"2024-06"}


@gen_test
async def test_snapshot_of_the_current_id_is_the_current_data_labelled_with_its_id(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    pinned = await get(http_client, base_url, "/api/v1/readiness?snapshot=2026-11")
    current = await get(http_client, base_url, "/api/v1/readiness")
    assert body(pinned)["snapshot"] == "2026-11" and body(current)["snapshot"] == "current"
    assert body(pinned)["data"] == body(current)["data"]


@gen_test
@pytest.mark.parametrize("route", ["readiness", "indicators"])
@pytest.mark.parametrize("snapshot_id", ["2019-12", "2025-06", "2027-01"])  # never, a month not listed, not yet
async def test_snapshot_not_listed_is_404_naming_it(
    http_client: AsyncHTTPClient, base_url: str, route: str, snapshot_id: str
) -> None:
    response = await get(http_client, base_url, f"/api/v1/{route}?snapshot={snapshot_id}")
    assert_error_envelope(response, 404, f"No snapshot '{snapshot_id}'", "GET /api/v1/snapshots")


@gen_test
@pytest.mark.parametrize("route", ["readiness", "indicators"])
async def test_snapshot_malformed_is_400(http_client: AsyncHTTPClient, base_url: str, route: str) -> None:
    bad_month = await get(http_client, base_url, f"/api/v1/{route}?snapshot=2024-13")
    assert_error_envelope(bad_month, 400, "snapshot='2024-13' is not valid", "YYYY-MM")
    beside_year = await get(http_client, base_url, f"/api/v1/{route}?year=2024&snapshot=2024-13")
    assert_error_envelope(beside_year, 400, "snapshot='2024-13' is not valid", "YYYY-MM")


@gen_test
@pytest.mark.parametrize("route", ["readiness", "indicators"])
async def test_snapshot_with_year_answers_as_the_year_alone(
    http_client: AsyncHTTPClient, base_url: str, route: str
) -> None:
    both = await get(http_client, base_url, f"/api/v1/{route}?year=2025&snapshot=2024-06&limit=3")
    year = await get(http_client, base_url, f"/api/v1/{route}?year=2025&limit=3")
    assert both.code == year.code == 200
    assert both.body == year.body and both.headers["ETag"] == year.headers["ETag"]
    assert both.headers["X-Readiness-Snapshot"] == "2025-12"
    unlisted = await get(http_client, base_url, f"/api/v1/{route}?year=2024&snapshot=2024-06")
    assert_error_envelope(unlisted, 404, "2024")  # the year's December, not the snapshot beside it


@gen_test
async def test_cycling_every_listed_snapshot_reads_no_archive_once_answers_are_cached(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore, app: Application
) -> None:
    paths = [f"/api/v1/{route}?snapshot={snapshot_id}"
             for snapshot_id in LISTED for route in ("readiness", "indicators")]
    await store.summaries()  # as the server's background fill does at start-up
    first = [await get(http_client, base_url, path) for path in paths]
    reads = sum(store.counts.loads.values())
    for _ in range(3):  # three archives through one slot: each request would revive one
        again = [await get(http_client, base_url, path) for path in paths]
        assert [response.body for response in again] == [response.body for response in first]
    assert sum(store.counts.loads.values()) == reads
    assert [line["cache"] for line in access_lines(app)][len(paths):] == ["hit"] * 3 * len(paths)


# --- the indicator table: percentile numbers, years= ------------------------------------------


@gen_test
async def test_indicator_rows_carry_the_percentiles_as_numbers_after_specs_keys(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    table = rows(await get(http_client, base_url, "/api/v1/indicators"))
    assert all(tuple(row) == INDICATOR_COLUMNS for row in table)
    for row in table:
        for number, ordinal in (("global_percentile_value", "global_percentile"),
                                ("regional_percentile_value", "regional_percentile")):
            text = row[ordinal]
            assert row[number] == (None if text is None else int(re.fullmatch(r"([0-9]+)(st|nd|rd|th)", str(text))[1]))
    assert any(isinstance(row["global_percentile_value"], int) for row in table)
    header = csv_rows(await get(http_client, base_url, "/api/v1/indicators?format=csv&limit=1"))[0]
    assert header[-6:] == [
        "notes", "global_percentile_value", "regional_percentile_value", "observed_year", "snapshot_id", "notice"
    ]


@gen_test
async def test_indicator_rows_observed_year_is_the_deprecated_year_renamed(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    table = rows(await get(http_client, base_url, "/api/v1/indicators?snapshot=2024-06"))
    assert table and all(row["observed_year"] == row["year"] for row in table)
    assert any(isinstance(row["observed_year"], int) for row in table)
    csv_table = csv_rows(await get(http_client, base_url, "/api/v1/indicators?snapshot=2024-06&format=csv"))
    header = csv_table[0]
    assert all(line[header.index("observed_year")] == line[header.index("year")] for line in csv_table[1:])


@gen_test
async def test_indicators_years_rows_of_every_december_and_the_current_snapshot_in_range(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    response = await get(http_client, base_url, "/api/v1/indicators?years=2023:2026&code=AAA")
    table = rows(response)
    assert body(response)["snapshot"] == "2026-11" and response.headers["X-Readiness-Snapshot"] == "2026-11"
    assert response.headers["X-Total-Count"] == str(3 * EVERY)  # no 2024-06: history's snapshots
    assert response.headers["Cache-Control"] == (await get(http_client, base_url, "/api/v1/indicators")).headers[
        "Cache-Control"]
    expected: list[dict[str, JsonValue]] = []
    for snapshot_id in ("2023-12", "2025-12", "2026-11"):
        expected += rows(await get(http_client, base_url, f"/api/v1/indicators?snapshot={snapshot_id}&code=AAA"))
    assert table == expected
    narrowed = rows(await get(http_client, base_url, "/api/v1/indicators?years=2025&indicators=GE.EST"))
    assert {(row["snapshot"], row["indicator_code"]) for row in narrowed} == {("2025-12", "GE.EST")}


@gen_test
@pytest.mark.parametrize("years", ["2024", "2010:2020", "2027:2030"])
async def test_indicators_years_selecting_no_snapshot_is_404(
    http_client: AsyncHTTPClient, base_url: str, years: str
) -> None:
    response = await get(http_client, base_url, f"/api/v1/indicators?years={years}")
    assert_error_envelope(response, 404, f"years={years}", "2023, 2025, 2026")


@gen_test
async def test_indicators_years_cached_and_a_replaced_snapshot_gives_a_new_answer(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore, data: Path, app: Application
) -> None:
    path = "/api/v1/indicators?years=2025:2026&code=AAA"
    first = await get(http_client, base_url, path)
    reads = sum(store.counts.loads.values())
    again = await get(http_client, base_url, path)
    assert again.body == first.body and sum(store.counts.loads.values()) == reads  # tier 1: no archive read
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit"]
    # A publish with --replace of 2025-12: its values change, so must the answer (and its key).
    _rewrite_indicator(data / "snapshots" / "2025-12", "AAA", 123.45)
    assert await store.replaced_archives() == ["2025-12"]
    await store.summaries()
    changed = rows(await get(http_client, base_url, path))
    assert [row["reported_value"] for row in changed if row["snapshot"] == "2025-12"][0] == 123.45


@gen_test
async def test_indicators_years_hit_is_sent_by_the_hit_lane_without_a_handler(
    http_client: AsyncHTTPClient, base_url: str, store: SnapshotStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readiness.http.handlers import DataHandler

    built: list[str] = []
    initialize = DataHandler.initialize

    def counting(self: DataHandler, **kwargs: object) -> None:
        built.append(self.request.uri or "")
        initialize(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DataHandler, "initialize", counting)
    await store.summaries()  # the lane needs every summary in memory to name the answer
    path = "/api/v1/indicators?years=2025:2026&code=AAA"
    first, again = await get(http_client, base_url, path), await get(http_client, base_url, path)
    assert again.body == first.body and built == [path]


def _rewrite_indicator(directory: Path, code: str, value: float) -> None:
    """Set the first indicator's reported value of ``code`` in a snapshot directory, with its
    checksum in the manifest, as a publish with ``--replace`` would change the files."""
    import hashlib

    path = directory / "countries" / f"{code}.json"
    document = orjson.loads(path.read_bytes())
    document["indicator_details"][0]["reported_value"] = value
    raw = orjson.dumps(document)
    path.write_bytes(raw)
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    manifest["checksums"][code] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest))


# --- shape=long ----------------------------------------------------------------------------------


@gen_test
async def test_history_long_is_the_wide_answer_one_value_per_row(http_client: AsyncHTTPClient, base_url: str) -> None:
    wide = rows(await get(http_client, base_url, "/api/v1/history?codes=AAA,EEE"))
    response = await get(http_client, base_url, "/api/v1/history?codes=AAA,EEE&shape=long")
    long = rows(response)
    assert all(tuple(row) == HISTORY_LONG_COLUMNS for row in long)
    assert [(row["Country Code"], row["snapshot"], row["year"], row["date"], row["measure"], row["value"])
            for row in long] == [
        (row["Country Code"], row["snapshot"], row["year"], row["date"], name, row[name])
        for row in wide for name in HISTORY_DEFAULT
    ]
    assert response.headers["X-Total-Count"] == str(len(wide) * len(HISTORY_DEFAULT)) == str(len(long))


@gen_test
async def test_long_limit_offset_and_total_count_long_rows_json_and_csv_alike(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    every = rows(await get(http_client, base_url, "/api/v1/indicators?shape=long"))
    assert len(every) == 6 * EVERY * len(INDICATOR_MEASURES)
    page = await get(http_client, base_url, "/api/v1/indicators?shape=long&limit=5&offset=3")
    assert rows(page) == every[3:8]
    assert page.headers["X-Total-Count"] == str(len(every))
    assert links(page.headers["Link"])["next"] == "/api/v1/indicators?limit=5&offset=8&shape=long"
    table = csv_rows(await get(http_client, base_url, "/api/v1/indicators?shape=long&limit=5&offset=3&format=csv"))
    assert table[0] == [*INDICATOR_LONG_COLUMNS, "snapshot_id", "notice"]
    assert [line[:7] for line in table[1:]] == [
        [str(row[name]) for name in INDICATOR_LONG_COLUMNS[:7]] for row in every[3:8]
    ]
    history = csv_rows(await get(http_client, base_url, "/api/v1/history?shape=long&format=csv&code=AAA&years=2026"))
    assert history[0] == [*HISTORY_LONG_COLUMNS, "snapshot_id", "notice"]
    assert [line[5] for line in history[1:]] == list(HISTORY_DEFAULT)


@gen_test
async def test_indicators_long_over_years_and_on_an_archive(http_client: AsyncHTTPClient, base_url: str) -> None:
    over_years = rows(await get(http_client, base_url, "/api/v1/indicators?years=2023:2026&code=AAA&shape=long"))
    assert [row["snapshot"] for row in over_years[::EVERY * len(INDICATOR_MEASURES)]] == ["2023-12", "2025-12",
                                                                                          "2026-11"]
    wide = rows(await get(http_client, base_url, "/api/v1/indicators?snapshot=2024-06&code=BBB"))
    long = rows(await get(http_client, base_url, "/api/v1/indicators?snapshot=2024-06&code=BBB&shape=long"))
    assert [(row["indicator_code"], row["measure"], row["value"]) for row in long] == [
        (row["indicator_code"], measure, row[measure]) for row in wide for measure in INDICATOR_MEASURES
    ]


@gen_test
async def test_shape_unknown_is_400(http_client: AsyncHTTPClient, base_url: str) -> None:
    assert_error_envelope(await get(http_client, base_url, "/api/v1/history?shape=tall"), 400, "shape='tall'",
                          "wide or long")


@gen_test
async def test_history_long_keeps_value_numeric_text_fields_in_text_value(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    mixed = rows(await get(http_client, base_url, "/api/v1/history?fields=Region,FCV%20Status,score&shape=long"))
    assert mixed and all(row["value"] is None or type(row["value"]) in (int, float) for row in mixed)
    assert {row["measure"] for row in mixed if row["text_value"] is not None} <= {"Region", "FCV Status"}
    assert all(isinstance(row["text_value"], str) for row in mixed if row["measure"] == "Region")
    assert all(row["value"] is None for row in mixed if row["measure"] in ("Region", "FCV Status"))
    numeric = rows(await get(http_client, base_url, "/api/v1/history?fields=score,Global%20Rank&shape=long"))
    assert numeric and all("text_value" not in row for row in numeric)  # the column only when asked for
    table = csv_rows(await get(http_client, base_url, "/api/v1/history?fields=Region,score&shape=long&format=csv"))
    assert table[0] == [*HISTORY_LONG_COLUMNS, "text_value", "snapshot_id", "notice"]
