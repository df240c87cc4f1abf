"""Benchmark: where a tier-2 (Redis) hit's time goes, step by step, in process.

    .venv/bin/python bench/tier2_path.py [--rounds N] [--calls N] [--redis-url URL]

For one country (``?code=KEN``) and the all-countries answer, against a real Redis (a
throwaway ``redis-server`` the script starts, or ``--redis-url``: a database it may write
the two answers to, under the service's and the baseline's key names, deleted at the end),
it times each step of the service's tier-2 path and the same request through the bare
baseline handler of ``bench/baseline_server.py``:

- ``GET, baseline client``: one redis-py asyncio GET with the library's defaults (5 s
  socket timeout), as the baseline server's client;
- ``GET, no socket timeout``: the same GET on a client without socket timeouts, as
  ``connect(..., socket_timeouts=False)`` makes for the server;
- ``RedisTier.get``: the server's lookup (breaker, one deadline per call, the GET, the
  value's check, metrics), and the same with the client's socket timeouts instead of the
  deadline, as before;
- ``AnswerCodec.unpack``: the check alone;
- ``request, service`` and ``request, bare``: a whole request as Tornado hands it over once
  its headers are read (HTTPServerRequest built, delegate ``finish``), through to the
  response written to a stub connection that discards it: for the service the hit lane's
  miss, the handler, ``ReadinessService.answer`` with tier 1 off, ``RedisTier.get`` and
  ``write_answer``; for the baseline its handler's GET and ``finish``. No HTTP socket.
- ``request, ... (stub Redis)``: the same two with a stub client that returns the value at
  once: no system call at all, so what is left is the Python work of each side, and their
  difference is what the service adds, measured with the least noise.

Times are CPU time of this process per call (µs), the median and the best over rounds of
``--calls`` calls, the cases alternating within each round; ``wall`` is elapsed time per
call (median), which includes waiting for Redis. On a shared machine the CPU time of a
system call (the send to Redis) varies with the load: compare steps of one run, and prefer
the stub rows and the best column.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from support import (  # first: it puts the repository root on sys.path
    SAMPLE_DIR,
    BenchError,
    start_redis,
)

from baseline_server import BASELINE_PREFIX, RedisHandler  # noqa: E402
from config import Settings  # noqa: E402
from loaders import SnapshotStore  # noqa: E402
from redis.asyncio import Redis  # noqa: E402
from tornado.httputil import HTTPConnection, HTTPHeaders, HTTPServerRequest, RequestStartLine  # noqa: E402
from tornado.web import Application  # noqa: E402

from readiness.app import make_app  # noqa: E402
from readiness.cache.breaker import CircuitBreaker  # noqa: E402
from readiness.cache.answers import AnswerCache, AnswerCodec  # noqa: E402
from readiness.http.handlers import DataHandler  # noqa: E402
from readiness.http.logs import AccessLog  # noqa: E402
from readiness.metrics import Metrics  # noqa: E402
from readiness.domain.query import Query  # noqa: E402
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier, connect  # noqa: E402

from readiness.cache.keys import cache_key, request_key  # noqa: E402
from readiness.domain.compute import compute  # noqa: E402
from readiness.domain import routes

TIMEOUT = 0.1
"""The server's default Redis timeout (READINESS_REDIS_TIMEOUT_MS=100)."""
CASES = {"KEN": ("ken", "code=KEN", Query(codes=("KEN",))), "all countries": ("global", "", Query())}


class StubRedis:
    """Answers GET from a dict at once: no socket, no event-loop turn."""

    def __init__(self, values: dict[str, bytes]) -> None:
        self.values = values

    async def get(self, name: str) -> bytes | None:
        return self.values.get(name)


class Connection(HTTPConnection):
    """Takes a response and drops it; ``done`` resolves when the response is finished."""

    def __init__(self) -> None:
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def write_headers(self, *args: Any) -> asyncio.Future[None]:
        return self._written()

    def write(self, chunk: bytes) -> asyncio.Future[None]:
        return self._written()

    def finish(self) -> None:
        self.done.set_result(None)

    def set_close_callback(self, callback: Any) -> None:
        pass

    def _written(self) -> asyncio.Future[None]:
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        written.set_result(None)
        return written


def request_through(
    app: Application, handler: type[Any], kwargs: dict[str, Any], uri: str, path_args: list[bytes] | None = None
) -> Callable[[], Awaitable[None]]:
    """One request to ``app`` for ``uri``, routed to ``handler``, awaited until its response is finished."""
    start_line = RequestStartLine("GET", uri, "HTTP/1.1")

    async def call() -> None:
        connection = Connection()
        request = HTTPServerRequest(
            start_line=start_line, headers=HTTPHeaders({"Host": "localhost"}), connection=connection
        )
        app.get_handler_delegate(request, handler, kwargs, path_args).finish()
        await connection.done

    return call


