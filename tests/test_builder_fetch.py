"""builder.fetch and builder.worldbank: the raw tables from the World Bank API, or a clear failure.

Against the recorded answers of tests/fixtures/worldbank/ served by a fake API on 127.0.0.1
(tests/worldbank_fake.py); nothing here reaches the network.
"""

from __future__ import annotations

import datetime
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder import fetch as fetch_module
from builder.__main__ import main
from builder.fetch import COUNTRY, fetch_raw
from builder.inputs import read_raw
from builder.method import INDICATORS
from builder.progress import Fetch
from builder.rawtables import FcvError, read_fcv, write_tables
from builder.worldbank import MAX_PER_PAGE, SourceError, SourceSettings
from tests.worldbank_fake import HANG, RECORDED, FakeWorldBank, _answer, serve

NOW = datetime.datetime(2026, 11, 5, 6, 0, tzinfo=datetime.UTC)
FCV = {"ETH": "Conflict"}
POPULATION_PATH = "/v2/country/all/indicator/SP.POP.TOTL"


@pytest.fixture
def api() -> Iterator[FakeWorldBank]:
    yield from serve()


def settings(api: FakeWorldBank, **changes: float) -> SourceSettings:
    """Fast settings for tests: small pages (so answers are paged), no backoff wait."""
    values = {"timeout": 5.0, "retries": 2, "backoff": 0.0, **changes}
    return SourceSettings(api.base_url, values["timeout"], int(values["retries"]),
                          values["backoff"], per_page=10)


def fcv_file(tmp_path: Path) -> Path:
    path = tmp_path / "fcv.csv"
    path.write_text("iso3,fcv_type\nETH,Conflict\nSSD,Conflict\n")
    return path


# --- the recorded answers ---------------------------------------------------------------------

def test_fetch_recorded_api_gives_valid_raw_tables(api: FakeWorldBank, tmp_path: Path) -> None:
    fetched = fetch_raw(settings(api), 2026, FCV, NOW)
    raw = read_raw(write_tables(fetched.tables, tmp_path / "raw"))
    assert [e.code for e in raw.economies] == ["DEU", "ETH", "KEN", "TUV", "UGA", "VEN"]
    kenya = next(e for e in raw.economies if e.code == "KEN")
    assert (kenya.name, kenya.region, kenya.income, kenya.population) == (
        "Kenya", "Sub-Saharan Africa", "Lower middle income", 55_100_000)
    venezuela = next(e for e in raw.economies if e.code == "VEN")
    assert venezuela.income is None and venezuela.region == "Latin America & Caribbean"
    ethiopia = next(e for e in raw.economies if e.code == "ETH")
    assert (ethiopia.fcv_status, ethiopia.fcv_type) == (True, "Conflict")
    assert fetched.skipped == ("GIB",), "no population value in the window"
    population = raw.observations("KEN", "SP.POP.TOTL")
    assert [(o.year, o.value, o.source) for o in population] == [
        (2023, 55_099_000, "World Bank WDI"), (2024, 55_100_000, "World Bank WDI")]
    assert raw.observations("DEU", "GE.EST")[-1].source == "World Bank WGI"
    assert raw.observations("DEU", "SE.ADT.LITR.ZS") == (), "null values are gaps"


def test_fetch_leaves_out_aggregates_and_their_values(api: FakeWorldBank, tmp_path: Path) -> None:
    out = write_tables(fetch_raw(settings(api), 2026, FCV, NOW).tables, tmp_path / "raw")
    text = (out / "countries.csv").read_text() + (out / "indicators.csv").read_text()
    assert "WLD" not in text and "SSF" not in text and "Aggregates" not in text


def test_fetch_follows_every_page_and_asks_governance_from_wgi(api: FakeWorldBank) -> None:
    fetch_raw(settings(api), 2026, FCV, NOW)
    population = [url for url in api.requests if url.startswith(POPULATION_PATH + "?")]
    assert sorted(re.findall(r"[?&]page=(\d+)", url)[0] for url in population) == ["1", "2"]
    assert all("date=2017%3A2026" in url and "source=2" in url for url in population)
    governance = [url for url in api.requests if "/indicator/GE.EST?" in url]
    assert governance and all("source=3" in url for url in governance)


