"""A response written as prepared bytes: the one place that writes past Tornado's
``HTTP1Connection.write_headers``.

``write_headers`` formats, encodes and checks every header line of every response, and joins
the head and the body into one new bytes object: for a cached answer, whose head changes once
a second (its ``Date``), that is work done again for nothing, and a copy of the body for every
response (docs/PERFORMANCE.md#the-hit-lane-written-as-prepared-bytes-2026-11-27). The hit lane
instead writes the response as the bytes ``head_bytes`` prepared (``KeptHeads.wire`` keeps
them for the second), through ``HTTP1Connection.write``, which Tornado documents as accepting
"a pre-encoded header block" in place of ``write_headers`` (deprecated there, not removed).

What ``write_headers`` would have added is ours to add then: a ``Connection`` header (``close``
for a client that does not keep its connection alive, ``Keep-Alive`` for an HTTP/1.0 one that
does) and chunked framing (never: an answer has a ``Content-Length``, or is a 304 or a HEAD).
``prepared_connection`` hands out the connection only where nothing would be added: an HTTP/1.1
request on a keep-alive connection. Every other request is sent through ``write_headers``.
tests/test_wire.py fails if Tornado writes a head otherwise, or adds a header where this
module expects none.
"""

from __future__ import annotations

from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPHeaders, HTTPServerRequest, ResponseStartLine


def head_bytes(start_line: ResponseStartLine, headers: HTTPHeaders) -> bytes:
    """The head of a response as ``HTTP1Connection.write_headers`` writes it to a keep-alive
    HTTP/1.1 client: the status line, one ``Name: value`` line per header, a blank line.
    Raises ValueError for a CR or LF in a line, as Tornado does."""
    lines = [f"HTTP/1.1 {start_line.code} {start_line.reason}", *(f"{n}: {v}" for n, v in headers.get_all())]
    for line in lines:
        if "\r" in line or "\n" in line:
            raise ValueError(f"Illegal characters (CR or LF) in header: {line!r}")
    return "\r\n".join(lines).encode("latin1") + b"\r\n\r\n"


def prepared_connection(request: HTTPServerRequest) -> HTTP1Connection | None:
    """The connection to write ``request``'s response to as prepared bytes (``head_bytes``
    and the body, in one call) with ``HTTP1Connection.write``; None when ``write_headers`` would add to the
    head (HTTP/1.0, ``Connection: close``, a server without keep-alive) or the connection is
    not Tornado's HTTP/1.1 one: send that response with ``write_headers``."""
    connection = request.connection
    if type(connection) is not HTTP1Connection or connection.no_keep_alive or request.version != "HTTP/1.1":
        return None
    headers = request.headers
    if "Connection" in headers and headers["Connection"].lower() == "close":
        return None
    return connection
