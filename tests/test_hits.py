"""The hit lane (readiness/http/hits.py), over real sockets: a tier-1 hit it sends is the response
the handler sends for the same request, byte for byte apart from ``Date``; everything it
does not answer still reaches the handler."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from typing import Any

import orjson
import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
from tornado.iostream import IOStream
from tornado.web import Application

from loaders import Snapshot
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.query import Query
from readiness.http.application import to_origin_form
from readiness.http.base import MAX_URL_BYTES
from readiness.http.representation import KeptHeads
from tests.conftest import access_lines, gen_test, scrape

V1 = "/api/v1/readiness"
LEGACY = "/api/readiness"


class Wire:
    """One raw HTTP/1.x response: its status line, header lines in order and body."""

    def __init__(self, status: bytes, lines: list[bytes], body: bytes) -> None:
        self.status = status
        self.lines = lines
        self.body = body

    @property
    def headers(self) -> dict[str, str]:
        return {name.decode(): value.decode() for name, _, value in (line.partition(b": ") for line in self.lines)}

    def without_date(self) -> list[bytes]:
        return [line for line in self.lines if not line.startswith(b"Date: ")]

    def names(self) -> list[bytes]:
        return [line.partition(b": ")[0] for line in self.lines]


async def exchange(port: int, request: bytes, head: bool = False) -> Wire:
    """Send one raw request and read its response (framed by Content-Length, as ours are)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        raw_head = await reader.readuntil(b"\r\n\r\n")
        status, *lines = raw_head[:-4].split(b"\r\n")
        length = 0
        for line in lines:
            name, _, value = line.partition(b": ")
            if name.lower() == b"content-length" and not head:
                length = int(value)
        return Wire(status, lines, await reader.readexactly(length))
    finally:
        writer.close()
        await writer.wait_closed()


