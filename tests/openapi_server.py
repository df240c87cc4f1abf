"""A real server for tests that need a socket: the app on a free 127.0.0.1 port in a thread.

Schemathesis sends its requests with ``requests``, so it needs a listening server, not
pytest-tornado's in-loop client. The server runs its own event loop in a daemon thread and
is stopped, connections closed, when the context exits.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application


@contextmanager
def serving(app: Application) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 until the block ends; yield its base URL (no trailing /)."""
    sockets = bind_sockets(0, "127.0.0.1")
    port = sockets[0].getsockname()[1]
    started = threading.Event()
    state: dict[str, object] = {}

    async def run() -> None:
        stop = asyncio.Event()
        server = HTTPServer(app)
        server.add_sockets(sockets)
        state["loop"], state["stop"] = asyncio.get_running_loop(), stop
        started.set()
        await stop.wait()
        server.stop()
        await server.close_all_connections()

    thread = threading.Thread(target=asyncio.run, args=(run(),), name="openapi-server", daemon=True)
    thread.start()
    if not started.wait(10):
        raise RuntimeError("the test server did not start within 10 s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop, stop = state["loop"], state["stop"]
        assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(stop, asyncio.Event)
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