def test_fetch_records_provenance(api: FakeWorldBank, tmp_path: Path) -> None:
    out = write_tables(fetch_raw(settings(api), 2026, FCV, NOW).tables, tmp_path / "raw")
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["url"] == api.base_url and provenance["fetched"] == "2026-11-05T06:00:00Z"
    assert provenance["window"] == [2017, 2026]
    assert provenance["indicators"]["GE.EST"] == {
        "source_id": "3", "source": "World Bank WGI", "lastupdated": "2025-09-26", "values": 12}
    assert provenance["indicators"]["SP.POP.TOTL"]["lastupdated"] == "2025-10-07"
    assert "lending_type" in (out / "countries.csv").read_text().splitlines()[0]


# --- failures: retried, then a clear error and nothing written -----------------------------------

def test_fetch_retries_5xx_then_succeeds(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [503, 502]
    fetched = fetch_raw(settings(api), 2026, FCV, NOW)
    assert len(fetched.tables.economies) == 6
    assert api.seen(POPULATION_PATH) == 4, "two failures, then pages 1 and 2"


def test_fetch_retries_a_timeout_then_succeeds(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [HANG]
    fetched = fetch_raw(settings(api, timeout=0.5), 2026, FCV, NOW)
    assert len(fetched.tables.economies) == 6


def test_fetch_gives_up_after_the_retries_on_5xx(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [503] * 5
    with pytest.raises(SourceError, match=r"SP.POP.TOTL page 1: HTTP 503 .* after 2 retries"):
        fetch_raw(settings(api), 2026, FCV, NOW)
    assert api.seen(POPULATION_PATH) == 3, "one try and two retries, no more"


def test_fetch_gives_up_after_the_retries_on_timeouts(api: FakeWorldBank) -> None:
    api.faults["/v2/country"] += [HANG, HANG]
    with pytest.raises(SourceError, match=r"country page 1: no answer .* after 1 retries"):
        fetch_raw(settings(api, timeout=0.3, retries=1), 2026, FCV, NOW)


@pytest.mark.parametrize(("body", "message"), [
    (b"<html><body>Oops</body></html>", "not JSON"),
    (b'[{"message":[{"id":"120","key":"Invalid value","value":"The provided parameter value is '
     b'not valid"}]}]', "refused the request: 120 Invalid value"),
    (b'[{"page":2,"pages":2,"per_page":10,"total":99},[]]', "disagrees with page 1"),
    (b'[{"page":1,"pages":2,"per_page":10,"total":18},[]]', "answered page 1 instead"),
    (b'{"page":2}', "not the API's [metadata, rows] answer"),
])
def test_fetch_refuses_a_bad_page(api: FakeWorldBank, body: bytes, message: str) -> None:
    # The first page is good; the second is not what the API answers.
    api.edit = lambda name, raw: body if name == "SP.POP.TOTL-p2.json" else raw
    with pytest.raises(SourceError, match=re.escape(message)):
        fetch_raw(settings(api), 2026, FCV, NOW)


def test_fetch_refuses_rows_that_do_not_add_up_to_total(api: FakeWorldBank) -> None:
    api.edit = lambda name, raw: raw.replace(b'"total": 18', b'"total": 19') if name.startswith(
        "EG.ELC") else raw
    with pytest.raises(SourceError, match="18 rows over 2 page"):
        fetch_raw(settings(api), 2026, FCV, NOW)


def test_fetch_refuses_an_unknown_region(api: FakeWorldBank) -> None:
    api.edit = lambda name, raw: raw.replace(b'"id": "ECS"', b'"id": "XYZ"')
    with pytest.raises(SourceError, match="DEU has region 'XYZ'"):
        fetch_raw(settings(api), 2026, FCV, NOW)


def test_fetch_without_wgi_source_would_fail(
    api: FakeWorldBank, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the source parameter is for: the fake, like the API, refuses GE.EST from source 2.
    monkeypatch.setattr(fetch_module, "GOVERNANCE_SOURCE", {})
    with pytest.raises(SourceError, match="175 Invalid format: The indicator was not found"):
        fetch_raw(settings(api), 2026, FCV, NOW)


def test_fetch_series_without_any_value(api: FakeWorldBank, tmp_path: Path) -> None:
    # The API's answer for no rows: "pages": 0, "total": 0 and null instead of the rows.
    empty = b'[{"page":1,"pages":0,"per_page":10,"total":0,"sourceid":"2","lastupdated":"2025-10-07"},null]'
    api.edit = lambda name, raw: empty if name.startswith("SE.ADT.LITR.ZS") else raw
    fetched = fetch_raw(settings(api), 2026, FCV, NOW)
    raw = read_raw(write_tables(fetched.tables, tmp_path / "raw"))
    assert all(not raw.observations(e.code, "SE.ADT.LITR.ZS") for e in raw.economies)
    assert fetched.tables.provenance["indicators"]["SE.ADT.LITR.ZS"]["values"] == 0  # type: ignore[index,call-overload]


def test_cli_fetch_writes_tables(api: FakeWorldBank, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["fetch", "--out", str(tmp_path / "raw"), "--fcv", str(fcv_file(tmp_path)),
                   "--year", "2026", "--source-url", api.base_url, "--per-page", "10",
                   "--backoff", "0"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.out.startswith(f"fetched {tmp_path / 'raw'}: 6 economies, ")
    assert "left out (no population in the window): GIB" in captured.err
    assert "not economies of the source: SSD" in captured.err
    assert len(read_raw(tmp_path / "raw").economies) == 6


def test_cli_fetch_failure_exits_1_and_keeps_the_previous_tables(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "raw"
    out.mkdir()
    (out / "countries.csv").write_text("previous\n")
    api.faults[POPULATION_PATH] += [500] * 3
    status = main(["fetch", "--out", str(out), "--fcv", str(fcv_file(tmp_path)),
                   "--source-url", api.base_url, "--per-page", "10", "--backoff", "0",
                   "--retries", "2"])
    assert status == 1
    assert "SP.POP.TOTL page 1: HTTP 500" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fcv.csv", "raw"], "no leftovers"
    assert [p.name for p in out.iterdir()] == ["countries.csv"]
    assert (out / "countries.csv").read_text() == "previous\n"


# --- pages, parallel series, retries and their waits (issue 23) -------------------------------------

def test_the_fake_pages_as_recorded(api: FakeWorldBank) -> None:
    # Paged by 10 as recorded, the fake serves the recorded files byte for byte.
    for path in sorted(RECORDED.glob("*-p*.json")):
        stem, page = path.stem.rsplit("-p", 1)
        source = "3" if stem.endswith(".EST") else "2"
        url = (f"/v2/country?format=json&per_page=50&page={page}" if stem == "country" else
               f"/v2/country/all/indicator/{stem}?format=json&per_page=10&page={page}&source={source}")
        assert _answer(api, url) == (200, path.read_bytes()), path.name


def test_fetch_asks_the_largest_page_the_api_serves(api: FakeWorldBank) -> None:
    default = SourceSettings(api.base_url)
    assert default.per_page == MAX_PER_PAGE == 32_500 and default.parallel == 4
    fetch_raw(default, 2026, FCV, NOW)
    assert len(api.requests) == 1 + len(INDICATORS), "one page per series and for the economy list"
    assert all("per_page=32500" in url and "page=1" in url for url in api.requests)


def test_fetch_runs_a_few_series_at_a_time(api: FakeWorldBank) -> None:
    api.latency = 0.1  # long enough for the requests in flight to overlap
    fetch_raw(SourceSettings(api.base_url, parallel=3), 2026, FCV, NOW)
    assert api.most_in_flight == 3, "three at a time: never more, and not one by one"
    api.most_in_flight, api.latency = 0, 0.01
    fetch_raw(SourceSettings(api.base_url, parallel=1), 2026, FCV, NOW)
    assert api.most_in_flight == 1


class Heard:
    """What a fetch tells as it goes: the series fetched, and each line about a wait with the
    (monotonic) time it was said."""

    def __init__(self) -> None:
        self.series: list[Fetch] = []
        self.lines: list[tuple[float, str]] = []
        self._guard = threading.Lock()

    def fetched(self, fetch: Fetch) -> None:
        with self._guard:
            self.series.append(fetch)

    def waiting(self, line: str) -> None:
        with self._guard:
            self.lines.append((time.monotonic(), line))

    def said(self, start: str = "") -> list[str]:
        """The lines about waits that start with ``start``, in order."""
        return [line for _, line in self.lines if line.startswith(start)]


def test_fetch_reports_each_series_as_it_completes(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [503]
    told = Heard()
    fetch_raw(settings(api), 2026, FCV, NOW, heard=told)
    heard = told.series
    assert sorted(f.label for f in heard) == sorted([COUNTRY, *(i.code for i in INDICATORS)])
    by_label = {f.label: f for f in heard}
    country = by_label[COUNTRY]
    assert (country.rows, country.pages, country.retries) == (9, 1, 0) and country.seconds >= 0
    assert by_label["SP.POP.TOTL"].pages == 2 and by_label["SP.POP.TOTL"].rows == 18
    assert by_label["SP.POP.TOTL"].retries == 1
    assert sum(f.retries for f in heard) == 1


def test_fetch_failure_stops_the_requests_not_yet_started(api: FakeWorldBank) -> None:
    api.faults["/v2/country"] += [404]  # not retried
    with pytest.raises(SourceError, match="country page 1: HTTP 404"):
        fetch_raw(SourceSettings(api.base_url, parallel=1), 2026, FCV, NOW)
    assert len(api.requests) <= 2, "the economy list, and at most the one series already started"


def test_fetch_says_each_retry_its_cause_and_wait(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [503, (502, {"Retry-After": "7"})]
    api.faults["/v2/country"] += [HANG]
    told, waits = Heard(), []
    # 1.5 s: every answer but the hung one must come within it, even on a loaded machine (an
    # extra timeout would be an extra retry and wait).
    source = SourceSettings(api.base_url, timeout=1.5, retries=2, backoff=1.5, per_page=10)
    fetched = fetch_raw(source, 2026, FCV, NOW, heard=told, wait=waits.append)
    assert told.said("SP.POP.TOTL") == [
        "SP.POP.TOTL page 1: try 1 of 3 failed (HTTP 503); retry 1 of 2 in 1.5 s",
        "SP.POP.TOTL page 1: try 2 of 3 failed (HTTP 502); retry 2 of 2 in 7 s",
    ]
    assert told.said("country") == [
        "country page 1: try 1 of 3 failed (no answer within the timeout); retry 1 of 2 in 1.5 s"]
    assert sorted(waits) == [1.5, 1.5, 7], "each wait said is the wait spent"
    assert fetched.requests == 1 + len(INDICATORS) + len(INDICATORS) + 3, (
        "a page each (the series in two pages of 10), and the three retries")


def test_fetch_says_a_refused_connection(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    told = Heard()
    source = SourceSettings(f"http://127.0.0.1:{port}/v2", timeout=1, retries=1, backoff=0, parallel=1)
    with pytest.raises(SourceError, match=r"^country page 1: no answer from .* after 1 retries"):
        fetch_raw(source, 2026, FCV, NOW, heard=told)
    assert told.said() == [
        "country page 1: try 1 of 2 failed (connection refused or unreachable); retry 1 of 1 in 0 s"]


def test_fetch_of_a_source_down_says_every_series_then_stops_the_others(api: FakeWorldBank) -> None:
    # The source answers 503 to everything: four series are under way at once, each says its
    # retries; the first to run out stops the other three at their next wait.
    for path in ("/v2/country", *(f"/v2/country/all/indicator/{i.code}" for i in INDICATORS)):
        api.faults[path] += [503] * 5
    told = Heard()
    source = SourceSettings(api.base_url, timeout=5, retries=2, backoff=0.2, per_page=10, parallel=4)
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"page 1: HTTP 503 from .* after 2 retries") as failed:
        fetch_raw(source, 2026, FCV, NOW, heard=told)
    assert time.monotonic() - started < 5, "the others stopped at their next wait, not after their retries"
    first_four = [COUNTRY, *(i.code for i in INDICATORS[:3])]
    for label in first_four:
        assert f"{label} page 1: try 1 of 3 failed (HTTP 503); retry 1 of 2 in 0.2 s" in told.said(label), told.lines
    (stopping,) = told.said("stopping: ")
    failing = failed.value.args[0].split(" page 1:")[0].rsplit("/", 1)[-1]
    assert stopping.startswith(f"stopping: {failing} failed; waiting for "), stopping
    assert "request(s) under way to end (at their timeout, 5 s, at most): " in stopping
    assert len(api.requests) < 3 * (1 + len(INDICATORS)), "the series not yet started were never asked"


def test_fetch_says_a_hung_request_and_a_long_wait_every_few_seconds(api: FakeWorldBank) -> None:
    # The population series hangs for its whole try (1.5 s), then is asked to wait 1 s.
    api.faults[POPULATION_PATH] += [HANG, (503, {"Retry-After": "1"})]
    told = Heard()
    source = SourceSettings(api.base_url, timeout=1.5, retries=2, backoff=0, per_page=10, every=0.3)
    fetched = fetch_raw(source, 2026, FCV, NOW, heard=told)
    assert len(fetched.tables.economies) == 6
    lines = [(at, line) for at, line in told.lines if line.startswith("SP.POP.TOTL page 1: ")]
    said = [re.fullmatch(r"SP.POP.TOTL page 1: no answer yet, \d+\.\d s into try (\d) of 3 \(timeout 1.5 s\)", line)
            for _, line in lines if "no answer yet" in line]
    assert all(said), said
    # The hung try is said at least three times. A loaded machine may take over 0.3 s to answer
    # the last try too, and that is said the same way (seen once under six workers).
    assert sum(match[1] == "1" for match in said if match) >= 3, lines
    assert "SP.POP.TOTL page 1: try 1 of 3 failed (no answer within the timeout); retry 1 of 2 in 0 s" in (
        line for _, line in lines)
    waiting = [line for _, line in lines if re.fullmatch(r"SP.POP.TOTL page 1: retry 2 of 2 in 0\.\d s", line)]
    assert len(waiting) >= 2, lines
    gaps = [later - earlier for (earlier, _), (later, _) in zip(lines, lines[1:], strict=False)]
    assert max(gaps) < 0.3 + 0.4, f"a line at least every 0.3 s (give or take a busy machine): {gaps}"


def test_retry_waits_are_the_documented_ones(api: FakeWorldBank) -> None:
    assert SourceSettings().waits == (2, 4, 8, 16), "docs/PUBLISHING.md: 2, 4, 8, 16 s"
    assert SourceSettings(retries=8, backoff=10).waits[-1] == 120, "no wait is longer than MAX_WAIT"
    api.faults[POPULATION_PATH] += [503, 502, 504, 500]
    waits: list[float] = []
    source = SourceSettings(api.base_url, timeout=5, retries=4, backoff=2, per_page=10)
    fetch_raw(source, 2026, FCV, NOW, wait=waits.append)
    assert waits == [2, 4, 8, 16], "the first retry waits too"


def test_retry_waits_after_timeouts_and_a_retry_after(api: FakeWorldBank) -> None:
    api.faults["/v2/country"] += [HANG, (503, {"Retry-After": "7"}), HANG]
    waits: list[float] = []
    # 1.5 s: a slower answer under load would be one more timeout, one more wait (seen: 0.3 s).
    source = SourceSettings(api.base_url, timeout=1.5, retries=3, backoff=1.5, per_page=10)
    fetch_raw(source, 2026, FCV, NOW, wait=waits.append)
    assert waits == [1.5, 7, 6], "backoff, then what Retry-After asks, then backoff again"


def test_retry_waits_run_out_then_the_fetch_fails(api: FakeWorldBank) -> None:
    api.faults[POPULATION_PATH] += [503] * 3
    waits: list[float] = []
    with pytest.raises(SourceError, match="HTTP 503 .* after 2 retries"):
        fetch_raw(SourceSettings(api.base_url, retries=2, backoff=3, per_page=10), 2026, FCV, NOW,
                  wait=waits.append)
    assert waits == [3, 6]


@pytest.mark.parametrize(("flag", "value"), [("--per-page", "32501"), ("--per-page", "0"), ("--parallel", "9")])
def test_cli_refuses_pages_and_parallelism_the_api_does_not_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fetch", "--out", str(tmp_path / "raw"), "--fcv", str(fcv_file(tmp_path)), flag, value])
    assert exited.value.code == 2 and "is not between" in capsys.readouterr().err


def test_cli_fetch_says_each_series_as_it_completes(
    api: FakeWorldBank, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["fetch", "--out", str(tmp_path / "raw"), "--fcv", str(fcv_file(tmp_path)),
                   "--year", "2026", "--source-url", api.base_url, "--backoff", "0"])
    assert status == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0][9:] == (f"fetch: the economy list and 23 series from {api.base_url}, 4 at a time: at least "
                            "24 requests (a page each of up to 32500 rows; each try of a request up to 30 s, "
                            "retried up to 4 times)")
    assert out.startswith(f"fetched {tmp_path / 'raw'}: 6 economies, ") and out.endswith(" values; 24 requests\n")
    series = [line for line in lines if re.fullmatch(r"\d\d:\d\d:\d\d fetch: \S+: \d+ rows, 1 page, "
                                                     r"\d+\.\d\d s, 0 retries \(\d+/24\)", line)]
    assert len(series) == 24, lines
    assert re.fullmatch(r"\d\d:\d\d:\d\d fetch: done in \d+\.\d s", lines[-3]), lines


# --- the FCV list ---------------------------------------------------------------------------------

def test_read_fcv_accepts_a_previous_countries_table() -> None:
    listed = read_fcv(Path(__file__).resolve().parent.parent / "data" / "raw" / "countries.csv")
    assert listed["AFG"] == "Conflict" and "ABW" not in listed


def test_read_fcv_without_the_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fcv.csv"
    path.write_text("code,type\nETH,Conflict\n")
    with pytest.raises(FcvError, match="needs the columns iso3 and fcv_type"):
        read_fcv(path)
