"""A fake World Bank Indicators API on 127.0.0.1: the recorded answers of
tests/fixtures/worldbank/, or a whole world made from raw tables, with scripted failures.

It answers like the real API: ``/v2/country?page=N&per_page=P`` and
``/v2/country/all/indicator/<code>?source=S&date=A:B&page=N&per_page=P`` give the rows paged
by the ``per_page`` asked for (50 when not asked, as the API does), the data rows limited to
the ``date`` window; an unknown indicator, or a governance series asked without
``source=3``, gives the API's error message (status 200, as the API does). ``faults``
scripts what the next requests of a path get instead: an HTTP status (with headers, e.g. a
``Retry-After``), a hang (until the test ends: the client's timeout fires), or a body.
``latency`` holds every answer that long before it is sent, as a distant API does; requests
are served in threads, so requests in parallel wait in parallel.

Two worlds: ``recorded()`` (six economies, tests/fixtures/worldbank/record.py) and
``from_raw(DIR)``, the builder's raw tables served as the API would (``data/raw``: the 217
economies of the sample, whose values are synthetic). Run on its own to time a refresh
against it (docs/PERFORMANCE.md#the-monthly-refresh-against-a-distant-api):

    .venv/bin/python -m tests.worldbank_fake --raw data/raw --latency 0.05 --port 8765
"""

from __future__ import annotations

import argparse
import csv
import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from builder.fetch import INCOME_GROUPS, REGIONS
from builder.method import INDICATORS

RECORDED = Path(__file__).resolve().parent / "fixtures" / "worldbank"
WGI = {"GE.EST", "RQ.EST", "CC.EST", "VA.EST"}
NOT_FOUND = (b'[{"message":[{"id":"175","key":"Invalid format","value":"The indicator was not '
             b'found. It may have been deleted or archived."}]}]')
HANG = -1
"""A fault: hold the request without answering until the server stops."""
DEFAULT_PER_PAGE = 50
"""What the API pages by when ``per_page`` is not asked for."""
LASTUPDATED = {"2": "2025-10-07", "3": "2025-09-26"}

Row = dict[str, object]
Fault = int | tuple[int, dict[str, str]] | bytes


@dataclass
class World:
    """What the fake serves: the economy list's rows, and per series its rows (every economy
    and aggregate, every year, newest first as the API lists them) and its metadata
    (``sourceid``, ``lastupdated``). ``per_page_text``: the economy list writes ``per_page``
    as a string, as the API does."""

    countries: list[Row]
    series: dict[str, list[Row]]
    meta: dict[str, dict[str, object]]
    per_page_text: bool = True

    def values(self, change: Callable[[str, str, int, object], object]) -> World:
        """A copy with every data row's value replaced by ``change(series, iso3, year, value)``."""
        series = {
            code: [{**row, "value": change(code, str(row["countryiso3code"]), int(str(row["date"])), row["value"])}
                   for row in rows]
            for code, rows in self.series.items()
        }
        return World(list(self.countries), series, dict(self.meta), self.per_page_text)


def recorded() -> World:
    """The recorded answers: each stem's pages joined into its rows."""
    countries = _joined("country")[1]
    series: dict[str, list[Row]] = {}
    meta: dict[str, dict[str, object]] = {}
    for path in sorted(RECORDED.glob("*-p1.json")):
        stem = path.name.removesuffix("-p1.json")
        if stem == "country":
            continue
        header, rows = _joined(stem)
        series[stem] = rows
        meta[stem] = {key: header[key] for key in ("sourceid", "lastupdated")}
    return World(countries, series, meta)


def _joined(stem: str) -> tuple[dict[str, object], list[Row]]:
    header: dict[str, object] = {}
    rows: list[Row] = []
    number = 1
    while (path := RECORDED / f"{stem}-p{number}.json").is_file():
        page = json.loads(path.read_text())
        header = header or page[0]
        rows += page[1] or []
        number += 1
    return header, rows


