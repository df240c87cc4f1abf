"""Structured logging: every log line is one JSON object; one access line per request."""

from __future__ import annotations

import logging
import time
from typing import BinaryIO

import orjson
from tornado.httputil import HTTPServerRequest
from tornado.web import RequestHandler

from config import redact
from readiness.metrics import Metrics

_MAX_LOGGED_QUERY = 1000


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object: time, level, logger, message and any ``fields``.

    The message and any traceback show no password: not of a URL in them, nor of ``urls``
    (the process's Redis URL) wherever it appears (config/redact.py).
    """

    def __init__(self, urls: tuple[str | None, ...] = ()) -> None:
        super().__init__()
        self.urls = urls

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage(), *self.urls),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = redact(self.formatException(record.exc_info), *self.urls)
        return orjson.dumps(line, default=str).decode()


def configure(level: str, urls: tuple[str | None, ...] = ()) -> None:
    """Send every log record, as JSON lines, to standard error at ``level``, without the
    passwords of ``urls`` (JsonFormatter)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(urls))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Tornado's own access log would repeat ours in another format.
    logging.getLogger("tornado.access").disabled = True


class AccessLog:
    """The access log: one JSON line per request, shaped like every other log line, written
    in batches (docs/OPERATIONS.md).

    Python's logging costs a record, a lock, a write and a flush per line, a sizeable share of a
    cache hit (docs/PERFORMANCE.md#result-2026-11-22-with-the-hit-lane-three-full-runs). These
    lines are formatted with orjson and written together when ``flush`` runs (the server calls
    it every second and at shutdown), when the
    batch passes 64 KiB, and at once for a 5xx. A crash can lose at most a second of lines.
    """

    FLUSH_BYTES = 64 * 1024

    def __init__(self, stream: BinaryIO, level: str = "INFO") -> None:
        self.stream = stream
        threshold = logging.getLevelName(level.upper())
        self.writes_info = threshold <= logging.INFO
        self.writes_errors = threshold <= logging.ERROR
        self._lines: list[bytes] = []
        self._size = 0
        self._second = -1
        self._stamp = ""

    def write(self, level: str, fields: dict[str, object]) -> None:
        """Add one line; "error" lines are written at once with everything before them."""
        now = time.time()
        second = int(now)
        if second != self._second:  # strftime once a second, not once a request
            self._second, self._stamp = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        line = orjson.dumps(
            {
                "time": f"{self._stamp}.{int((now - second) * 1000):03d}Z",
                "level": level,
                "logger": "readiness.access",
                "message": "request",
                **fields,
            }
        )
        self._lines.append(line)
        self._size += len(line) + 1
        if level == "error" or self._size >= self.FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the lines gathered so far."""
        if not self._lines:
            return
        batch, self._lines, self._size = self._lines, [], 0
        self.stream.write(b"\n".join(batch) + b"\n")
        self.stream.flush()


class RequestLog:
    """What every answered request leaves behind: its metrics and one access line (method,
    path, query, status, duration, cache outcome, client address).

    Called by Tornado as the application's ``log_function`` with the finished handler, and by
    the hit lane (``readiness/http/hits.py``), which answers without one, through ``record``.
    """

    def __init__(self, metrics: Metrics, access: AccessLog) -> None:
        self.metrics = metrics
        self.access = access

    def __call__(self, handler: RequestHandler) -> None:
        """Record a request a handler answered."""
        self.record(
            handler.request,
            getattr(handler, "route_label", "other"),
            handler.get_status(),
            getattr(handler, "cache_outcome", None),
        )

    def record(self, request: HTTPServerRequest, route: str, status: int, cache: str | None) -> None:
        """Count the request in the metrics of ``route`` and write its access line."""
        seconds = request.request_time()
        self.metrics.observe(route, request.method or "", status, seconds)
        access = self.access
        if not (access.writes_errors if status >= 500 else access.writes_info):
            return
        access.write(
            "error" if status >= 500 else "info",
            {
                "method": request.method,
                "path": request.path,
                "query": request.query[:_MAX_LOGGED_QUERY],
                "status": status,
                "duration_ms": round(seconds * 1000, 3),
                "cache": cache,
                "remote": request.remote_ip,
            },
        )
