"""Structured logging: every log record is one JSON line; one access line per request."""

from __future__ import annotations

import logging
import time

import orjson
from tornado.web import RequestHandler

from readiness.metrics import Metrics

access_log = logging.getLogger("readiness.access")

_MAX_LOGGED_QUERY = 1000


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object: time, level, logger, message and any ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def configure(level: str) -> None:
    """Send every log record, as JSON lines, to standard error at ``level``."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Tornado's own access log would repeat ours in another format.
    logging.getLogger("tornado.access").disabled = True


def log_request(metrics: Metrics, handler: RequestHandler) -> None:
    """Tornado's ``log_function``: one access line (method, path, status, duration, cache
    outcome) and the request's metrics.
    """
    request = handler.request
    status = handler.get_status()
    seconds = request.request_time()
    metrics.observe(getattr(handler, "route_label", "other"), request.method or "", status, seconds)
    level = logging.ERROR if status >= 500 else logging.INFO
    if not access_log.isEnabledFor(level):
        return
    access_log.log(
        level,
        "request",
        extra={
            "fields": {
                "method": request.method,
                "path": request.path,
                "query": request.query[:_MAX_LOGGED_QUERY],
                "status": status,
                "duration_ms": round(seconds * 1000, 3),
                "cache": getattr(handler, "cache_outcome", None),
                "remote": request.remote_ip,
            }
        },
    )
