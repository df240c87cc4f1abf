"""Reads that recover (docs/CACHING.md#history-the-catalogue-and-change-reports): a snapshot
whose read failed (a read error, not only a timeout) is read again on the next polls, for
archives and summaries as for the current one; meanwhile /readyz names it, and history and the
catalogue, which lack it, are kept in no cache. And no archive is answered (404) without a
current snapshot: 503."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterator
from pathlib import Path

import fakeredis
import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

from config import Settings
from loaders import SnapshotStore
from readiness.app import make_admin_app, make_app, new_metrics
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import ANSWER_PREFIX, RedisTier
from readiness.domain import routes
from readiness.domain.query import Query
from readiness.freshness.watch import SnapshotWatcher
from readiness.http.application import ReadinessApplication
from readiness.http.lifecycle import Lifecycle
from readiness.http.logs import AccessLog
from readiness.metrics import Metrics
from readiness.service import CacheOutcome, ReadinessService, RedisTtl
from tests.conftest import Clock, access_lines, assert_error_envelope, gen_test, tiny_data
from tests.processes import free_port, free_ports

ARCHIVES = ("2023-12", "2024-12", "2025-12")
"""The tiny data's snapshots before the current 2026-11: history's Decembers."""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tiny_data(tmp_path / "data")


def away(data: Path) -> None:
    """An outage of ``snapshots/``: every read under it fails (the directory is gone), as with
    a volume that errs for a while. Tests run as root, where chmod 000 stops no read."""
    os.rename(data / "snapshots", data / "snapshots.away")


def back(data: Path) -> None:
    """The outage ends."""
    os.rename(data / "snapshots.away", data / "snapshots")


async def poll(store: SnapshotStore) -> None:
    """What the server's poll asks of the store (``SnapshotWatcher.refresh``)."""
    await store.refresh()
    await store.replaced_archives()
    await store.recover()


def ids(store: SnapshotStore) -> list[str]:
    summaries = store.summaries_now()
    assert summaries is not None
    return [summary.id for summary in summaries]


# --- the store ----------------------------------------------------------------------------------


@gen_test
async def test_outage_at_start_summaries_and_archives_come_back_on_the_next_poll(data: Path) -> None:
    store = SnapshotStore(data, clock=Clock())  # the clock stands still: no backoff is due
    store.load_current()
    away(data)
    await store.read_summaries()  # the server's fill at start-up, during the outage
    assert store.unreadable() == store.missing() == ARCHIVES
    assert ids(store) == ["2026-11"]
    assert await store.archive("2024-12") is None
    warnings = store.warnings(10.0)
    assert any("snapshots not readable: 2023-12, 2024-12, 2025-12 (" in warning for warning in warnings), warnings
    await poll(store)  # still away: nothing changes, nothing breaks
    assert store.unreadable() == ARCHIVES
    back(data)
    await poll(store)  # the manifests are readable again: read at once, not after the backoff
    assert ids(store) == [*ARCHIVES, "2026-11"]
    assert store.unreadable() == store.missing() == ()
    assert store.warnings(10.0) == []
    archive = await store.archive("2024-12")
    assert archive is not None and archive.id == "2024-12"


@gen_test
async def test_refused_archive_is_read_again_after_its_backoff_or_at_once_when_repaired(
    data: Path, reads: list[str]
) -> None:
    clock = Clock()
    manifest = data / "snapshots" / "2023-12" / "manifest.json"
    good = manifest.read_bytes()
    manifest.write_text("{")
    store = SnapshotStore(data, clock=clock)
    store.load_current()
    await store.read_summaries()
    assert store.unreadable() == ("2023-12",) and reads.count("2023-12") == 1
    await poll(store)
    assert reads.count("2023-12") == 1, "the same refused manifest waits for its backoff"
    clock.now += 2.5
    await poll(store)
    assert reads.count("2023-12") == 2 and store.unreadable() == ("2023-12",)
    manifest.write_bytes(good)  # repaired: read at the next poll, whatever the backoff
    assert await store.recover() == ["2023-12"]
    assert reads.count("2023-12") == 3 and store.unreadable() == ()
    await poll(store)
    assert reads.count("2023-12") == 3, "read once recovered"