async def measure(calls: Callable[[], Awaitable[Any]], count: int) -> tuple[float, float]:
    """CPU and wall µs per call of ``calls``."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        await calls()
    return (time.process_time() - cpu) / count * 1e6, (time.perf_counter() - wall) / count * 1e6


async def run(redis_url: str, rounds: int, count: int) -> None:
    store = SnapshotStore(SAMPLE_DIR)
    snapshot = store.load_current()
    if snapshot is None:
        raise BenchError("no current snapshot in data/sample")
    codec = AnswerCodec()
    baseline_client = Redis.from_url(redis_url, max_connections=64)  # as bench/baseline_server.py
    bare_client = connect(redis_url, TIMEOUT, socket_timeouts=False)
    socket_client = connect(redis_url, TIMEOUT)
    metrics = Metrics(lambda: None, lambda: False)
    tier = RedisTier(bare_client, CircuitBreaker(1000, 1), metrics, codec, timeout=TIMEOUT)
    socket_tier = RedisTier(socket_client, CircuitBreaker(1000, 1), metrics, codec)
    written: list[str] = []
    try:
        for label, (name, query_string, query) in CASES.items():
            key = cache_key(snapshot, request_key(routes.V1, query))
            answer = compute(snapshot, query, routes.V1)
            value = codec.pack(key, answer)
            await baseline_client.set(ANSWER_PREFIX + key, value)
            await baseline_client.set(BASELINE_PREFIX + name, value)
            written += [ANSWER_PREFIX + key, BASELINE_PREFIX + name]
            stub = StubRedis({ANSWER_PREFIX + key: value, BASELINE_PREFIX + name: value})
            stub_tier = RedisTier(stub, CircuitBreaker(1000, 1), metrics, codec, timeout=TIMEOUT)  # type: ignore[arg-type]
            app, stub_app = (
                make_app(
                    Settings(data_dir=SAMPLE_DIR, cache_bytes=0),
                    store,
                    redis=answers,
                    memory=AnswerCache(0),
                    access=AccessLog(io.BytesIO(), "WARNING"),
                )
                for answers in (tier, stub_tier)
            )
            lane, stub_lane = app.lane, stub_app.lane
            bare_app = Application(log_function=lambda handler: None)
            uri = "/api/v1/readiness" + (f"?{query_string}" if query_string else "")
            bare_uri = f"/redis/{name}" + (f"?{query_string}" if query_string else "")

            async def unpack(key: str = key, value: bytes = value) -> None:
                codec.unpack(key, value)

            steps: dict[str, Callable[[], Awaitable[Any]]] = {
                "GET, baseline client": lambda name=name: baseline_client.get(BASELINE_PREFIX + name),
                "GET, no socket timeout": lambda name=name: bare_client.get(BASELINE_PREFIX + name),
                "RedisTier.get (deadline per call)": lambda key=key: tier.get(key),
                "RedisTier.get (socket timeouts)": lambda key=key: socket_tier.get(key),
                "AnswerCodec.unpack": unpack,
                "request, service": request_through(
                    app, DataHandler, {"route": routes.V1, "service": lane.service, "policy": lane.policy,
                                       "checked": lane.checked}, uri),
                "request, bare": request_through(
                    bare_app, RedisHandler, {"client": baseline_client, "etags": {name: answer.etag},
                                                   "headers": {name: answer.headers}}, bare_uri,
                    [name.encode()]),
                "request, service (stub Redis)": request_through(
                    stub_app, DataHandler, {"route": routes.V1, "service": stub_lane.service,
                                            "policy": stub_lane.policy, "checked": stub_lane.checked}, uri),
                "request, bare (stub Redis)": request_through(
                    bare_app, RedisHandler, {"client": stub, "etags": {name: answer.etag},
                                                   "headers": {name: answer.headers}}, bare_uri, [name.encode()]),
            }
            samples: dict[str, list[tuple[float, float]]] = {step: [] for step in steps}
            for calls in steps.values():
                await measure(calls, max(10, count // 10))  # warm-up: connections, caches
            for _ in range(rounds):
                for step, calls in steps.items():
                    samples[step].append(await measure(calls, count))
            print(f"{label}: value {len(value)} bytes, body {len(answer.body)}; µs per call, "
                  f"median of {rounds} rounds of {count}")
            print(f"  {'step':<36}{'cpu':>8}{'best':>8}{'wall':>8}")
            for step, values in samples.items():
                print(f"  {step:<36}{statistics.median(v[0] for v in values):>8.1f}"
                      f"{min(v[0] for v in values):>8.1f}{statistics.median(v[1] for v in values):>8.1f}")
            for suffix in ("", " (stub Redis)"):
                service = statistics.median(v[0] for v in samples["request, service" + suffix])
                bare = statistics.median(v[0] for v in samples["request, bare" + suffix])
                print(f"  service - bare{suffix}: {service - bare:+.1f} µs cpu per request "
                      f"(bare = {bare / service:.2f} of the service)")
    finally:
        if written:
            await baseline_client.delete(*written)
        for client in (baseline_client, bare_client, socket_client):
            await client.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--redis-url", help="a Redis to use instead of a throwaway redis-server")
    args = parser.parse_args()
    try:
        if args.redis_url:
            asyncio.run(run(args.redis_url, args.rounds, args.calls))
            return 0
        with tempfile.TemporaryDirectory(prefix="bench-tier2-") as temp:
            process, port = start_redis(Path(temp))
            try:
                asyncio.run(run(f"redis://127.0.0.1:{port}/0", args.rounds, args.calls))
            finally:
                process.stop()
    except BenchError as error:
        print(f"bench/tier2_path.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
