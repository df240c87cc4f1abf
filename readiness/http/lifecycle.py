"""The process's life as the handlers and the hit lane see it: requests in flight, and the
drain at SIGTERM, during which every response closes its connection."""

from __future__ import annotations

import asyncio

from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPConnection

CLOSE = ("Connection", "close")
"""The header of every response sent while draining (``Lifecycle``)."""


def close_when_sent(connection: HTTPConnection | None, sent: asyncio.Future[None]) -> None:
    """Close ``connection`` once the response whose write is ``sent`` is written: the response
    said ``Connection: close``, and RFC 9112 has the server then close it."""
    if isinstance(connection, HTTP1Connection):
        sent.add_done_callback(lambda _: connection.close())


class Lifecycle:
    """Process state shared by the handlers, the hit lane and the shutdown sequence.

    ``draining`` is set when SIGTERM arrives: readyz then fails, and every response says
    ``Connection: close`` and closes its connection (``close_when_sent``), so keep-alive
    clients open new connections, which the load balancer sends elsewhere, instead of
    sending a request on a connection the process is about to drop. ``in_flight`` counts
    requests being handled, so shutdown can wait for them.
    """

    def __init__(self) -> None:
        self.draining = False
        self.in_flight = 0

    async def drained(self, deadline_seconds: float, step: float = 0.02) -> bool:
        """Wait until no request is in flight, at most ``deadline_seconds``; True if none is."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + deadline_seconds
        while self.in_flight and loop.time() < deadline:
            await asyncio.sleep(step)
        return not self.in_flight
