"""server.py at its open-file limit: idle connections past the limit, then new clients.

    .venv/bin/python bench/descriptor_limit.py [--server server.py] [--limit 512] [--idle 700] [--seconds 30]

Starts the server under ``ulimit -n LIMIT`` (RLIMIT_NOFILE), opens IDLE connections that never
send a request, then for SECONDS sends one request at a time on a new connection, every
50 ms. Prints how many new clients got a 200, the slowest, the server's connection metrics and
how many log lines other than access lines it wrote. ``--server`` runs another copy of
server.py (e.g. an older one from ``git show REV:server.py > old.py``) from the checkout.
Not a test: it prints what happened (docs/OPERATIONS.md#connection-limits).
"""

from __future__ import annotations

import argparse
import http.client
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

from support import HOST, BenchError, Process, fetch, free_port, wait_http


def request(port: int, path: str) -> int:
    """Status of a GET on a new connection; 0 when none came within 5 s."""
    try:
        return fetch(port, path, timeout=5)[0]
    except (OSError, http.client.HTTPException):
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="server.py")
    parser.add_argument("--limit", type=int, default=512)
    parser.add_argument("--idle", type=int, default=700)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    port, admin = free_port(), free_port()
    limit = args.limit
    with tempfile.TemporaryDirectory() as workdir:
        log_path = Path(workdir) / "server.log"
        server = Process(
            "the server", [sys.executable, args.server, "--port", str(port)],
            {**os.environ, "READINESS_ADMIN_PORT": str(admin),
             "READINESS_SHUTDOWN_DELAY_SECONDS": "0"},
            log_path, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)),
        )
        try:
            try:
                wait_http(server, port, timeout=20)
            except BenchError as error:
                message = f"descriptor_limit.py: the server did not start: {error}"
                raise SystemExit(message) from None
            idle = []
            for _ in range(args.idle):
                try:
                    idle.append(socket.create_connection((HOST, port), timeout=2))
                except OSError:
                    pass
            answered = sent = 0
            slowest = 0.0
            end = time.monotonic() + args.seconds
            while time.monotonic() < end:
                began = time.monotonic()
                answered += request(port, "/api/v1/readiness?code=KEN") == 200
                sent += 1
                slowest = max(slowest, time.monotonic() - began)
                time.sleep(0.05)
            metrics = ""
            try:
                metrics = fetch(admin, "/metrics", timeout=5)[2].decode()
            except OSError:
                pass  # a server without an operations port
            for connection_ in idle:
                connection_.close()
        finally:
            server.stop(timeout=30)
        lines = log_path.read_bytes().splitlines()
    others = [line for line in lines if b'"readiness.access"' not in line]
    print(f"ulimit -n {limit}, {len(idle)} idle connections open, {args.seconds:.0f} s of new clients")
    print(f"new clients answered 200: {answered}/{sent}, slowest {slowest * 1000:.0f} ms")
    for line in metrics.splitlines():
        if line.startswith(("readiness_connections", "process_open_fds", "process_max_fds")):
            print("  " + line)
    print(f"log: {len(others)} lines other than access lines, {sum(map(len, others))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