def request_bytes(method: str, target: str, *headers: str, version: str = "HTTP/1.1") -> bytes:
    lines = [f"{method} {target} {version}", "Host: localhost", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def etag_of(snapshot: Snapshot, params: dict[str, str], path: str = V1, gzipped: bool = False) -> str:
    """The ETag of the answer ``path`` gives: v1's body carries the sample's notice, the legacy one's not."""
    route = routes.LEGACY if path == LEGACY else routes.V1
    answer = compute(snapshot, Query.parse(params, route.grammar), route)
    return answer.gzip_etag if gzipped else answer.etag


CASES: dict[str, tuple[str, str, dict[str, str], list[str]]] = {
    # name: (method, query, params, extra request headers); "{etag}" / "{gzip_etag}" filled in
    "one country": ("GET", "?code=KEN", {"code": "KEN"}, []),
    "global, gzip": ("GET", "", {}, ["Accept-Encoding: gzip"]),
    "global, identity": ("GET", "", {}, ["Accept-Encoding: identity"]),
    "region alias, sorted": (
        "GET", "?region=ssa&sort=score&order=desc", {"region": "SSA", "sort": "score", "order": "desc"}, []
    ),
    "HEAD": ("HEAD", "?code=KEN", {"code": "KEN"}, []),
    "HEAD, gzip": ("HEAD", "", {}, ["Accept-Encoding: gzip"]),
    "304": ("GET", "?code=KEN", {"code": "KEN"}, ["If-None-Match: {etag}"]),
    "304, gzip": ("GET", "", {}, ["Accept-Encoding: gzip", "If-None-Match: {gzip_etag}"]),
    "304 for the other representation": ("GET", "", {}, ["If-None-Match: {gzip_etag}"]),
    "If-None-Match that does not match": ("GET", "?code=KEN", {"code": "KEN"}, ['If-None-Match: "stale"']),
    "CSV": ("GET", "?format=csv&region=LAC", {"format": "csv", "region": "LAC"}, []),
    "CSV, gzip, limit": ("GET", "?format=CSV&limit=50", {"format": "csv", "limit": "50"}, ["Accept-Encoding: gzip"]),
    "CSV, HEAD": ("HEAD", "?format=csv&code=KEN", {"format": "csv", "code": "KEN"}, []),
    "CSV, 304": ("GET", "?format=csv", {"format": "csv"}, ["If-None-Match: {etag}"]),
    "filters": ("GET", "?income=lic&fcv=1&sort=score", {"income": "LIC", "fcv": "1", "sort": "score"}, []),
    "If-Modified-Since, publication date": (
        "GET", "?code=KEN", {"code": "KEN"}, ["If-Modified-Since: Thu, 05 Nov 2026 00:00:00 GMT"]
    ),
    "If-Modified-Since, later": (
        "GET", "?format=csv", {"format": "csv"}, ["If-Modified-Since: Fri, 01 Jan 2027 00:00:00 GMT"]
    ),
    "If-Modified-Since, earlier": (
        "GET", "?code=KEN", {"code": "KEN"}, ["If-Modified-Since: Wed, 04 Nov 2026 23:59:59 GMT"]
    ),
    "If-Modified-Since, not a date": ("GET", "?code=KEN", {"code": "KEN"}, ["If-Modified-Since: yesterday"]),
    "If-None-Match wins over If-Modified-Since": (
        "GET", "?code=KEN", {"code": "KEN"},
        ['If-None-Match: "stale"', "If-Modified-Since: Fri, 01 Jan 2027 00:00:00 GMT"],
    ),
}
"""The status each case must get (200 when not listed)."""
STATUSES = {
    "304": 304, "304, gzip": 304, "304 for the other representation": 304, "CSV, 304": 304,
    "If-Modified-Since, publication date": 304, "If-Modified-Since, later": 304,
}


@gen_test
@pytest.mark.parametrize("path", [V1, LEGACY])
@pytest.mark.parametrize("case", CASES)
async def test_hit_lane_sends_what_the_handler_sends(
    http_server: Any, http_port: int, handlers_built: list[str], sample_current: Snapshot, path: str, case: str
) -> None:
    method, query, params, headers = CASES[case]
    filled = [
        header.format(etag=etag_of(sample_current, params, path),
                      gzip_etag=etag_of(sample_current, params, path, gzipped=True))
        for header in headers
    ]
    request = request_bytes(method, path + query, *filled)

    from_handler = await exchange(http_port, request, head=method == "HEAD")  # a miss: computed
    assert handlers_built == [path]
    from_lane = await exchange(http_port, request, head=method == "HEAD")  # a tier-1 hit
    assert handlers_built == [path], "the hit was not answered by the lane"

    assert from_lane.status == from_handler.status
    assert from_lane.status.split(b" ")[1] == str(STATUSES.get(case, 200)).encode()
    assert from_lane.without_date() == from_handler.without_date()
    assert from_lane.names() == from_handler.names()  # Date included: one function builds both
    assert from_lane.body == from_handler.body
    # The lane dates its answer now, not with a stored Date: seconds-resolution, and room to spare.
    assert parsedate_to_datetime(from_lane.headers["Date"]).timestamp() == pytest.approx(time.time(), abs=10)
    if method == "HEAD":
        assert int(from_lane.headers["Content-Length"]) > 0 and from_lane.body == b""
    if from_lane.status.endswith(b" 304 Not Modified"):
        assert "Content-Type" not in from_lane.headers and "Content-Length" not in from_lane.headers
        assert "Content-Disposition" not in from_lane.headers
    # The answer's own headers, sent alike by both.
    assert from_lane.headers["X-Readiness-Snapshot"] == sample_current.id
    assert from_lane.headers["Last-Modified"] == "Thu, 05 Nov 2026 00:00:00 GMT"
    assert int(from_lane.headers["X-Total-Count"]) >= 1


@gen_test
@pytest.mark.parametrize(
    ("version", "connection", "expected"),
    [("HTTP/1.0", "keep-alive", "Keep-Alive"), ("HTTP/1.1", "close", "close"), ("HTTP/1.0", None, None),
     ("HTTP/1.1", "keep-alive", None), ("HTTP/1.1", None, None)],
)
async def test_hit_lane_keeps_tornados_connection_handling(
    http_server: Any, http_port: int, version: str, connection: str | None, expected: str | None
) -> None:
    extra = [f"Connection: {connection}"] if connection else []
    request = request_bytes("GET", V1 + "?code=KEN", *extra, version=version)
    await exchange(http_port, request)
    hit = await exchange(http_port, request)
    assert hit.status.split(b" ")[1] == b"200"
    assert hit.headers.get("Connection") == expected


@gen_test
async def test_hit_lane_requests_are_counted_and_logged(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str]
) -> None:
    request = request_bytes("GET", V1 + "?code=KEN")
    await exchange(http_port, request)
    await exchange(http_port, request)
    await exchange(http_port, request_bytes("GET", LEGACY + "?code=KEN"))
    assert handlers_built == [V1, LEGACY]  # each route has its own key: the legacy one missed
    metrics = scrape(app)
    assert 'readiness_http_requests_total{method="GET",route="v1",status="200"} 2.0' in metrics
    lines = access_lines(app)
    assert [(line["path"], line["status"], line["cache"]) for line in lines] == [
        (V1, 200, "miss"),
        (V1, 200, "hit"),
        (LEGACY, 200, "miss"),
    ]


