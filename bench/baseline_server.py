"""Bare Tornado baselines for bench/http_cache.py: the framework's floor for serving an answer.

    python bench/baseline_server.py --port N --data-dir DIR [--redis-url URL]

At start-up it loads the current snapshot of ``DIR`` (and every snapshot's summary) and
computes, with the service's own compute functions, the answers the benchmark asks the real
server for (``ANSWERS``: one country, the global summary, the global CSV, the indicator table,
history and the catalogue), so both sides send byte-identical bodies, ETags, gzip copies and
answer headers. It then serves them with as little as a Tornado handler can do:

- ``/static/<name>``: the pre-serialized bytes from memory (the tier-1 floor). The same
  response headers as the service (the answer's own ones too: Last-Modified, X-Total-Count...),
  set with plain ``set_header`` calls, and an ``Etag``
  header set by the handler, so Tornado never computes its default SHA-1 ETag of the body.
  ``Accept-Encoding`` containing ``gzip`` gets the gzip copy; an ``If-None-Match`` equal
  to the ETag gets 304 (a bare revalidation, reported for information).
- ``/plain/<name>``: the same pre-serialized body with only a ``Content-Type`` header (the
  answer's), as the plainest Tornado handler writes it: no CORS, caching or answer headers,
  no ETag, gzip or 304; Tornado adds its own ``Date`` and ``Content-Length``. Only its
  ``Server`` header is cleared (the service sends none) and its default ETag, a SHA-1 of the
  body, is not computed: what is left is the framework's cost of sending bytes.
- ``/redis/<name>``: one redis-py asyncio ``GET`` (hiredis parser when installed) of the
  same packed value the service stores (``AnswerCodec().pack`` for the service's cache key),
  written at start-up under a key of its own; the handler slices the body out of the packed
  bytes and writes it (the tier-2 floor). No timeout wrapper, breaker, metrics or check of
  the value's digest: those are the service's overhead.
- ``/healthz``: ready probe for the benchmark.

No access log, no metrics, no query parsing. Only for benchmarks; it listens on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import signal
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import support  # noqa: F401 (first: it puts the repository root on sys.path)

from loaders import SnapshotStore  # noqa: E402
from redis.asyncio import Redis  # noqa: E402
from redis.utils import HIREDIS_AVAILABLE  # noqa: E402
from tornado.httpserver import HTTPServer  # noqa: E402
from tornado.web import Application, RequestHandler  # noqa: E402

from readiness.cache.answers import AnswerCodec  # noqa: E402
from readiness.domain.answer import Answer  # noqa: E402
from readiness.domain.query import Query  # noqa: E402
from readiness.domain.route import FromSummaries  # noqa: E402
from readiness.http.representation import EXPOSED  # noqa: E402

from readiness.cache.keys import cache_key, collection_key, request_key  # noqa: E402
from readiness.domain.compute import compute  # noqa: E402
from readiness.domain import routes
from readiness.domain.route import Route


@dataclass(frozen=True)
class BenchAnswer:
    """One answer the benchmark asks for: the service's route and path, and its parameters."""

    route: Route
    path: str
    params: tuple[tuple[str, str], ...] = ()

    @property
    def query_string(self) -> str:
        """``?name=value&...`` (empty without parameters): the same on the service and the baseline."""
        return "?" + urlencode(self.params) if self.params else ""


ANSWERS: dict[str, BenchAnswer] = {
    "ken": BenchAnswer(routes.V1, "/api/v1/readiness", (("code", "KEN"),)),
    "global": BenchAnswer(routes.V1, "/api/v1/readiness"),
    "csv": BenchAnswer(routes.V1, "/api/v1/readiness", (("format", "csv"),)),
    "indicators": BenchAnswer(routes.INDICATORS, "/api/v1/indicators"),
    "indicators-ken": BenchAnswer(routes.INDICATORS, "/api/v1/indicators", (("code", "KEN"),)),
    "history": BenchAnswer(routes.HISTORY, "/api/v1/history"),
    "history-ken": BenchAnswer(routes.HISTORY, "/api/v1/history", (("code", "KEN"),)),
    "catalogue": BenchAnswer(routes.SNAPSHOTS, "/api/v1/snapshots"),
}
"""The answers served, by path name (``/static/<name>``, ``/redis/<name>``); bench/http_cache.py
asks the service for the same ones."""

_NAMES = "(" + "|".join(re.escape(name) for name in ANSWERS) + ")"

BASELINE_PREFIX = "bench:baseline:"
"""Redis key prefix of the baseline's own copies (never the service's keys)."""

_HEADER = struct.Struct(">BII")
"""Must match readiness.cache.answers's packed header (checked at start-up against AnswerCodec.unpack)."""
_BEFORE_BODY = 32 + 16
"""What lies between the header and the body: the keyed digest, then the ETag's 16 bytes (the
answer's meta follows the gzip copy, so the body's place is unchanged)."""

CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400"
"""The service's default Cache-Control for current-snapshot answers."""


class _Base(RequestHandler):
    def set_default_headers(self) -> None:
        # The same response headers the service sends, set the plain way.
        self.clear_header("Server")
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Access-Control-Allow-Origin", "*")
        self.set_header("Access-Control-Expose-Headers", EXPOSED)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", CACHE_CONTROL)
        self.set_header("Vary", "Accept-Encoding")

    def compute_etag(self) -> None:  # belt and braces: never hash bodies
        return None


