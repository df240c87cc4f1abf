"""JSON log lines."""

from __future__ import annotations

import logging
import sys

import orjson

from readiness.logs import JsonFormatter


def test_json_formatter_one_object_with_fields() -> None:
    record = logging.LogRecord("readiness.access", logging.INFO, __file__, 1, "request %s", ("x",), None)
    record.fields = {"status": 200, "cache": "hit"}
    line = JsonFormatter().format(record)
    assert "\n" not in line
    parsed = orjson.loads(line)
    assert parsed["message"] == "request x" and parsed["level"] == "info"
    assert parsed["logger"] == "readiness.access"
    assert (parsed["status"], parsed["cache"]) == (200, "hit")
    assert parsed["time"].endswith("Z")


def test_json_formatter_exception_in_one_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    parsed = orjson.loads(JsonFormatter().format(record))
    assert "ValueError: boom" in parsed["exception"]