@gen_test
async def test_hit_lane_leaves_over_long_urls_to_the_handler(http_server: Any, http_port: int) -> None:
    await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))
    # Names beginning with _ are ignored, so this is the cached KEN answer's key: only the length differs.
    response = await exchange(http_port, request_bytes("GET", V1 + "?code=KEN&_pad=" + "a" * 9000))
    assert response.status.split(b" ")[1] == b"414"
    assert b"8192" in response.body


@gen_test
async def test_hit_lane_leaves_bad_input_archives_and_misses_to_the_handler(
    http_server: Any, http_port: int, handlers_built: list[str]
) -> None:
    for target in (V1, V1 + "?year=2024", V1 + "?sort=bogus", V1 + "?year=2024", V1 + "?sort=bogus"):
        await exchange(http_port, request_bytes("GET", target))
    assert handlers_built == [V1] * 5
    await exchange(http_port, request_bytes("GET", V1))
    assert len(handlers_built) == 5


@pytest.fixture
def no_snapshot(app: Application) -> Iterator[None]:
    service = app.lane.service
    current, service.store.current = service.store.current, None
    yield
    service.store.current = current


@gen_test
async def test_hit_lane_without_a_snapshot_leaves_the_503_to_the_handler(
    http_server: Any, http_port: int, no_snapshot: None
) -> None:
    response = await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))
    assert response.status.split(b" ")[1] == b"503"


@gen_test
@pytest.mark.parametrize(
    ("accept", "gzipped"),
    [("*;q=0, gzip", True), ("*;q=1, gzip;q=0", False), ("gzip;level=1;q=0", False), ("gzip;q=nan", False)],
)
async def test_accept_encoding_negotiated_alike_by_handler_and_lane(
    http_server: Any, http_port: int, handlers_built: list[str], accept: str, gzipped: bool
) -> None:
    request = request_bytes("GET", V1, f"Accept-Encoding: {accept}")
    for _ in range(2):  # the handler (a miss), then the lane (a hit)
        response = await exchange(http_port, request)
        assert (response.headers.get("Content-Encoding") == "gzip") is gzipped
        assert response.body.startswith(b"\x1f\x8b") is gzipped
    assert handlers_built == [V1]


async def read_response(reader: asyncio.StreamReader) -> Wire:
    """One response from an open connection (framed by Content-Length, as ours are)."""
    raw_head = await reader.readuntil(b"\r\n\r\n")
    status, *lines = raw_head[:-4].split(b"\r\n")
    length = 0
    for line in lines:
        name, _, value = line.partition(b": ")
        if name.lower() == b"content-length":
            length = int(value)
    return Wire(status, lines, await reader.readexactly(length))


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """Whether the server closes the connection (end of file or reset) within a generous wait."""
    try:
        return await asyncio.wait_for(reader.read(1), timeout=10) == b""
    except ConnectionResetError:
        return True


def metric_line(text: str, name: str) -> str:
    return next((line for line in text.splitlines() if line.startswith(name)), "")


@gen_test
async def test_hit_lane_failure_before_sending_handler_answers_logged_counted(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str],
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    request = request_bytes("GET", V1 + "?code=KEN")
    expected = await exchange(http_port, request)  # the handler computes; tier 1 has it now

    def broken(*args: Any) -> Any:
        raise RuntimeError("representation bug")

    monkeypatch.setattr("readiness.http.hits.represent_request", broken)
    with caplog.at_level(logging.ERROR, logger="readiness.hits"):
        response = await exchange(http_port, request)
    assert response.status.split(b" ")[1] == b"200" and response.body == expected.body
    assert handlers_built == [V1, V1]  # the lane failed: the handler answered again
    failures = [record for record in caplog.records if record.name == "readiness.hits"]
    assert len(failures) == 1 and "before_sending" in failures[0].getMessage()
    assert failures[0].exc_info is not None and "representation bug" in str(failures[0].exc_info[1])
    metrics = scrape(app)
    assert 'readiness_hit_lane_failures_total{stage="before_sending"} 1.0' in metrics
    assert 'readiness_http_requests_total{method="GET",route="v1",status="200"} 2.0' in metrics
    lines = [line for line in access_lines(app) if line["path"] == V1]
    assert [(line["status"], line["cache"]) for line in lines] == [(200, "miss"), (200, "hit")]


