"""readiness.domain.package: a snapshot's bulk files, and their routes (docs/API.md#downloads).

The descriptor is checked by the Frictionless library itself (its columns, types, sizes and
hashes against the CSVs), the Parquet files by pyarrow and pandas, and against a running server
by the readers analysts use over HTTP: pandas and DuckDB (its httpfs extension from PyPI).
"""

from __future__ import annotations

import io
import urllib.request
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import duckdb_extension_httpfs
import fsspec
import orjson
import pandas as pd
import pyarrow.parquet as pq
import pytest
from frictionless import validate
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from loaders import Snapshot, Summary
from loaders.summary import summarize
from readiness.domain.columns import COLUMNS
from readiness.domain.package import (
    INDICATORS,
    READINESS,
    TABLES,
    descriptor,
    file_columns,
    package_zip,
    table_csv,
    table_parquet,
)
from tests.conftest import SAMPLE, access_lines, assert_error_envelope, gen_test
from tests.processes import Server, Start, launch, until

CURRENT = "2026-11"
FILES = ("datapackage.json", "package.zip", "readiness.csv", "readiness.parquet", "indicators.csv",
         "indicators.parquet")


@pytest.fixture(scope="module")
def summary() -> Summary:
    snapshot = _sample()
    return summarize(snapshot, "sample", SAMPLE / "snapshots" / CURRENT)


def _sample() -> Snapshot:
    from loaders.reader import load_snapshot
    return load_snapshot(SAMPLE / "snapshots" / CURRENT)


def _csv(body: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(body), keep_default_na=False, na_values=[""])


# --- the files, as plain functions -----------------------------------------------------------


def test_every_column_of_every_file_is_described() -> None:
    for table in TABLES:
        for name in (*table.columns, "snapshot_id", "notice"):
            assert COLUMNS[name].description, name