def from_raw(directory: Path, years: range = range(2015, 2027)) -> World:
    """The builder's raw tables (``countries.csv``, ``indicators.csv``) as the API serves them:
    every economy and two aggregates, every series over ``years`` (null where no value)."""
    region_ids = {name: key for key, name in REGIONS.items()}
    income_ids = {name: key for key, name in INCOME_GROUPS.items() if name is not None}
    with (directory / "countries.csv").open(newline="", encoding="utf-8") as handle:
        economies = list(csv.DictReader(handle))
    countries: list[Row] = [
        {"id": e["iso3"], "iso2Code": e["iso3"][:2], "name": e["name"],
         "region": {"id": region_ids[e["region"]], "iso2code": "", "value": e["region"]},
         "adminregion": {"id": "", "iso2code": "", "value": ""},
         "incomeLevel": {"id": income_ids.get(e["income_group"], "INX"), "iso2code": "",
                         "value": e["income_group"] or "Not classified"},
         "lendingType": {"id": "IBD", "iso2code": "XF", "value": "IBRD"},
         "capitalCity": "", "longitude": "", "latitude": ""}
        for e in economies
    ]
    aggregates = (("SSF", "Sub-Saharan Africa"), ("WLD", "World"))
    countries += [
        {"id": code, "iso2Code": code[:2], "name": name,
         "region": {"id": "NA", "iso2code": "NA", "value": "Aggregates"},
         "adminregion": {"id": "", "iso2code": "", "value": ""},
         "incomeLevel": {"id": "NA", "iso2code": "NA", "value": "Aggregates"},
         "lendingType": {"id": "", "iso2code": "", "value": "Aggregates"},
         "capitalCity": "", "longitude": "", "latitude": ""}
        for code, name in aggregates
    ]
    countries.sort(key=lambda row: str(row["id"]))
    values: dict[tuple[str, str, int], float | int] = {}
    with (directory / "indicators.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            text = row["value"]
            values[(row["indicator"], row["iso3"], int(row["year"]))] = (
                int(text) if text.lstrip("-").isdigit() else float(text))
    series: dict[str, list[Row]] = {}
    meta: dict[str, dict[str, object]] = {}
    for indicator in INDICATORS:
        source = "3" if indicator.code in WGI else "2"
        meta[indicator.code] = {"sourceid": source, "lastupdated": LASTUPDATED[source]}
        series[indicator.code] = [
            {"indicator": {"id": indicator.code, "value": indicator.name},
             "country": {"id": str(country["iso2Code"]), "value": country["name"]},
             "countryiso3code": country["id"], "date": str(year),
             "value": values.get((indicator.code, str(country["id"]), year)),
             "unit": "", "obs_status": "", "decimal": 1}
            for country in countries
            for year in reversed(years)
        ]
    return World(countries, series, meta)


@dataclass
class FakeWorldBank:
    """The running fake: its base URL, the requests it saw, and faults to serve next.

    ``faults[path]`` is a list consumed one request at a time: an int status (503), a status
    and headers (``(503, {"Retry-After": "3"})``), HANG, or bytes served as a 200 body.
    ``most_in_flight``: the most requests it was answering at once. ``edit(name, body)`` may
    rewrite any answer before it is served; ``name`` is the page's name,
    ``<series>-p<N>.json`` or ``country-p<N>.json`` (the recorded file's name, when paged by
    10 as recorded). ``world`` may be replaced at any time: the next requests see the new one.
    """

    base_url: str
    world: World = field(default_factory=recorded)
    latency: float = 0.0
    requests: list[str] = field(default_factory=list)
    faults: dict[str, list[Fault]] = field(default_factory=lambda: defaultdict(list))
    edit: Callable[[str, bytes], bytes] = lambda name, body: body
    stop: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    most_in_flight: int = 0
    guard: threading.Lock = field(default_factory=threading.Lock)

    def seen(self, path: str) -> int:
        """How many requests asked for ``path`` (any page)."""
        return sum(urlsplit(url).path == path for url in self.requests)


def page_body(header: dict[str, object], rows: list[Row]) -> bytes:
    """A page as the recorded files are written: the metadata, then one row a line."""
    lines = ",\n".join(json.dumps(row) for row in rows)
    return f"[{json.dumps(header)},\n[\n{lines}\n]]\n".encode()


def _answer(fake: FakeWorldBank, url: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    world = fake.world
    if query.get("format") != "json":
        return 200, NOT_FOUND
    try:
        page = int(query.get("page", "1"))
        per_page = int(query.get("per_page", str(DEFAULT_PER_PAGE)))
    except ValueError:
        return 200, NOT_FOUND
    if parts.path == "/v2/country":
        stem, rows, meta = "country", world.countries, {}
    elif parts.path.startswith("/v2/country/all/indicator/"):
        stem = parts.path.rsplit("/", 1)[-1]
        if (stem in WGI) != (query.get("source") == "3") or stem not in world.series:
            return 200, NOT_FOUND
        rows, meta = _dated(world.series[stem], query.get("date")), world.meta[stem]
    else:
        return 404, b"<html><body>Resource not found</body></html>"
    pages = max(1, -(-len(rows) // per_page))
    shown: object = str(per_page) if stem == "country" and world.per_page_text else per_page
    header = {"page": page, "pages": pages, "per_page": shown, "total": len(rows), **meta}
    body = page_body(header, rows[(page - 1) * per_page:page * per_page])
    return 200, fake.edit(f"{stem}-p{page}.json", body)


def _dated(rows: list[Row], window: str | None) -> list[Row]:
    """The rows of the years ``A:B`` (all without a window)."""
    if not window or ":" not in window:
        return rows
    first, last = (int(year) for year in window.split(":", 1))
    return [row for row in rows if first <= int(str(row["date"])) <= last]


def _handler(fake: FakeWorldBank) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            with fake.guard:
                fake.requests.append(self.path)
                fake.in_flight += 1
                fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
            self._answer()

        def _answer(self) -> None:
            # A request counts in flight until its answer is about to be written: counted down
            # after the write, the next request of a client that asks one at a time could
            # arrive first and count as a second one.
            try:
                if fake.latency:
                    time.sleep(fake.latency)
            finally:
                with fake.guard:
                    fake.in_flight -= 1
            faults = fake.faults.get(urlsplit(self.path).path)
            fault = faults.pop(0) if faults else None
            if fault == HANG:
                fake.stop.wait(60)
                return
            headers: dict[str, str] = {}
            if isinstance(fault, tuple):
                fault, headers = fault
            if isinstance(fault, int):
                status, body = fault, b"<html><body>Service Unavailable</body></html>"
            elif isinstance(fault, bytes):
                status, body = 200, fault
            else:
                status, body = _answer(fake, self.path)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json;charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def serve(world: World | None = None, latency: float = 0.0, port: int = 0) -> Iterator[FakeWorldBank]:
    """Run the fake until the generator is closed (a pytest fixture's body)."""
    fake = FakeWorldBank("", world or recorded(), latency)
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(fake))
    server.daemon_threads = True
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v2"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.stop.set()
        server.shutdown()
        server.server_close()


def main() -> None:
    """Serve a world on 127.0.0.1 until interrupted; print its base URL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", type=Path, help="raw tables to serve (default: the recorded answers)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0, help="port (default: any free one)")
    args = parser.parse_args()
    running = serve(from_raw(args.raw) if args.raw else None, args.latency, args.port)
    fake = next(running)
    print(fake.base_url, flush=True)
    try:
        fake.stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        running.close()


if __name__ == "__main__":
    main()