@gen_test
async def test_hit_lane_and_handler_both_failing_500_envelope(
    http_server: Any, http_port: int, app: Application, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    request = request_bytes("GET", V1 + "?code=KEN")
    await exchange(http_port, request)

    def broken(*args: Any) -> Any:
        raise RuntimeError("representation bug")

    monkeypatch.setattr("readiness.http.hits.represent_request", broken)
    monkeypatch.setattr("readiness.http.base.represent_request", broken)
    with caplog.at_level(logging.ERROR):
        response = await exchange(http_port, request)
    assert response.status.split(b" ")[1] == b"500"
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert orjson.loads(response.body) == {
        "apiVersion": "1", "error": "Internal error. It has been logged; please try again later."
    }
    assert {record.name for record in caplog.records if record.exc_info} == {"readiness.hits", "tornado.application"}
    metrics = scrape(app)
    assert 'readiness_http_requests_total{method="GET",route="v1",status="500"} 1.0' in metrics
    assert [(line["status"], line["level"]) for line in access_lines(app) if line["path"] == V1][-1] == (500, "error")


class FailingLog:
    def record(self, *args: Any) -> None:
        raise RuntimeError("metrics bug")


@gen_test
async def test_hit_lane_failure_while_sending_closes_the_connection_logged_counted(
    http_server: Any, http_port: int, app: Application, caplog: pytest.LogCaptureFixture
) -> None:
    request = request_bytes("GET", V1 + "?code=KEN")
    expected = await exchange(http_port, request)
    app.lane.log = FailingLog()
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        with caplog.at_level(logging.ERROR, logger="readiness.hits"):
            writer.write(request)
            response = await read_response(reader)
            assert await closed_by_server(reader), "the connection was left open in an unknown state"
    finally:
        writer.close()
    assert response.body == expected.body  # sent before the failure
    lane = [record.getMessage() for record in caplog.records if record.name == "readiness.hits"]
    assert ["while_sending" in message for message in lane] == [True]
    metrics = scrape(app)
    assert 'readiness_hit_lane_failures_total{stage="while_sending"} 1.0' in metrics


@gen_test
@pytest.mark.parametrize(
    ("target", "built"),  # DataHandlers built in all: 1 when the lane answers
    [(V1 + "?code=KEN", 1), (V1 + "?code=BRA", 2), (V1 + "?sort=bogus", 2), ("/no/such/path", 1)],
)
async def test_while_draining_every_answer_says_connection_close_and_closes(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str], target: str, built: int
) -> None:
    await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))  # tier 1 has KEN
    app.settings["lifecycle"].draining = True
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        writer.write(request_bytes("GET", target))  # HTTP/1.1, keep-alive by default
        response = await read_response(reader)
        assert response.headers.get("Connection") == "close"
        assert await closed_by_server(reader)
    finally:
        writer.close()
    assert len(handlers_built) == built


@gen_test
async def test_a_kept_head_never_carries_another_responses_connection_header(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One second throughout, so every hit below sends the head the lane kept (KeptHeads), unless
    # a Connection header given to one response made the lane forget it.
    monkeypatch.setattr(app.lane.dates, "at", lambda now: "Wed, 25 Nov 2026 12:00:00 GMT")
    await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))  # a miss: tier 1 has KEN now
    lifecycle = app.settings["lifecycle"]
    for extra, version, draining, expected in [
        ([], "HTTP/1.1", False, None),
        (["Connection: close"], "HTTP/1.1", False, "close"),  # Tornado adds it
        ([], "HTTP/1.1", False, None),
        (["Connection: keep-alive"], "HTTP/1.0", False, "Keep-Alive"),  # Tornado adds it
        ([], "HTTP/1.1", False, None),
        ([], "HTTP/1.1", True, "close"),  # the lane adds it
        ([], "HTTP/1.1", False, None),
    ]:
        lifecycle.draining = draining
        hit = await exchange(http_port, request_bytes("GET", V1 + "?code=KEN", *extra, version=version))
        assert hit.status.split(b" ")[1] == b"200"
        assert hit.headers.get("Connection") == expected, (extra, version, draining)
    assert handlers_built == [V1]  # every one a hit of the lane


