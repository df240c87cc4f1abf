"""JSON log lines."""

from __future__ import annotations

import io
import logging
import sys

import orjson

from readiness.http.logs import AccessLog, JsonFormatter


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


def test_json_formatter_shows_no_password_of_the_processs_urls() -> None:
    url = "redis://reader:hunter2@redis:6379/0"
    try:
        raise ConnectionError(f"cannot reach {url}; AUTH hunter2 refused")
    except ConnectionError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "redis %s failed (%s)", (url, "hunter2"),
                                   sys.exc_info())
    line = JsonFormatter((url,)).format(record)
    parsed = orjson.loads(line)
    assert parsed["message"] == "redis redis://reader:***@redis:6379/0 failed (***)"
    assert "cannot reach redis://reader:***@redis:6379/0; AUTH *** refused" in parsed["exception"]
    assert "hunter2" not in line
    # Without the URL, a URL in a message still loses its password.
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "to %s", (url,), None)
    assert orjson.loads(JsonFormatter().format(record))["message"] == "to redis://reader:***@redis:6379/0"


def test_access_log_batches_lines_until_flush() -> None:
    stream = io.BytesIO()
    access = AccessLog(stream, "INFO")
    access.write("info", {"status": 200, "cache": "hit"})
    access.write("info", {"status": 304, "cache": "hit"})
    assert stream.getvalue() == b""  # nothing written per line
    access.flush()
    lines = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["status"] for line in lines] == [200, 304]
    assert all(line["logger"] == "readiness.access" and line["time"].endswith("Z") for line in lines)


def test_access_log_error_line_written_at_once_with_the_ones_before() -> None:
    stream = io.BytesIO()
    access = AccessLog(stream, "INFO")
    access.write("info", {"status": 200})
    access.write("error", {"status": 503})
    assert [orjson.loads(line)["status"] for line in stream.getvalue().splitlines()] == [200, 503]


def test_access_log_full_batch_written() -> None:
    stream = io.BytesIO()
    access = AccessLog(stream, "INFO")
    while not stream.getvalue():
        access.write("info", {"query": "x" * 1000})
    assert len(stream.getvalue()) >= AccessLog.FLUSH_BYTES


def test_access_log_level_decides_what_is_written() -> None:
    assert (AccessLog(io.BytesIO(), "INFO").writes_info, AccessLog(io.BytesIO(), "INFO").writes_errors) == (True, True)
    warning = AccessLog(io.BytesIO(), "WARNING")
    assert (warning.writes_info, warning.writes_errors) == (False, True)
