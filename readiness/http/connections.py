"""The public listener: at most ``max_connections`` client connections, below the process's
descriptor limit, and an accept loop that neither spins nor floods the log when descriptors
run out.

Tornado's accept loop (``tornado.netutil.add_accept_handler``) lets ``EMFILE`` escape: the
listening socket stays readable, so the event loop calls it again at once, logging a
traceback each time, and no new client is served until an idle connection times out (with
700 idle connections under ``ulimit -n 512``: 446,592 traceback lines in two minutes). Here
the server never holds more connections than the cap; at the cap a new connection closes the
connection idle the longest (waiting for its next request), or, if every connection is in the
middle of a request, is closed at once. Should descriptors run out anyway (taken by something
else), the loop closes an idle connection or stops accepting for a moment, and says so at
most once every ``LOG_EVERY_SECONDS``.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import resource
import socket
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from tornado.httpserver import HTTPServer, _ProxyAdapter
from tornado.httputil import (
    HTTPConnection,
    HTTPHeaders,
    HTTPMessageDelegate,
    RequestStartLine,
    ResponseStartLine,
)
from tornado.ioloop import IOLoop
from tornado.netutil import _DEFAULT_BACKLOG

from readiness.http.clients import TrustedProxies

log = logging.getLogger("readiness.connections")

DESCRIPTOR_RESERVE = 64
"""Descriptors kept for everything but client connections: the two listeners, Redis' pool,
snapshot files read by worker threads, logs, the event loop's own."""

ACCEPT_PAUSE_SECONDS = 0.1
"""How long accepting stops when descriptors run out and no idle connection can be closed."""

LOG_EVERY_SECONDS = 10.0
"""At most one line per this many seconds for each kind of connection trouble."""

HTTPConnectionLike = Any
"""Tornado's HTTP1ServerConnection (it has a ``stream``); Tornado passes it as ``object``."""

_OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def connection_cap(configured: int) -> int:
    """``configured``, lowered to ``DESCRIPTOR_RESERVE`` below the soft open-file limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - DESCRIPTOR_RESERVE))


def bound_unsent(connection: socket.socket, unsent_bytes: int) -> None:
    """Let ``connection`` queue at most about ``unsent_bytes`` in the kernel that it has not
    sent yet (TCP_NOTSENT_LOWAT): writes wait in the process (a view of the cached answer,
    never a copy) while the client does not read, instead of megabytes of kernel memory
    (docs/OPERATIONS.md#slow-readers). What is in flight is not bounded, so the send buffer
    still grows for a client that reads: a fixed SO_SNDBUF of 64 KiB held a 64 KiB loopback
    segment at a time, and every answer over it waited for delayed ACKs.

    A socket that refuses it (not TCP: a Unix socket in the tests) keeps the kernel's
    behaviour: never a reason to drop a client, nor to let an exception out of the accept loop.
    """
    with contextlib.suppress(OSError):
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NOTSENT_LOWAT, unsent_bytes)


class Throttled:
    """A warning logged at most once every ``seconds``, with how often it was suppressed."""

    def __init__(self, logger: logging.Logger, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.seconds = seconds
        self.clock = clock
        self._next = -float("inf")
        self._suppressed = 0

    def warning(self, message: str) -> None:
        """Log ``message`` unless one went out less than ``seconds`` ago; count it either way."""
        now = self.clock()
        if now < self._next:
            self._suppressed += 1
            return
        self.logger.warning(message, extra={"fields": {"suppressed": self._suppressed}})
        self._suppressed = 0
        self._next = now + self.seconds


class LimitedHTTPServer(HTTPServer):
    """Tornado's HTTPServer with a cap on open connections and an accept loop of its own."""

    def initialize(
        self,
        *args: Any,
        max_connections: int = 10_000,
        proxies: TrustedProxies | None = None,
        unsent_bytes: int = 0,
        **kwargs: Any,
    ) -> None:
        """HTTPServer's arguments (never ``xheaders``: ``proxies`` decides, peer by peer), the
        cap (``connection_cap`` keeps it under the limit), the ``proxies`` whose X-Real-IP /
        X-Forwarded-For name the client (None: no peer's; ``readiness/http/clients.py``) and
        the most bytes each connection queues in the kernel unsent (``bound_unsent``; 0: no
        bound, and the kernel's send buffer grows to megabytes for a client that does not read)."""
        super().initialize(*args, **kwargs)
        self.max_connections = max_connections
        self.proxies = proxies
        self.unsent_bytes = unsent_bytes
        self.open_connections = 0
        self.closed_idle = 0
        """Idle connections closed to make room for a new one."""
        self.refused = 0
        """New connections closed at once: at the cap, with none idle."""
        self._idle: OrderedDict[HTTPConnectionLike, None] = OrderedDict()
        self._at_cap = Throttled(log, LOG_EVERY_SECONDS)
        self._refusing = Throttled(log, LOG_EVERY_SECONDS)
        self._exhausted = Throttled(log, LOG_EVERY_SECONDS)

    def add_sockets(self, sockets: Iterable[socket.socket]) -> None:
        """Accept on ``sockets`` with ``_accept_handler`` instead of Tornado's.

        TCPServer.stop() removes the handlers registered in ``_handlers``; we register ours there.
        """
        for sock in sockets:
            self._sockets[sock.fileno()] = sock
            self._handlers[sock.fileno()] = self._accept_handler(sock)

    def start_request(self, server_conn: object, request_conn: HTTPConnection) -> HTTPMessageDelegate:
        """A connection waits for its next request: idle, and the first to close at the cap.
        From a trusted proxy, the request's ``remote_ip`` becomes the client's address its
        headers give (Tornado's ``xheaders``, applied to that peer's requests alone)."""
        self._idle[server_conn] = None
        self._idle.move_to_end(server_conn)
        delegate = super().start_request(server_conn, request_conn)
        if self.proxies is not None and self.proxies.trusts(request_conn.context.remote_ip):  # type: ignore[attr-defined]
            delegate = _ProxyAdapter(delegate, request_conn)
        return _Busy(self._idle, server_conn, delegate)

    def on_close(self, server_conn: object) -> None:
        """A connection ended (closed by either side): no longer open or idle."""
        self._idle.pop(server_conn, None)
        self.open_connections -= 1
        super().on_close(server_conn)

    def _accept_handler(self, sock: socket.socket) -> Callable[[], None]:
        """Register an accept loop for ``sock`` on the current IOLoop; return its remover.

        As ``tornado.netutil.add_accept_handler``, plus: running out of descriptors closes an
        idle connection or pauses accepting, instead of raising on every loop iteration.
        """
        loop = IOLoop.current()
        removed = False
        paused = False

        def accept(fd: socket.socket, events: int) -> None:
            nonlocal paused
            for _ in range(_DEFAULT_BACKLOG):  # then let other work run, as Tornado does
                if removed or paused:
                    return
                try:
                    connection, address = sock.accept()
                except BlockingIOError:
                    return
                except ConnectionAbortedError:
                    continue
                except OSError as error:
                    if error.errno not in _OUT_OF_DESCRIPTORS:
                        raise
                    self._exhausted.warning(
                        f"out of file descriptors ({error.strerror}) with {self.open_connections} "
                        "connections open: closing an idle one or pausing"
                    )
                    if not self._close_oldest_idle():
                        paused = True
                        loop.remove_handler(sock)
                        loop.call_later(ACCEPT_PAUSE_SECONDS, resume)
                    continue
                self._admit(connection, address)

        def resume() -> None:
            nonlocal paused
            paused = False
            if not removed:
                loop.add_handler(sock, accept, IOLoop.READ)

        def remove() -> None:
            nonlocal removed
            removed = True
            if not paused:
                loop.remove_handler(sock)

        loop.add_handler(sock, accept, IOLoop.READ)
        return remove

    def _admit(self, connection: socket.socket, address: Any) -> None:
        if self.open_connections >= self.max_connections:
            if self._close_oldest_idle():
                self._at_cap.warning(
                    f"connection cap of {self.max_connections} reached: closing the longest-idle connections"
                )
            else:
                self.refused += 1
                connection.close()
                self._refusing.warning(
                    f"connection cap of {self.max_connections} reached and none idle: refusing new connections"
                )
                return
        self.open_connections += 1
        if self.unsent_bytes:
            bound_unsent(connection, self.unsent_bytes)
        self._handle_connection(connection, address)

    def _close_oldest_idle(self) -> bool:
        """Close the connection idle the longest; False if none is idle."""
        if not self._idle:
            return False
        oldest, _ = self._idle.popitem(last=False)
        oldest.stream.close()  # its descriptor is free now; on_close follows
        self.closed_idle += 1
        return True


class _Busy(HTTPMessageDelegate):
    """Marks a connection busy once its request's headers are in; forwards everything."""

    def __init__(
        self, idle: OrderedDict[HTTPConnectionLike, None], server_conn: object, delegate: HTTPMessageDelegate
    ) -> None:
        self.idle = idle
        self.server_conn = server_conn
        self.delegate = delegate

    def headers_received(self, start_line: RequestStartLine | ResponseStartLine, headers: HTTPHeaders) -> Any:
        self.idle.pop(self.server_conn, None)
        return self.delegate.headers_received(start_line, headers)

    def data_received(self, chunk: bytes) -> Any:
        return self.delegate.data_received(chunk)

    def finish(self) -> None:
        self.delegate.finish()

    def on_connection_close(self) -> None:
        self.delegate.on_connection_close()
