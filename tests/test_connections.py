"""readiness/http/connections.py: the public listener's connection cap, below the descriptor limit,
and an accept loop that neither spins nor floods the log when descriptors run out."""

from __future__ import annotations

import asyncio
import errno
import fcntl
import logging
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tornado.web import Application

from readiness.http.connections import (
    ACCEPT_PAUSE_SECONDS,
    DESCRIPTOR_RESERVE,
    LimitedHTTPServer,
    Throttled,
    connection_cap,
)
from tests.conftest import ROOT, eventually, gen_test
from tests.processes import SERVER_ENV, fetch, free_port, free_ports, get, until, wait_until_up

DESCRIPTOR_LIMIT = 128
IDLE_CLIENTS = 200
"""More idle connections than the server has descriptors."""


@pytest.fixture
def limited_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int, int, Path]]:
    """server.py under ``ulimit -n 128``: the process, its ports and its log file."""
    port, admin = free_ports(2)
    log = tmp_path / "server.log"

    def limit_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTOR_LIMIT, DESCRIPTOR_LIMIT))

    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py"), "--port", str(port)],
            cwd=ROOT, stdout=output, stderr=output, preexec_fn=limit_descriptors,
            env={**os.environ, **SERVER_ENV, "READINESS_ADMIN_PORT": str(admin)},
        )
    try:
        wait_until_up(port, process)
        yield process, port, admin, log
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_server_over_its_descriptor_limit_keeps_serving_and_logs_little(
    limited_server: tuple[subprocess.Popen[bytes], int, int, Path],
) -> None:
    process, port, admin, log = limited_server
    idle: list[socket.socket] = []
    try:
        # In bursts of 50, each accepted before the next (open, closed when idle, or refused at
        # once when none was idle yet), so that the accept queue never overflows: a handshake
        # completed late would come after the new clients below and could close one of them.
        for _ in range(IDLE_CLIENTS // 50):
            idle += [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(50)]
            opened = len(idle)
            until(lambda opened=opened: _accepted(admin) >= opened, 20, f"the server accepts {opened} idle clients")
        # New clients are served: each closes the connection idle the longest.
        for _ in range(5):
            status, body = fetch(port, "/api/v1/readiness?code=KEN", timeout=5)
            assert status == 200, body
        status, body = get(f"http://127.0.0.1:{admin}/metrics")
        assert status == 200
        text = body.decode()
        cap = DESCRIPTOR_LIMIT - DESCRIPTOR_RESERVE
        assert f'readiness_connections_max{{listener="public"}} {cap}.0' in text
        assert 'readiness_connections_closed_idle_total{listener="public"} 0.0' not in text
        # The oldest idle connections were closed by the server: end of stream.
        idle[0].settimeout(5)
        assert idle[0].recv(1) == b""
    finally:
        for connection in idle:
            connection.close()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    lines = log.read_bytes().splitlines()
    others = [orjson.loads(line) for line in lines if b'"readiness.access"' not in line]
    assert len(others) < 20, others[:20]
    assert not any("exception" in line or "Traceback" in line.get("message", "") for line in others), others


def _accepted(admin: int) -> float:
    """Connections the public listener accepted and the client has not closed: open, closed
    when idle, refused at once."""
    status, body = get(f"http://127.0.0.1:{admin}/metrics")
    assert status == 200
    found = {
        sample.name: sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
        if sample.labels.get("listener") == "public"
    }
    return sum(
        found[name] for name in ("readiness_connections_open", "readiness_connections_closed_idle_total",
                                 "readiness_connections_refused_total")
    )


def test_connection_cap_stays_below_the_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_cap(10**9) == soft - DESCRIPTOR_RESERVE
    assert connection_cap(5) == 5


def test_throttled_logs_once_per_interval_with_the_count_it_held_back(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    throttled = Throttled(logging.getLogger("test.throttled"), 10, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, "test.throttled"):
        for step in range(25):  # 0.0 to 24.0 s
            now[0] = float(step)
            throttled.warning("trouble")
    assert [record.fields for record in caplog.records] == [  # type: ignore[attr-defined]
        {"suppressed": 0}, {"suppressed": 9}, {"suppressed": 9},
    ]


class _Exhausted(socket.socket):
    """A listening socket whose ``accept`` fails with EMFILE while ``failing`` is set."""

    failing = True
    attempts = 0

    def accept(self) -> tuple[socket.socket, Any]:
        self.attempts += 1
        if self.failing:
            raise OSError(errno.EMFILE, "Too many open files")
        return super().accept()


@gen_test
async def test_accept_out_of_descriptors_pauses_instead_of_spinning(
    app: Application, caplog: pytest.LogCaptureFixture
) -> None:
    listener = _Exhausted(socket.AF_INET, socket.SOCK_STREAM)
    listener.setblocking(False)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    server = LimitedHTTPServer(app, max_connections=10)
    server.add_sockets([listener])
    try:
        began = asyncio.get_running_loop().time()
        reader, writer = await asyncio.open_connection(*listener.getsockname())
        with caplog.at_level(logging.WARNING, "readiness.connections"):
            await eventually(lambda: listener.attempts >= 3, "accepting tried again after two pauses")
        waited = asyncio.get_running_loop().time() - began
        # One attempt, then one after each pause. Tornado's own loop would retry on every
        # event-loop turn: thousands of attempts by the time the third is seen.
        assert listener.attempts <= 2 + waited / ACCEPT_PAUSE_SECONDS, (listener.attempts, waited)
        assert [record.message for record in caplog.records if "file descriptors" in record.message] != []
        assert len(caplog.records) == 1
        listener.failing = False
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
        assert head.startswith(b"HTTP/1.1 200")
        writer.close()
    finally:
        server.stop()


@gen_test
async def test_at_the_cap_a_new_connection_closes_the_oldest_idle_one(app: Application) -> None:
    server = LimitedHTTPServer(app, max_connections=2)
    port = free_port()
    server.listen(port, "127.0.0.1")
    try:
        oldest = await asyncio.open_connection("127.0.0.1", port)
        newer = await asyncio.open_connection("127.0.0.1", port)
        await _served(newer)  # kept alive, idle again: the newer idle one
        third = await asyncio.open_connection("127.0.0.1", port)
        await _served(third)
        assert await asyncio.wait_for(oldest[0].read(1), timeout=5) == b""
        await _served(newer)
        assert (server.open_connections, server.closed_idle, server.refused) == (2, 1, 0)
        for _, writer in (oldest, newer, third):
            writer.close()
        await asyncio.wait_for(_until_none_open(server), timeout=5)
    finally:
        server.stop()


async def _served(connection: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
    reader, writer = connection
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
    assert head.startswith(b"HTTP/1.1 200")
    await reader.readexactly(len(b'{"status":"ok"}'))


async def _until_none_open(server: LimitedHTTPServer) -> None:
    while server.open_connections:
        await asyncio.sleep(0.01)


SIOCOUTQ = 0x5411
"""ioctl: bytes in a TCP socket's send queue, sent and unacknowledged or not sent yet."""
WHOLE_TABLE = "/api/v1/indicators"
"""The sample's largest answer without gzip: the whole indicator table, 2.7 MB."""


def _kernel_queue(sock: socket.socket) -> int:
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0" * 4))[0]


async def _stalled_reader_queue(app: Application, unsent_bytes: int) -> tuple[int, int]:
    """A client that asks for WHOLE_TABLE and never reads (a 4 KiB receive buffer), against a
    LimitedHTTPServer bounding ``unsent_bytes``: its TCP_NOTSENT_LOWAT and the most bytes its
    kernel queue held once the server had written all it could."""
    accepted: list[socket.socket] = []

    class Recording(LimitedHTTPServer):
        def _handle_connection(self, connection: socket.socket, address: Any) -> None:
            accepted.append(connection)
            super()._handle_connection(connection, address)

    server = Recording(app, unsent_bytes=unsent_bytes)
    port = free_port()
    server.listen(port, "127.0.0.1")
    client = socket.socket()
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.setblocking(False)
        await asyncio.get_running_loop().sock_connect(client, ("127.0.0.1", port))
        client.send(f"GET {WHOLE_TABLE} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await eventually(lambda: accepted and _kernel_queue(accepted[0]) > 0, "the server writing the answer")
        lowat = accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NOTSENT_LOWAT)
        queued: list[int] = []

        def settled() -> bool:  # the same for ten polls in a row: the server writes no more
            queued.append(_kernel_queue(accepted[0]))
            return len(queued) >= 10 and len(set(queued[-10:])) == 1

        await eventually(settled, "the kernel queue settling")
        return lowat, max(queued)
    finally:
        client.close()
        server.stop()


@gen_test
async def test_a_stalled_reader_holds_little_in_the_kernel(app: Application) -> None:
    # 64 connections of one address that never read pinned 168-176 MiB, nearly all in the
    # API's send buffers (docs/OPERATIONS.md#slow-readers): each may now queue 32 KiB unsent,
    # plus what one segment in flight takes (64 KiB on loopback).
    lowat, queued = await _stalled_reader_queue(app, 32 * 1024)
    assert lowat == 32 * 1024
    assert 0 < queued <= 32 * 1024 + 64 * 1024 + 4096, queued


@gen_test
async def test_without_the_bound_a_stalled_reader_takes_far_more(app: Application) -> None:
    lowat, queued = await _stalled_reader_queue(app, 0)
    assert queued > 4 * (32 * 1024 + 64 * 1024 + 4096), queued  # what the bound above saves
