"""Shared fixtures: tiny in-memory snapshots for domain tests, the real app for HTTP tests."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
from pathlib import Path
from typing import NoReturn
from collections.abc import Iterator

import orjson
import pytest
import redis
from tornado.httpclient import HTTPResponse
from tornado.web import Application

from config import Settings
from loaders import Country, JsonValue, Snapshot, SnapshotStore
from readiness import make_app
from readiness.logs import AccessLog

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Settings().data_dir


def country(code: str, name: str, region: str = "Sub-Saharan Africa", **fields: JsonValue) -> Country:
    """A Country with the given fields (keys with spaces via ``**{"Income Level": ...}``)."""
    record: dict[str, JsonValue] = {"Country Name": name, "Country Code": code, "Region": region}
    record.update({key.replace("_", " "): value for key, value in fields.items()})
    details = (
        {"indicator_code": "GE.EST", "indicator_name": "Government Effectiveness", "data_source": "WDI", "notes": ""},
        {"indicator_code": "IT.NET.USER.ZS", "indicator_name": "Internet users", "data_source": "WDI", "notes": ""},
    )
    return Country(code, record, details)


def snapshot(*countries: Country, snapshot_id: str = "2026-11") -> Snapshot:
    """A Snapshot holding ``countries`` in Country Code order, as the reader builds them."""
    return Snapshot(snapshot_id, f"{snapshot_id}-05", {c.code: c for c in sorted(countries, key=lambda c: c.code)})


@pytest.fixture(autouse=True, scope="session")
def _no_implicit_event_loop() -> None:
    """Stop asyncio from creating a main-thread event loop behind our back.

    pytest-tornado's io_loop makes its loop current through tornado, which first saves
    ``asyncio.get_event_loop()``; on Python 3.11 that call creates a loop nobody closes, and
    its garbage collection later fails an unrelated test with a ResourceWarning. Once
    ``set_event_loop`` has been called, asyncio no longer creates one implicitly.
    """
    asyncio.set_event_loop(None)


@pytest.fixture(scope="session")
def sample_current() -> Snapshot:
    """The bundled sample's current snapshot, read once: snapshots never change."""
    snapshot = SnapshotStore(SAMPLE).load_current()
    assert snapshot is not None
    return snapshot


@pytest.fixture
def sample_store(sample_current: Snapshot) -> SnapshotStore:
    """A fresh store over the bundled synthetic sample, its current snapshot loaded."""
    store = SnapshotStore(SAMPLE)
    store.current = sample_current
    return store


@pytest.fixture
def app(sample_store: SnapshotStore) -> Application:
    """The real application over the bundled sample (pytest-tornado's ``app`` fixture), its
    access lines kept in memory for ``access_lines``."""
    return make_app(Settings(), sample_store, access=AccessLog(io.BytesIO()))


def access_lines(app: Application) -> list[dict[str, JsonValue]]:
    """The access lines the app has written so far, parsed."""
    access = app.settings["access_log"]
    access.flush()
    return [orjson.loads(line) for line in access.stream.getvalue().splitlines()]


def body(response: HTTPResponse) -> dict[str, JsonValue]:
    """The response body parsed as a JSON object."""
    parsed = orjson.loads(response.body)
    assert isinstance(parsed, dict)
    return parsed


def assert_error_envelope(response: HTTPResponse, status: int, *fragments: str) -> None:
    """The response is the SPEC 2.1 error envelope with this status and message fragments."""
    assert response.code == status, response.body
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    parsed = body(response)
    assert set(parsed) == {"apiVersion", "error"}
    assert parsed["apiVersion"] == "1"
    message = parsed["error"]
    assert isinstance(message, str)
    for fragment in fragments:
        assert fragment in message, message


def copy_tree(source: Path, target: Path) -> Path:
    """Copy a data directory so a test can damage it."""
    shutil.copytree(source, target)
    return target



NO_SKIPS = "READINESS_NO_SKIPS"
"""The one switch (``.ci/run`` sets it) that turns every skip for a missing service or tool
(Redis, redis-server, kubectl, a browser) into a failure, so CI always runs every test."""


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose service or tool is missing, printing why; fail it under NO_SKIPS."""
    if os.environ.get(NO_SKIPS):
        pytest.fail(f"{reason} ({NO_SKIPS} is set)")
    print(reason)
    pytest.skip(reason)


REAL_REDIS = os.environ.get("READINESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
"""The machine's Redis, database 15 unless READINESS_TEST_REDIS_URL names another (two test
runs at once each need their own database): flushed before and after each test that uses it."""


@pytest.fixture
def real_redis_url() -> Iterator[str]:
    """The real Redis (REAL_REDIS), or ``unavailable``."""
    client = redis.Redis.from_url(REAL_REDIS, socket_connect_timeout=1)
    try:
        client.flushdb()
    except redis.RedisError as error:
        client.close()
        unavailable(f"no Redis answers at {REAL_REDIS}: {error}")
    yield REAL_REDIS
    client.flushdb()
    client.close()


def scrape(app: Application) -> str:
    """What ``/metrics`` on the operations port shows for ``app`` (it shares the app's metrics)."""
    return str(app.settings["log_function"].metrics.render().decode())