@gen_test
@pytest.mark.parametrize(
    ("extra", "version", "draining", "expected"),
    [
        (["Connection: close"], "HTTP/1.1", False, "close"),  # Tornado adds it to the head it is given
        (["Connection: keep-alive"], "HTTP/1.0", False, "Keep-Alive"),  # Tornado adds it too
        ([], "HTTP/1.1", True, "close"),  # the lane adds it while draining
    ],
)
async def test_a_head_first_sent_with_a_connection_header_leaves_keep_alive_clients_open(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str], monkeypatch: pytest.MonkeyPatch,
    extra: list[str], version: str, draining: bool, expected: str,
) -> None:
    # The head KeptHeads keeps is first built for a response given a Connection header, before
    # any keep-alive hit kept its bytes: if that response's header went into the shared head,
    # every keep-alive client of the answer that second would be told to close. One fixed
    # Date throughout, so every response below is within "the same second".
    monkeypatch.setattr(app.lane.dates, "at", lambda now: "Wed, 25 Nov 2026 12:00:00 GMT")
    await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))  # a miss: the handler; tier 1 has KEN
    lifecycle = app.settings["lifecycle"]
    lifecycle.draining = draining
    first = await exchange(http_port, request_bytes("GET", V1 + "?code=KEN", *extra, version=version))
    lifecycle.draining = False
    assert first.headers.get("Connection") == expected
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        for _ in range(2):  # a keep-alive client, twice on one connection: it stays open
            writer.write(request_bytes("GET", V1 + "?code=KEN"))
            hit = await read_response(reader)
            assert hit.status.split(b" ")[1] == b"200"
            assert hit.headers.get("Connection") is None, "a keep-alive client got another response's Connection"
            assert hit.body == first.body
    finally:
        writer.close()
    assert handlers_built == [V1]  # every response but the first a hit of the lane