@gen_test
async def test_files_unreadable_during_a_read_are_read_again_after_the_backoff(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The volume errs while an archive's country files are read: its summary and archive are
    # kept without them, and read again (from the files, not the packed reading) later.
    clock = Clock()
    countries = data / "snapshots" / "2024-12" / "countries"
    read_bytes = Path.read_bytes

    def failing(path: Path) -> bytes:
        if path.parent == countries and path.name in ("AAA.json", "BBB.json"):
            raise OSError(5, "Input/output error")
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", failing)
    store = SnapshotStore(data, clock=clock)
    store.load_current()
    partial = await store.archive("2024-12")
    assert partial is not None and partial.skipped == 2 and "AAA" not in partial.countries
    assert store.unreadable() == () and "2024-12" not in store.missing()  # served, with what it has
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    await poll(store)
    assert await store.archive("2024-12") is partial, "read again only after the backoff"
    clock.now += 2.5
    assert await store.recover() == ["2024-12"]
    whole = await store.archive("2024-12")
    assert whole is not None and whole.skipped == 0 and "AAA" in whole.countries
    summaries = await store.summaries()
    assert "AAA" in summaries[1].series.countries
    clock.now += 600
    assert await store.recover() == [], "nothing left to read again"


@gen_test
async def test_a_file_beside_the_country_files_unreadable_fails_the_read_not_the_caller(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    is_file = Path.is_file

    def failing(path: Path) -> bool:
        if path.parent.name == "2025-12" and path.name == "changes.json":
            raise PermissionError(13, "Permission denied")
        return is_file(path)

    monkeypatch.setattr(Path, "is_file", failing)
    store = SnapshotStore(data, clock=Clock())
    store.load_current()
    assert [summary.id for summary in await store.summaries()] == ["2023-12", "2024-12", "2026-11"]
    assert store.unreadable() == ("2025-12",)
    assert any("2025-12: cannot read: Permission denied" in warning for warning in store.warnings(10.0))
    monkeypatch.setattr(Path, "is_file", is_file)
    await poll(store)  # the same manifest: after the backoff only
    assert store.unreadable() == ("2025-12",)
    store._clock.now += 2.5  # type: ignore[attr-defined]  # the test's Clock
    assert await store.recover() == ["2025-12"] and store.unreadable() == ()


# --- the service: no tier keeps an answer lacking a snapshot ----------------------------------------


@gen_test
async def test_incomplete_history_reaches_neither_tier_complete_one_reaches_both(data: Path) -> None:
    store = SnapshotStore(data, clock=Clock())
    store.load_current()
    client = fakeredis.FakeAsyncRedis()
    metrics = Metrics(lambda: None, lambda: False)
    redis = RedisTier(client, CircuitBreaker(3, 60), metrics)
    service = ReadinessService(store, AnswerCache(1 << 20), metrics, redis, RedisTtl(100, 1000))
    away(data)
    await store.read_summaries()
    back(data)
    for route in (routes.HISTORY, routes.SNAPSHOTS, routes.HISTORY):
        assert (await service.answer(Query(), route))[1] is CacheOutcome.INCOMPLETE
    assert len(service.memory) == 0 and service.from_memory(Query(), routes.HISTORY) is None
    await asyncio.gather(*service._writes)
    assert await client.keys(f"{ANSWER_PREFIX}*") == []
    await store.recover()
    answer, outcome = await service.answer(Query(), routes.HISTORY)
    assert outcome is CacheOutcome.MISS and b'"2023-12"' in answer.body
    await asyncio.gather(*service._writes)
    assert len(await client.keys(f"{ANSWER_PREFIX}*")) == 1
    assert await service.answer(Query(), routes.HISTORY) == (answer, CacheOutcome.HIT)


# --- over HTTP: history, the catalogue and /readyz during and after an outage ----------------------


@pytest.fixture
def servers(io_loop: IOLoop, data: Path) -> Iterator[tuple[ReadinessApplication, int, int]]:
    """The public app and the operations app of one process over ``data``, its current
    snapshot loaded; each on a free port of the test's IOLoop."""
    store = SnapshotStore(data, clock=Clock())
    store.load_current()
    memory = AnswerCache(Settings().cache_bytes)
    metrics = new_metrics(store, None, memory)
    lifecycle = Lifecycle()
    access = AccessLog(io.BytesIO())
    app = make_app(Settings(data_dir=data), store, metrics=metrics, lifecycle=lifecycle, memory=memory,
                   access=access)
    public = HTTPServer(app)
    admin = HTTPServer(make_admin_app(store, metrics, lifecycle, access, Settings().max_skipped_percent))
    public_port, admin_port = free_ports(2)
    public.listen(public_port, "127.0.0.1")
    admin.listen(admin_port, "127.0.0.1")
    yield app, public_port, admin_port
    for server in (public, admin):
        server.stop()


async def fetch(port: int, path: str) -> HTTPResponse:
    return await AsyncHTTPClient().fetch(f"http://127.0.0.1:{port}{path}", raise_error=False)


def shown(response: HTTPResponse, key: str) -> list[str]:
    """The snapshot ids a history (``snapshot``) or catalogue (``id``) answer shows."""
    assert response.code == 200, response.body
    return sorted({row[key] for row in orjson.loads(response.body)["data"]})


@gen_test
async def test_history_and_catalogue_during_an_outage_are_not_cached_and_readyz_warns(
    data: Path, servers: tuple[ReadinessApplication, int, int]
) -> None:
    app, port, admin = servers
    store = app.lane.service.store
    away(data)
    await store.read_summaries()  # start-up's fill fails for every archive
    back(data)  # the volume is back, but nothing reads the archives before the next poll

    for _ in range(2):  # each computed again, never kept
        history = await fetch(port, "/api/v1/history?fields=score")
        assert shown(history, "snapshot") == ["2026-11"]
        assert history.headers["Cache-Control"] == "no-store"
        catalogue = await fetch(port, "/api/v1/snapshots")
        assert shown(catalogue, "id") == ["2026-11"]
        assert catalogue.headers["Cache-Control"] == "no-store"
    assert [line["cache"] for line in access_lines(app)] == ["incomplete"] * 4
    assert len(app.lane.service.memory) == 0, "no incomplete answer in tier 1"
    ready = await fetch(admin, "/readyz")
    document = orjson.loads(ready.body)
    assert ready.code == 200 and document["snapshot"] == "2026-11"
    assert any("2023-12, 2024-12, 2025-12" in warning for warning in document["warnings"]), document

    await SnapshotWatcher(app.lane.service).refresh()  # the next poll
    assert "warnings" not in orjson.loads((await fetch(admin, "/readyz")).body)
    for outcome in ("miss", "hit"):
        history = await fetch(port, "/api/v1/history?fields=score")
        assert shown(history, "snapshot") == [*ARCHIVES, "2026-11"]
        assert history.headers["Cache-Control"].startswith("public, max-age=")
        assert access_lines(app)[-1]["cache"] == outcome
    assert shown(await fetch(port, "/api/v1/snapshots"), "id") == [*ARCHIVES, "2026-11"]
    assert (await fetch(port, "/api/v1/readiness?year=2024&code=AAA")).code == 200


@gen_test
async def test_archive_history_catalogue_and_reports_without_a_snapshot_are_503(
    tmp_path: Path, io_loop: IOLoop
) -> None:
    data = tmp_path / "empty"
    data.mkdir()
    store = SnapshotStore(data)
    assert store.load_current() is None
    server = HTTPServer(make_app(Settings(data_dir=data), store, access=AccessLog(io.BytesIO())))
    port = free_port()
    server.listen(port, "127.0.0.1")
    try:
        for path in ("/api/v1/readiness?year=2024", "/api/v1/indicators?year=2024", "/api/v1/readiness",
                     "/api/v1/history", "/api/v1/snapshots", "/api/v1/snapshots/2025-12/changes"):
            assert_error_envelope(await fetch(port, path), 503, "No snapshot is loaded")
    finally:
        server.stop()
