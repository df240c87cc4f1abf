"""Graceful shutdown of a real server process (docs/OPERATIONS.md#stopping-a-pod): on SIGTERM /readyz
fails at once, the listener stays open for the shutdown delay, then closes, and requests in
flight get the drain time to finish; the process then exits 0.

A request is held in flight deterministically by an archive whose country file is a FIFO:
loading that archive blocks in a worker thread until the test writes the file's bytes.
"""

from __future__ import annotations

import errno
import http.client
import os
import shutil
import signal
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from loaders import load_snapshot
from readiness.domain import routes
from readiness.domain.compute import compute
from readiness.domain.query import Query
from tests.conftest import SAMPLE
from tests.processes import Start, fetch, launch, until

ARCHIVE_PATH = "/api/v1/readiness?year=2024"
HELD_FILE = Path("snapshots/2024-12/countries/KEN.json")


class Fifo:
    """A country file replaced by a FIFO; the archive's loader blocks on it until ``feed``."""

    def __init__(self, path: Path, content: bytes) -> None:
        self.path = path
        self.content = content
        self._writer: int | None = None

    def wait_for_reader(self, seconds: float = 10) -> None:
        """Return once the loader has the FIFO open: the request that needs it is in flight."""
        until(self._open_writer, seconds, f"a reader opens {self.path}")

    def feed(self) -> None:
        """Write the original file's bytes and close: the loader reads them and goes on."""
        assert self._writer is not None, "no reader yet"
        os.set_blocking(self._writer, True)
        os.write(self._writer, self.content)  # a few KB: fits in the pipe buffer at once
        self.close()

    def close(self) -> None:
        """Close our end (the reader sees end of file); also unblocks a reader still opening."""
        if self._writer is None:
            self._open_writer()
        if self._writer is not None:
            os.close(self._writer)
            self._writer = None

    def _open_writer(self) -> bool:
        try:
            self._writer = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno == errno.ENXIO:  # nobody has it open for reading yet
                return False
            raise
        return True


@pytest.fixture
def fifo_data(tmp_path: Path) -> Iterator[tuple[Path, Fifo]]:
    """A copy of the sample whose 2024 archive blocks on a FIFO; the FIFO is unblocked at the end."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    held = data / HELD_FILE
    content = held.read_bytes()  # the manifest's checksum is of these bytes: feed exactly them
    held.unlink()
    os.mkfifo(held)
    fifo = Fifo(held, content)
    yield data, fifo
    fifo.close()


def archive_reference() -> bytes:
    return compute(load_snapshot(SAMPLE / "snapshots" / "2024-12"), Query.parse({"year": "2024"}), routes.V1).body


def connection_refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def test_server_sigterm_with_request_in_flight_drains_it_and_exits_0(
    start: Start, fifo_data: tuple[Path, Fifo], tmp_path: Path,
) -> None:
    data, fifo = fifo_data
    delay, drain = 4, 10  # the checks below must fit in the delay, with room on a slow machine
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_SHUTDOWN_DELAY_SECONDS": str(delay),
        "READINESS_DRAIN_SECONDS": str(drain),
    })
    with ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(fetch, server.port, ARCHIVE_PATH, 30)
        fifo.wait_for_reader()
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)

        not_ready = until(lambda: fetch(server.port, "/readyz")[0] == 503, delay / 2, "/readyz fails after SIGTERM")
        # Still listening during the delay: load balancers may send more before they notice.
        assert fetch(server.port, "/healthz")[0] == 200
        assert fetch(server.port, "/api/v1/readiness?code=KEN")[0] == 200
        assert time.monotonic() - signalled < delay, "checks too slow to be inside the delay"

        until(lambda: connection_refused(server.port), delay + 2, "the listener closes after the delay")
        closed = time.monotonic() - signalled
        assert closed >= delay
        assert server.process.poll() is None, "exited with a request in flight"
        assert not in_flight.done()

        fifo.feed()
        assert in_flight.result(timeout=10) == (200, archive_reference())
    assert server.process.wait(timeout=5) == 0
    stopped = time.monotonic() - signalled
    print(f"/readyz 503 after {not_ready:.3f} s, listener closed after {closed:.2f} s, exit after {stopped:.2f} s")
    assert stopped < delay + drain


def test_server_drain_deadline_passed_exits_despite_stuck_request(
    start: Start, fifo_data: tuple[Path, Fifo], tmp_path: Path,
) -> None:
    data, fifo = fifo_data
    drain = 1
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_SHUTDOWN_DELAY_SECONDS": "0",
        "READINESS_DRAIN_SECONDS": str(drain),
    })
    with ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(fetch, server.port, ARCHIVE_PATH, 30)
        fifo.wait_for_reader()
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            status = server.process.wait(timeout=drain + 3)
            stopped = time.monotonic() - signalled
        finally:
            fifo.close()  # unblock the stuck read, so the process and the request can end
        assert in_flight.result(timeout=10)[0] == 0, "the request was cut off, not answered"
    assert status == 0
    assert stopped < drain + 3


def keep_alive_get(sock: socket.socket, path: str) -> http.client.HTTPResponse:
    """Send one GET on an open keep-alive connection and read its whole response."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    response = http.client.HTTPResponse(sock)
    response.begin()
    response.read()
    return response


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_server_draining_tells_keep_alive_clients_connection_close_and_closes(start: Start, tmp_path: Path) -> None:
    # A long delay: the listener stays open for every check; the fixture stops the process.
    server = launch(start, tmp_path, {"READINESS_SHUTDOWN_DELAY_SECONDS": "60"})
    lane, handler = (socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2))
    with lane, handler:
        for _ in range(2):  # a miss (the handler), then a tier-1 hit (the lane), one connection
            before = keep_alive_get(lane, "/api/v1/readiness?code=KEN")
            assert before.status == 200 and before.getheader("Connection") is None
        assert keep_alive_get(handler, "/healthz").getheader("Connection") is None

        server.process.send_signal(signal.SIGTERM)
        until(lambda: fetch(server.port, "/readyz")[0] == 503, 10, "/readyz fails after SIGTERM")

        hit = keep_alive_get(lane, "/api/v1/readiness?code=KEN")  # answered by the lane
        assert hit.status == 200 and hit.getheader("Connection") == "close"
        assert closed_by_server(lane)
        miss = keep_alive_get(handler, "/api/v1/readiness?code=BRA")  # answered by the handler
        assert miss.status == 200 and miss.getheader("Connection") == "close"
        assert closed_by_server(handler)
    assert server.process.poll() is None, "the listener must stay open for the shutdown delay"