@gen_test
async def test_a_body_over_the_kept_size_is_sent_alike(
    http_server: Any, http_port: int, handlers_built: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(KeptHeads, "WHOLE_BYTES", 100)  # so KEN's 8 KB answer is joined for each response
    request = request_bytes("GET", V1 + "?code=KEN")
    from_handler = await exchange(http_port, request)
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        for _ in range(2):  # the lane, twice on one connection: the second kept for the second
            writer.write(request)
            from_lane = await read_response(reader)
            assert from_lane.without_date() == from_handler.without_date() and from_lane.body == from_handler.body
    finally:
        writer.close()
    assert handlers_built == [V1]


@gen_test
async def test_the_handler_sends_a_large_body_as_a_view_of_the_answer(
    http_server: Any, http_port: int, handlers_built: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every reader of one computation is answered by the handler: a copy of the body each would
    # stay in the process while they do not read (docs/OPERATIONS.md#slow-readers).
    monkeypatch.setattr(KeptHeads, "WHOLE_BYTES", 100)
    monkeypatch.setattr(KeptHeads, "LEAD_BYTES", 100)
    written: list[Any] = []
    write = IOStream.write

    def recording(stream: IOStream, data: Any) -> Any:
        written.append(data)
        return write(stream, data)

    monkeypatch.setattr(IOStream, "write", recording)
    request = request_bytes("GET", V1 + "?code=KEN")
    from_handler = await exchange(http_port, request)
    assert handlers_built == [V1]
    views = [data for data in written if isinstance(data, memoryview)]
    assert len(views) == 1 and len(views[0]) == len(from_handler.body) - 100
    assert bytes(views[0]) == from_handler.body[100:]
    written.clear()
    from_lane = await exchange(http_port, request)
    assert handlers_built == [V1]
    assert from_lane.without_date() == from_handler.without_date() and from_lane.body == from_handler.body
    lane_view = next(data for data in written if isinstance(data, memoryview))
    assert views[0].obj is lane_view.obj, "the handler wrote a copy, not the cached answer's body"


@gen_test
async def test_not_draining_answers_keep_the_connection_open(http_server: Any, http_port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        for _ in range(2):  # the handler, then the lane, on one connection
            writer.write(request_bytes("GET", V1 + "?code=KEN"))
            response = await read_response(reader)
            assert response.status.split(b" ")[1] == b"200" and "Connection" not in response.headers
    finally:
        writer.close()


def padded(target: str, length: int) -> str:
    """``target`` with an ignored parameter making the whole request URL ``length`` bytes."""
    padding = length - len(target) - len("&_pad=")
    return f"{target}&_pad={'a' * padding}"


@gen_test
async def test_url_limit_boundary_in_the_lane(http_server: Any, http_port: int, handlers_built: list[str]) -> None:
    await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))
    longest = padded(V1 + "?code=KEN", MAX_URL_BYTES)
    assert len(longest) == 8192
    assert (await exchange(http_port, request_bytes("GET", longest))).status.split(b" ")[1] == b"200"
    assert handlers_built == [V1], "the lane did not answer a URL of exactly the limit"
    refused = await exchange(http_port, request_bytes("GET", padded(V1 + "?code=KEN", MAX_URL_BYTES + 1)))
    assert refused.status.split(b" ")[1] == b"414"
    assert handlers_built == [V1, V1]  # the lane left it to the handler, which refused it


@gen_test
async def test_url_limit_boundary_in_the_handler(http_server: Any, http_port: int, handlers_built: list[str]) -> None:
    accepted = await exchange(http_port, request_bytes("GET", padded(V1 + "?code=BRA", MAX_URL_BYTES)))
    assert accepted.status.split(b" ")[1] == b"200"
    refused = await exchange(http_port, request_bytes("GET", padded(V1 + "?code=ARG", MAX_URL_BYTES + 1)))
    assert refused.status.split(b" ")[1] == b"414" and b"8192" in refused.body
    assert handlers_built == [V1, V1]  # both misses: the handler decided both


@gen_test
@pytest.mark.parametrize(
    "target",
    [
        "http://localhost" + V1 + "?code=KEN",
        "HTTPS://Example.COM:8443" + V1 + "?code=KEN",
        "http://user@host" + V1 + "?code=KEN",
    ],
)
async def test_absolute_form_target_served_like_origin_form(
    http_server: Any, http_port: int, app: Application, handlers_built: list[str], target: str
) -> None:
    # RFC 9112 (section 3.2.2): a server must accept the absolute form (proxies send it).
    expected = await exchange(http_port, request_bytes("GET", V1 + "?code=KEN"))  # the handler
    response = await exchange(http_port, request_bytes("GET", target))  # a hit: the lane
    assert response.status.split(b" ")[1] == b"200" and response.body == expected.body
    assert handlers_built == [V1]
    assert [line["path"] for line in access_lines(app)] == [V1, V1]


@gen_test
async def test_absolute_form_target_reaches_the_handler_and_its_errors(http_server: Any, http_port: int) -> None:
    miss = await exchange(http_port, request_bytes("GET", "http://localhost" + LEGACY + "?code=BRA"))
    assert miss.status.split(b" ")[1] == b"200" and miss.headers["Deprecation"] == "@1798761600"
    unknown = await exchange(http_port, request_bytes("GET", "http://localhost/no/such?x=1"))
    assert unknown.status.split(b" ")[1] == b"404"
    assert orjson.loads(unknown.body)["error"].startswith("Not found: '/no/such'.")
    bare = await exchange(http_port, request_bytes("GET", "http://localhost"))  # "/": the landing page
    assert bare.status.split(b" ")[1] == b"200" and b"<h1>Readiness Index</h1>" in bare.body


@pytest.mark.parametrize(
    ("target", "uri", "host"),
    [
        ("http://Example.com:8080/api/v1/readiness?code=KEN", "/api/v1/readiness?code=KEN", "Example.com:8080"),
        ("https://user:pw@example.com/a/b", "/a/b", "example.com"),
        ("http://example.com", "/", "example.com"),
        ("http://example.com?code=KEN", "/?code=KEN", "example.com"),  # no path: "/" (RFC 9112)
        ("/api/v1/readiness?code=KEN", "/api/v1/readiness?code=KEN", "from-header"),  # origin form
        ("*", "*", "from-header"),  # asterisk form: left alone
        ("ftp://example.com/a", "ftp://example.com/a", "from-header"),
    ],
)
def test_to_origin_form(target: str, uri: str, host: str) -> None:
    request = HTTPServerRequest(
        start_line=RequestStartLine("GET", target, "HTTP/1.1"), headers=HTTPHeaders({"Host": "from-header"})
    )
    to_origin_form(request)
    assert (request.uri, request.path) == (uri, uri.partition("?")[0])
    assert (request.host, request.host_name) == (host, host.lower().partition(":")[0])
