"""Benchmark: the hit lane's own work for a tier-1 hit, in process, without sockets.

Each call builds the request Tornado would build (and its ``HTTP1Connection``), then runs the
lane's delegate ``finish`` (parse memo, tier-1 lookup, representation, headers, metrics, access
record, and Tornado's connection writing the response) against a stub stream that accepts the
bytes and discards them. The baseline, measured in the same rounds, builds the request alone;
the lane's cost is the difference. Access log at WARNING,
like the HTTP benchmark's targets.

    .venv/bin/python bench/hit_lane.py [--root DIR] [--rounds N] [--calls N]

``--root`` measures another checkout (e.g. ``git archive <commit> | tar -x -C /tmp/old``),
for an A/B in one session: only ratios and differences measured together mean anything.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from readiness.domain import routes


def measure(root: Path, rounds: int, calls: int) -> dict[str, float]:
    """Median µs per lane hit, per Accept-Encoding case, for the checkout at ``root``."""
    sys.path.insert(0, str(root))
    from tornado.http1connection import HTTP1Connection
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    from tornado.ioloop import IOLoop

    from config import Settings
    from loaders import SnapshotStore
    from readiness.app import make_app
    from readiness.http.handlers import DataHandler
    from readiness.http.logs import AccessLog
    from readiness.domain.query import parse_query_string


    start_line = RequestStartLine("GET", "/api/v1/readiness?code=KEN", "HTTP/1.1")

    class Stream:
        """What HTTP1Connection writes to: takes the bytes and drops them, the write done at once."""

        max_buffer_size = 100 * 1024 * 1024

        def __init__(self) -> None:
            self.io_loop = IOLoop.current()

        def write(self, data: bytes) -> asyncio.Future[None]:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done

        def closed(self) -> bool:
            return False

        def set_nodelay(self, value: bool) -> None:
            pass

        def set_close_callback(self, callback: Any) -> None:
            pass

    def connection() -> Any:
        """Tornado's connection for one request, as if it had read its start line and headers."""
        made = HTTP1Connection(Stream(), False)  # type: ignore[arg-type]
        made._request_start_line = start_line  # write_headers reads these two (the before checkout)
        made._request_headers = HTTPHeaders()
        made._read_finished = True  # or finish() would close the connection
        return made

    async def run() -> dict[str, float]:
        store = SnapshotStore(root / "data" / "sample")
        store.load_current()
        app = make_app(Settings(data_dir=root / "data" / "sample"), store, access=AccessLog(io.BytesIO(), "WARNING"))
        lane = app.lane
        await lane.service.answer(parse_query_string("code=KEN"), routes.V1)
        kwargs = {"route": routes.V1, "service": lane.service, "policy": lane.policy, "checked": lane.checked}
        results = {}
        for case, accept in (("no Accept-Encoding", None), ("Accept-Encoding: gzip, deflate, br", "gzip, deflate, br")):
            headers = {"Host": "localhost", **({"Accept-Encoding": accept} if accept else {})}

            def request(headers: dict[str, str] = headers) -> Any:  # this round's headers
                return HTTPServerRequest(start_line=start_line, headers=HTTPHeaders(headers), connection=connection())

            def hit() -> None:
                app.get_handler_delegate(request(), DataHandler, kwargs).finish()

            costs = []
            for _ in range(rounds):
                began = time.perf_counter()
                for _ in range(calls):
                    hit()
                lane_done = time.perf_counter()
                for _ in range(calls):
                    request()
                baseline_done = time.perf_counter()
                costs.append(((lane_done - began) - (baseline_done - lane_done)) / calls * 1e6)
            results[case] = statistics.median(costs)
        return results

    return asyncio.run(run())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    for case, micros in measure(args.root.resolve(), args.rounds, args.calls).items():
        print(f"{case:40s} {micros:6.2f} µs per hit (median of {args.rounds} rounds of {args.calls})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
