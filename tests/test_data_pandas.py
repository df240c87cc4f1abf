"""The indicator table and history as a researcher reads them: pandas.read_csv and
pandas.read_json of the same answer, over a real server on the bundled (synthetic) sample."""

from __future__ import annotations

import asyncio
import io
import math
import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pandas
import pytest

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.domain.tables import INDICATOR_COLUMNS
from tests.conftest import SAMPLE
from tests.openapi_server import serving


@pytest.fixture(scope="module")
def sample_server() -> Iterator[str]:
    """The real app over the sample, every snapshot's summary read before it listens (as the
    server does in the background at start-up), so no request waits for an archive."""
    store = SnapshotStore(SAMPLE)
    store.load_current()
    summaries = asyncio.run(store.summaries())
    assert len(summaries) == 6
    try:
        with serving(make_app(Settings(), store)) as url:
            yield url
    finally:
        store.close()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (our own test server)
        return bytes(response.read())


def _same(got: Any, want: Any) -> bool:
    """A CSV cell as pandas reads it equals the JSON value: nulls and empty text are NaN,
    numbers equal, text equal."""
    if want is None or want == "" or (isinstance(want, float) and math.isnan(want)):
        return got is None or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, bool):
        return bool(got) is want
    if isinstance(want, (int, float)):
        return float(got) == float(want)
    return bool(got == want)


def _round_trip(base: str, path: str) -> tuple[pandas.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    separator = "&" if "?" in path else "?"
    from_csv = pandas.read_csv(io.BytesIO(_get(f"{base}{path}{separator}format=csv")))
    # Every row ends with its own snapshot and that snapshot's notice (docs/API.md#csv).
    assert list(from_csv.columns[-2:]) == ["snapshot_id", "notice"]
    assert from_csv.pop("notice").str.startswith("SYNTHETIC SAMPLE DATA").all()
    assert (from_csv.pop("snapshot_id") == from_csv["snapshot"]).all()
    envelope = orjson.loads(_get(f"{base}{path}"))
    rows = envelope["data"]
    # precise_float: pandas' default JSON float parser is off by an ulp now and then.
    from_json = pandas.read_json(
        io.StringIO(orjson.dumps(rows).decode()), orient="records", dtype=False, precise_float=True
    )
    assert list(from_csv.columns) == list(from_json.columns) == list(rows[0])
    assert len(from_csv) == len(from_json) == len(rows) == envelope["count"]
    for name in from_csv.columns:
        own_values = [row[name] for row in rows]
        for got, want, own in zip(from_csv[name].tolist(), from_json[name].tolist(), own_values, strict=True):
            assert _same(got, want) and _same(got, own), (name, got, want, own)
    return from_csv, rows, envelope


@pytest.mark.parametrize(
    "query", ["", "?region=SSA&indicators=GE.EST,SE.PRM.UNER.ZS", "?year=2024&income=LIC&limit=100"]
)
def test_pandas_indicator_table_csv_equals_json(sample_server: str, query: str) -> None:
    frame, rows, envelope = _round_trip(sample_server, f"/api/v1/indicators{query}")
    assert tuple(frame.columns) == INDICATOR_COLUMNS
    assert envelope["snapshot"] == ("2024-12" if "year" in query else "2026-11")


def test_pandas_indicator_table_is_the_long_form_of_the_details(sample_server: str) -> None:
    frame, _, _ = _round_trip(sample_server, "/api/v1/indicators")
    assert len(frame) == 4991 and frame["Country Code"].nunique() == 217
    wide = frame.pivot(index="Country Code", columns="indicator_code", values="normalized_value")
    kenya = orjson.loads(_get(f"{sample_server}/api/v1/readiness?code=KEN"))["data"]["indicator_details"]
    for element in kenya:
        assert _same(wide.loc["KEN", element["indicator_code"]], element["normalized_value"])


@pytest.mark.parametrize(
    "query", ["", "?codes=KEN,BRA,CIV&fields=score,Global%20Rank,Income%20Level", "?years=2024:2025&fcv=true"]
)
def test_pandas_history_csv_equals_json(sample_server: str, query: str) -> None:
    frame, _, _ = _round_trip(sample_server, f"/api/v1/history{query}")
    assert list(frame.columns)[:3] == ["Country Code", "Country Name", "snapshot"]


def test_pandas_history_pivots_to_scores_over_time(sample_server: str) -> None:
    frame, _, envelope = _round_trip(sample_server, "/api/v1/history")
    assert envelope["snapshot"] == "2026-11"
    assert sorted(frame["snapshot"].unique()) == ["2023-12", "2024-12", "2025-12", "2026-11"]
    over_time = frame.pivot(index="Country Code", columns="snapshot", values="Composite Readiness Score")
    assert over_time.shape == (217, 4)
    current = orjson.loads(_get(f"{sample_server}/api/v1/readiness?code=KEN&fields=score"))["data"]
    assert over_time.loc["KEN", "2026-11"] == current["Composite Readiness Score"]


def test_pandas_history_long_csv_pivots_back_to_the_wide_answer(sample_server: str) -> None:
    query = "codes=KEN,BRA,CIV&years=2024:2026"
    long = pandas.read_csv(io.BytesIO(_get(f"{sample_server}/api/v1/history?{query}&shape=long&format=csv")))
    assert list(long.columns) == ["Country Code", "Country Name", "snapshot", "year", "date", "measure", "value",
                                  "snapshot_id", "notice"]
    wide = pandas.DataFrame(orjson.loads(_get(f"{sample_server}/api/v1/history?{query}"))["data"])
    pivoted = long.pivot(index=["Country Code", "snapshot"], columns="measure", values="value")
    expected = wide.set_index(["Country Code", "snapshot"])[list(pivoted.columns)]
    assert len(pivoted) == len(wide) == 9 and set(pivoted.columns) == set(wide.columns) - {
        "Country Code", "Country Name", "snapshot", "year", "date"}
    for (code, snapshot_id), values in expected.iterrows():
        for measure, want in values.items():
            assert _same(pivoted.loc[(code, snapshot_id), measure], None if pandas.isna(want) else want)
    assert (long["year"] == long["snapshot"].str[:4].astype(int)).all()
    catalogue = orjson.loads(_get(f"{sample_server}/api/v1/snapshots"))["data"]
    published = {entry["id"]: entry["published"] for entry in catalogue}
    assert (long["date"] == long["snapshot"].map(published)).all()
