"""readiness/http/wire.py against the Tornado it is pinned with (requirements.lock): a response
written as prepared bytes is, byte for byte, the one ``HTTP1Connection.write_headers`` writes,
and ``prepared_connection`` hands out a connection exactly where Tornado adds nothing to a
head. These fail when a new Tornado writes heads otherwise or stops taking a pre-encoded head
through ``HTTP1Connection.write``: the hit lane's fast path must then be looked at again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tornado.httpserver import HTTPServer
from tornado.httputil import (
    HTTPConnection,
    HTTPHeaders,
    HTTPMessageDelegate,
    HTTPServerConnectionDelegate,
    HTTPServerRequest,
    RequestStartLine,
    ResponseStartLine,
)
from tornado.testing import bind_unused_port

from readiness.http.wire import head_bytes, prepared_connection
from tests.conftest import gen_test

BODY = b'{"data":"' + b"x" * 3000 + b'"}'


def response_head(status: int) -> tuple[ResponseStartLine, HTTPHeaders]:
    """A head like an answer's: a fixed Date, so that two writes of it are byte-identical."""
    headers = HTTPHeaders()
    if status == 200:
        headers["Content-Type"] = "application/json; charset=utf-8"
    headers["Access-Control-Allow-Origin"] = "*"
    headers["Date"] = "Fri, 27 Nov 2026 12:00:00 GMT"
    headers["Etag"] = '"abc"'
    if status == 200:
        headers["Content-Length"] = str(len(BODY))
    reason = "OK" if status == 200 else "Not Modified"
    return ResponseStartLine("", status, reason), headers


class Answering(HTTPMessageDelegate):
    """Answers ``/tornado/<status>`` through ``write_headers``, ``/prepared/<status>`` as
    prepared bytes (when ``prepared_connection`` allows; else 500), and records whether it allowed."""

    def __init__(self, connection: HTTPConnection, allowed: list[bool]) -> None:
        self.connection = connection
        self.allowed = allowed
        self.request: HTTPServerRequest | None = None

    def headers_received(self, start_line: RequestStartLine | ResponseStartLine, headers: HTTPHeaders) -> None:
        assert isinstance(start_line, RequestStartLine)
        self.request = HTTPServerRequest(connection=self.connection, start_line=start_line, headers=headers)

    def finish(self) -> None:
        request = self.request
        assert request is not None
        _, how, status = request.path.split("/")
        start_line, headers = response_head(int(status))
        body = b"" if request.method == "HEAD" or status == "304" else BODY
        prepared = prepared_connection(request)
        self.allowed.append(prepared is not None)
        if how == "prepared" and prepared is not None:
            prepared.write(head_bytes(start_line, headers) + body)
            prepared.finish()
            return
        if how == "prepared":
            start_line, headers, body = ResponseStartLine("", 500, "Not allowed"), HTTPHeaders(), b""
            headers["Content-Length"] = "0"
        self.connection.write_headers(start_line, headers, body)
        self.connection.finish()


class Server(HTTPServerConnectionDelegate):
    def __init__(self) -> None:
        self.allowed: list[bool] = []

    def start_request(self, server_conn: object, request_conn: HTTPConnection) -> HTTPMessageDelegate:
        return Answering(request_conn, self.allowed)


@pytest.fixture
def app() -> Server:
    """What ``http_server`` serves here: ``Server``, not the service."""
    return Server()


async def read_raw(reader: asyncio.StreamReader, head_request: bool = False) -> bytes:
    """One whole response, as raw bytes (framed by Content-Length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b": ")
        if name.lower() == b"content-length" and not head_request:
            length = int(value)
    return head + await reader.readexactly(length)


def request(method: str, path: str, *headers: str, version: str = "HTTP/1.1") -> bytes:
    return ("\r\n".join([f"{method} {path} {version}", "Host: localhost", *headers]) + "\r\n\r\n").encode()


@gen_test
@pytest.mark.parametrize(("method", "status"), [("GET", 200), ("HEAD", 200), ("GET", 304)])
async def test_prepared_bytes_are_what_write_headers_writes(http_server: Any, http_port: int, method: str,
                                                            status: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        responses = []
        for how in ("tornado", "prepared", "tornado", "prepared"):  # one keep-alive connection throughout
            writer.write(request(method, f"/{how}/{status}"))
            responses.append(await read_raw(reader, head_request=method == "HEAD"))
        # Pipelined: two requests sent at once, answered in order, the connection still usable.
        writer.write(request(method, f"/prepared/{status}") + request(method, f"/tornado/{status}"))
        responses += [await read_raw(reader, method == "HEAD"), await read_raw(reader, method == "HEAD")]
    finally:
        writer.close()
    assert len(set(responses)) == 1, responses
    start_line, headers = response_head(status)
    body = BODY if method == "GET" and status == 200 else b""
    assert responses[0] == head_bytes(start_line, headers) + body


@gen_test
@pytest.mark.parametrize(
    ("version", "connection", "allowed"),
    [
        ("HTTP/1.1", None, True),
        ("HTTP/1.1", "keep-alive", True),
        ("HTTP/1.1", "Keep-Alive, Upgrade", True),
        ("HTTP/1.1", "close", False),
        ("HTTP/1.1", "Close", False),
        ("HTTP/1.0", None, False),
        ("HTTP/1.0", "keep-alive", False),
    ],
)
async def test_prepared_connection_exactly_where_tornado_adds_nothing(
    http_server: Any, http_port: int, app: Server, version: str, connection: str | None, allowed: bool
) -> None:
    extra = [f"Connection: {connection}"] if connection else []
    reader, writer = await asyncio.open_connection("127.0.0.1", http_port)
    try:
        writer.write(request("GET", "/tornado/200", *extra, version=version))
        from_tornado = await read_raw(reader)
        writer.write(request("GET", "/tornado/200"))
        kept_open = await asyncio.wait_for(reader.read(1), timeout=5) != b""
    finally:
        writer.close()
    start_line, headers = response_head(200)
    assert app.allowed[0] is allowed
    # Allowed exactly where Tornado wrote the prepared bytes (it added nothing to the head) and
    # kept the connection open, as it does after a prepared response.
    assert (from_tornado == head_bytes(start_line, headers) + BODY and kept_open) is allowed


@gen_test
async def test_no_prepared_connection_on_a_server_without_keep_alive() -> None:
    sock, port = bind_unused_port()
    server_delegate = Server()
    server = HTTPServer(server_delegate, no_keep_alive=True)
    server.add_sockets([sock])
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(request("GET", "/tornado/200"))
            response = await read_raw(reader)
        finally:
            writer.close()
    finally:
        server.stop()
    assert server_delegate.allowed == [False]
    assert b"\r\nConnection: close\r\n" in response  # what Tornado added, which prepared bytes lack