class StaticHandler(_Base):
    """Pre-serialized bytes from memory."""

    def initialize(self, answers: dict[str, Answer]) -> None:
        self.answers = answers

    def get(self, name: str) -> None:
        answer = self.answers[name]
        for header, value in answer.headers:  # Last-Modified, X-Readiness-Snapshot, ... as the service
            self.set_header(header, value)
        gzipped = answer.gzipped is not None and "gzip" in self.request.headers.get("Accept-Encoding", "")
        etag = answer.gzip_etag if gzipped else answer.etag
        self.set_header("Etag", etag)
        if self.request.headers.get("If-None-Match") == etag:
            self.set_status(304)
            self.finish()
        elif gzipped:
            self.set_header("Content-Encoding", "gzip")
            self.finish(answer.gzipped)
        else:
            self.finish(answer.body)


class PlainHandler(RequestHandler):
    """Pre-serialized bytes from memory with only a Content-Type header."""

    def initialize(self, answers: dict[str, Answer]) -> None:
        self.answers = answers

    def set_default_headers(self) -> None:
        self.clear_header("Server")

    def compute_etag(self) -> None:  # a bare handler writes bytes; it does not hash them
        return None

    def get(self, name: str) -> None:
        answer = self.answers[name]
        self.set_header("Content-Type", answer.meta.format.content_type)
        self.finish(answer.body)


class RedisHandler(_Base):
    """One asyncio GET of the packed answer, then its body."""

    def initialize(self, client: Redis, etags: dict[str, str], headers: dict[str, tuple[tuple[str, str], ...]]) -> None:
        self.client = client
        self.etags = etags
        self.headers = headers

    async def get(self, name: str) -> None:
        data = await self.client.get(BASELINE_PREFIX + name)
        for header, value in self.headers[name]:
            self.set_header(header, value)
        assert isinstance(data, bytes)  # set at start-up; a str would mean decode_responses
        _, body_length, _ = _HEADER.unpack_from(data)
        start = _HEADER.size + _BEFORE_BODY
        self.set_header("Etag", self.etags[name])
        self.finish(data[start : start + body_length])


class HealthHandler(RequestHandler):
    def get(self) -> None:
        self.finish(b'{"status":"ok"}')


async def build_answers(data_dir: Path) -> dict[str, tuple[str, Answer]]:
    """The service's cache key and answer for each of ANSWERS, computed by the service's own
    code: ``compute`` for one snapshot's routes, the route's own compute function over every
    snapshot's summary for the others (as ``ReadinessService.answer`` does)."""
    store = SnapshotStore(data_dir)
    snapshot = store.load_current()
    if snapshot is None:
        raise SystemExit(f"baseline_server.py: no usable current snapshot in {data_dir}")
    summaries = await store.summaries()
    built = {}
    for name, spec in ANSWERS.items():
        query = Query.parse(dict(spec.params), spec.route.grammar)
        request = request_key(spec.route, query)
        source = spec.route.source
        if isinstance(source, FromSummaries):
            built[name] = (collection_key(snapshot, summaries, request),
                           source.compute(summaries, snapshot, query, spec.route))
        else:
            built[name] = (cache_key(snapshot, request), compute(snapshot, query, spec.route))
    return built


async def serve(port: int, data_dir: Path, redis_url: str | None) -> None:
    keyed = await build_answers(data_dir)
    answers = {name: answer for name, (_, answer) in keyed.items()}
    handlers: list[tuple[str, type[RequestHandler], dict[str, object]] | tuple[str, type[RequestHandler]]] = [
        (r"/static/" + _NAMES, StaticHandler, {"answers": answers}),
        (r"/plain/" + _NAMES, PlainHandler, {"answers": answers}),
        (r"/healthz", HealthHandler),
    ]
    client = None
    if redis_url is not None:
        client = Redis.from_url(redis_url, max_connections=64)
        codec = AnswerCodec()
        for name, (key, answer) in keyed.items():
            packed = codec.pack(key, answer)
            body_length = _HEADER.unpack_from(packed)[1]
            sliced = packed[_HEADER.size + _BEFORE_BODY : _HEADER.size + _BEFORE_BODY + body_length]
            if codec.unpack(key, packed) != answer or sliced != answer.body:  # the handler's slicing
                raise SystemExit("baseline_server.py: packed answer format changed; update _HEADER")
            await client.set(BASELINE_PREFIX + name, packed)
        etags = {name: answer.etag for name, answer in answers.items()}
        headers = {name: answer.headers for name, answer in answers.items()}
        handlers.append((r"/redis/" + _NAMES, RedisHandler, {"client": client, "etags": etags, "headers": headers}))
    app = Application(handlers, log_function=lambda handler: None)
    server = HTTPServer(app)
    server.listen(port, "127.0.0.1")
    print(
        f"baseline listening on 127.0.0.1:{port} (redis: {redis_url or 'off'}, "
        f"hiredis: {HIREDIS_AVAILABLE})",
        file=sys.stderr,
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    server.stop()
    if client is not None:
        await client.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--redis-url")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(serve(args.port, args.data_dir, args.redis_url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