def test_package_zip_holds_readme_descriptor_and_csvs_that_frictionless_validates(
    sample_current: Snapshot, summary: Summary, tmp_path: Path
) -> None:
    archive = zipfile.ZipFile(io.BytesIO(package_zip(sample_current, summary)))
    assert archive.namelist() == ["README.txt", "datapackage.json", "readiness.csv", "indicators.csv"]
    readme = archive.read("README.txt").decode()
    assert readme.startswith(f"NOTICE: {sample_current.notice}") and "synthetic" in readme
    archive.extractall(tmp_path)
    report = validate(str(tmp_path / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:5]
    assert [task.stats["rows"] for task in report.tasks] == [len(sample_current.countries), 4991]
    package = orjson.loads(archive.read("datapackage.json"))
    assert package["notice"] == sample_current.notice and package["notice"] in package["description"]
    assert package["synthetic"] is True and package["snapshot"] == CURRENT and package["published"] == "2026-11-05"
    assert package["citation"]["snapshot"] == CURRENT and package["sources"]
    fields = {field["name"]: field for field in package["resources"][1]["schema"]["fields"]}
    assert fields["normalized_value"]["unit"] == "points, 0 to 100" and fields["year"]["type"] == "integer"
    assert list(fields)[-2:] == ["snapshot_id", "notice"]


def test_frictionless_catches_a_csv_that_is_not_the_one_described(
    sample_current: Snapshot, summary: Summary, tmp_path: Path
) -> None:
    """The descriptor's size and hash are real checks: a changed byte fails validation."""
    zipfile.ZipFile(io.BytesIO(package_zip(sample_current, summary))).extractall(tmp_path)
    csv_path = tmp_path / "readiness.csv"
    csv_path.write_bytes(csv_path.read_bytes().replace(b"Aruba", b"Arubo", 1))
    assert not validate(str(tmp_path / "datapackage.json")).valid


def test_files_are_the_same_bytes_on_every_build(sample_current: Snapshot, summary: Summary) -> None:
    """Strong ETags and byte ranges hold across servers: nothing in a file depends on when it was built."""
    assert package_zip(sample_current, summary) == package_zip(sample_current, summary)
    assert table_parquet(sample_current, INDICATORS) == table_parquet(sample_current, INDICATORS)


@pytest.mark.parametrize("table", TABLES, ids=[table.name for table in TABLES])
def test_parquet_holds_the_csvs_values_typed_with_meanings_and_provenance(sample_current: Snapshot, table: Any) -> None:
    parquet = pq.read_table(io.BytesIO(table_parquet(sample_current, table)))
    assert parquet.column_names == list(file_columns(sample_current, table))
    metadata = {key.decode(): value.decode() for key, value in parquet.schema.metadata.items()}
    assert metadata["notice"] == sample_current.notice and metadata["snapshot_id"] == CURRENT
    assert metadata["synthetic"] == "true" and "Do not cite" in metadata["citation"]
    for name in parquet.column_names:
        field_metadata = parquet.schema.field(name).metadata
        assert field_metadata[b"description"].decode() == COLUMNS[name].description
    from_parquet = parquet.to_pandas()
    from_csv = _csv(table_csv(sample_current, table))
    assert list(from_csv.columns) == parquet.column_names
    assert len(from_parquet) == len(from_csv) and set(from_parquet["snapshot_id"]) == {CURRENT}
    numbers = [name for name in parquet.column_names if COLUMNS[name].type in ("number", "integer")]
    pd.testing.assert_frame_equal(from_parquet[numbers].astype("float64"), from_csv[numbers].astype("float64"))


def test_parquet_types_follow_the_contract(sample_current: Snapshot) -> None:
    schema = pq.read_schema(io.BytesIO(table_parquet(sample_current, READINESS)))
    assert str(schema.field("Population, total").type) == "int64"
    assert str(schema.field("Composite Readiness Score").type) == "double"
    assert str(schema.field("FCV Status").type) == "bool"
    assert str(schema.field("Last Updated").type) == "date32[day]"
    assert schema.field("Global Rank").metadata[b"unit"] == b"rank, 1 = highest"


def test_a_snapshot_without_a_notice_has_no_notice_column_or_readme_line(
    sample_current: Snapshot, summary: Summary
) -> None:
    real = replace(sample_current, notice=None, synthetic=False)
    assert file_columns(real, READINESS)[-1] == "snapshot_id"
    assert _csv(table_csv(real, READINESS)).columns[-1] == "snapshot_id"
    assert "notice" not in pq.read_schema(io.BytesIO(table_parquet(real, READINESS))).names
    archive = zipfile.ZipFile(io.BytesIO(package_zip(real, summary)))
    assert not archive.read("README.txt").startswith(b"NOTICE")
    files = [(table, table_csv(real, table)) for table in TABLES]
    assert descriptor(real, summary, files)["name"] == f"readiness-{CURRENT}"


# --- the routes ---------------------------------------------------------------------------------


async def _get(http_client: AsyncHTTPClient, url: str, **headers: str) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False, headers=headers)


@gen_test(timeout=60)
async def test_files_routes_answer_each_file_for_an_id_and_for_current(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    for name in FILES:
        by_id = await _get(http_client, f"{base_url}/api/v1/snapshots/{CURRENT}/{name}")
        current = await _get(http_client, f"{base_url}/api/v1/snapshots/current/{name}")
        assert by_id.code == current.code == 200, (name, by_id.body[:200])
        assert by_id.body == current.body and by_id.headers["ETag"] == current.headers["ETag"]
        assert by_id.headers["X-Readiness-Snapshot"] == CURRENT
        stem, extension = name.split(".")
        if extension != "json":
            download = "package" if stem == "package" else stem
            assert by_id.headers["Content-Disposition"] == (
                f'attachment; filename="{download}-{CURRENT}-synthetic.{extension}"')
    zipped = await _get(http_client, f"{base_url}/api/v1/snapshots/{CURRENT}/package.zip",
                        **{"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Type"] == "application/zip" and "Content-Encoding" not in zipped.headers
    assert zipped.headers["Accept-Ranges"] == "bytes"
    described = orjson.loads((await _get(http_client, f"{base_url}/api/v1/snapshots/current/datapackage.json")).body)
    assert described == orjson.loads(zipfile.ZipFile(io.BytesIO(zipped.body)).read("datapackage.json"))


@gen_test(timeout=60)
async def test_an_archives_files_are_its_own(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await _get(http_client, f"{base_url}/api/v1/snapshots/2024-06/readiness.parquet")
    assert response.code == 200 and response.headers["X-Readiness-Snapshot"] == "2024-06"
    table = pq.read_table(io.BytesIO(response.body))
    assert set(table.column("snapshot_id").to_pylist()) == {"2024-06"}
    assert response.headers["Content-Disposition"] == 'attachment; filename="readiness-2024-06-synthetic.parquet"'


@gen_test
@pytest.mark.parametrize(
    ("snapshot_id", "status", "fragment"),
    [("latest", 400, "snapshot id 'latest' is not valid; use current or a month YYYY-MM"),
     ("..%2F..%2Fetc", 400, "is not valid"),
     ("2026-13", 400, "2026-13"),
     ("1999-12", 404, "No snapshot '1999-12'")],
)
async def test_files_routes_refuse_what_is_not_a_listed_snapshot(
    http_client: AsyncHTTPClient, base_url: str, snapshot_id: str, status: int, fragment: str
) -> None:
    for name in ("package.zip", "indicators.parquet"):
        response = await _get(http_client, f"{base_url}/api/v1/snapshots/{snapshot_id}/{name}")
        assert_error_envelope(response, status, fragment)


@gen_test
async def test_files_routes_take_no_parameters(http_client: AsyncHTTPClient, base_url: str) -> None:
    response = await _get(http_client, f"{base_url}/api/v1/snapshots/current/package.zip?format=csv")
    assert_error_envelope(response, 400, "format")


@gen_test(timeout=60)
async def test_a_range_of_a_parquet_file_is_answered_from_the_cached_file(
    http_client: AsyncHTTPClient, base_url: str, app: Any
) -> None:
    url = f"{base_url}/api/v1/snapshots/current/indicators.parquet"
    whole = await _get(http_client, url)
    footer = await _get(http_client, url, Range="bytes=-8")
    assert footer.code == 206 and footer.body == whole.body[-8:] and footer.body.endswith(b"PAR1")
    size = len(whole.body)
    assert footer.headers["Content-Range"] == f"bytes {size - 8}-{size - 1}/{size}"
    assert footer.headers["ETag"] == whole.headers["ETag"]
    middle = await _get(http_client, url, Range="bytes=4-11", **{"If-Range": whole.headers["ETag"]})
    assert middle.code == 206 and middle.body == whole.body[4:12]
    stale = await _get(http_client, url, Range="bytes=4-11", **{"If-Range": '"not-this-one"'})
    assert stale.code == 200 and stale.body == whole.body
    past = await _get(http_client, url, Range=f"bytes={size}-")
    assert past.code == 416 and past.headers["Content-Range"] == f"bytes */{size}" and past.body == b""
    # The first request computed the file (a handler); the ranges came from tier 1 in the hit lane.
    assert [line["cache"] for line in access_lines(app)] == ["miss", "hit", "hit", "hit", "hit"]


@gen_test
async def test_a_range_on_a_json_or_csv_answer_gets_the_whole_answer(
    http_client: AsyncHTTPClient, base_url: str
) -> None:
    for target in ("/api/v1/readiness?code=KEN", "/api/v1/snapshots/current/readiness.csv"):
        response = await _get(http_client, base_url + target, Range="bytes=0-9")
        assert response.code == 200 and len(response.body) > 10 and "Accept-Ranges" not in response.headers


# --- against a running server: the readers analysts use ------------------------------------------


@pytest.fixture
def server(start: Start, tmp_path: Path) -> Server:
    """server.py over the bundled sample, for the readers analysts use."""
    return launch(start, tmp_path, {})


def _statuses(server: Server, path: str) -> list[int]:
    """The statuses the server's access log shows for ``path`` so far (it writes lines in batches)."""
    lines = [orjson.loads(line) for line in server.log.read_bytes().splitlines() if line.startswith(b"{")]
    return [line["status"] for line in lines if line.get("path") == path]


def test_pandas_reads_parquet_from_the_url_whole_and_by_ranges(server: Server) -> None:
    path = "/api/v1/snapshots/current/readiness.parquet"
    frame = pd.read_parquet(server.url(path))
    assert len(frame) == 217 and set(frame["snapshot_id"]) == {CURRENT}
    assert frame["notice"].str.startswith("SYNTHETIC SAMPLE DATA").all()
    # Through fsspec's HTTP file system, as pandas does for any other remote store: byte ranges.
    ranged = pd.read_parquet(server.url(path), filesystem=fsspec.filesystem("http"))
    pd.testing.assert_frame_equal(ranged, frame)
    until(lambda: 206 in _statuses(server, path), 10, "a 206 in the access log")


def test_duckdb_reads_parquet_over_http_with_ranges(server: Server) -> None:
    """DuckDB's ``read_parquet('http://…')``, with its httpfs extension loaded from the pinned
    PyPI package (no extension download: the test runs offline; DuckDB checks its signature)."""
    extension = (Path(duckdb_extension_httpfs.__file__).parent / "extensions" / f"v{duckdb.__version__}"
                 / "httpfs.duckdb_extension")
    connection = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    connection.execute(f"LOAD '{extension}'")
    path = "/api/v1/snapshots/current/indicators.parquet"
    rows = connection.execute(
        "SELECT count(*), min(snapshot_id), max(snapshot_id), count(DISTINCT \"Country Code\"), "
        f"any_value(notice) FROM read_parquet('{server.url(path)}')"
    ).fetchone()
    assert rows is not None and rows[:4] == (len(pq.read_table(_fetch(server.url(path)))), CURRENT, CURRENT, 217)
    assert str(rows[4]).startswith("SYNTHETIC SAMPLE DATA")
    until(lambda: 206 in _statuses(server, path), 10, "a 206 in the access log")


def test_frictionless_validates_the_served_descriptor_and_csvs(server: Server) -> None:
    """The descriptor's relative paths resolve to the CSV routes beside it, whose bytes its
    sizes and hashes describe."""
    report = validate(server.url(f"/api/v1/snapshots/{CURRENT}/datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:5]


def _fetch(url: str) -> io.BytesIO:
    with urllib.request.urlopen(url, timeout=30) as response:
        return io.BytesIO(response.read())


@gen_test
async def test_a_files_build_is_priced_like_an_answer_of_its_size(
    http_client: AsyncHTTPClient, base_url: str, app: Any
) -> None:
    """The compute pool prices a build at ``files_cost`` (the sample: 1.7 MB of answer), so the
    limit on one answer, and each client's budget, hold for the bulk files too."""
    app.lane.service.max_answer_bytes = 1_000_000
    response = await _get(http_client, f"{base_url}/api/v1/snapshots/current/package.zip")
    assert_error_envelope(response, 400, "about 1.7 MB, over the 1.0 MB one answer may be")


@gen_test(timeout=60)
@pytest.mark.parametrize("target", [
    "/api/v1/readiness?shortnames=true&weights=2,1,1,1,1&format=csv",
    "/api/v1/indicators?code=KEN&format=csv", "/api/v1/indicators?code=KEN&shape=long&format=csv",
    "/api/v1/history?code=KEN&format=csv", "/api/v1/history?code=KEN&shape=long&format=csv",
    "/api/v1/aggregates?by=region&format=csv", "/api/v1/rankings/changes?format=csv",
    "/api/v1/snapshots/2026-11/changes?format=csv",
])
async def test_the_metadata_describes_every_column_of_every_data_routes_csv(
    http_client: AsyncHTTPClient, base_url: str, target: str
) -> None:
    """Every download has its metadata: ``datapackage.json``'s ``downloads`` names each column
    a data route's CSV may have, with its type and meaning."""
    described = orjson.loads((await _get(http_client, f"{base_url}/api/v1/snapshots/current/datapackage.json")).body)
    path = target.split("?")[0].replace("2026-11", "{id}")
    fields = next(download["fields"] for download in described["downloads"] if download["path"] == path)
    assert all(field["description"] and field["type"] for field in fields)
    header = _csv((await _get(http_client, base_url + target)).body).columns
    assert list(header[-2:]) == ["snapshot_id", "notice"]
    assert set(header) <= {field["name"] for field in fields}, set(header) - {field["name"] for field in fields}
