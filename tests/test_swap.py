"""Snapshot swaps in real server.py processes: a swap empties the cache the service answers
from, a snapshot replaced under the same id is served, and a snapshot CURRENT names before
its directory exists is served once it does, with /readyz saying so meanwhile."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import orjson
import pytest
from tornado.httpclient import AsyncHTTPClient
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

from builder import Conflict, publish
from config import Settings
from loaders import SnapshotStore
from readiness.app import make_app
from readiness.freshness.watch import SnapshotWatcher
from readiness.http.logs import AccessLog
from tests.conftest import add_snapshot, copy_tree, flip, gen_test
from tests.processes import Server, Start, fetch, get, launch, until

KENYA = "/api/v1/readiness?code=KEN&fields=Composite%20Readiness%20Score"


def rewrite_kenya(directory: Path, score: float) -> None:
    """Change Kenya's composite in a snapshot directory, manifest checksum included."""
    path = directory / "countries" / "KEN.json"
    kenya = orjson.loads(path.read_bytes())
    kenya["Composite Readiness Score"] = score
    raw = orjson.dumps(kenya)
    path.write_bytes(raw)
    manifest = orjson.loads((directory / "manifest.json").read_bytes())
    manifest["checksums"]["KEN"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest))


def kenya_score(server: Server) -> object:
    status, body = fetch(server.port, KENYA)
    assert status == 200, body
    return json.loads(body)["data"]["Composite Readiness Score"]


def ready(server: Server) -> dict[str, object]:
    status, body = get(server.url("/readyz"))
    assert status == 200, body
    document: dict[str, object] = json.loads(body)
    return document


@pytest.fixture
def data(sample_copy: Path) -> Path:
    return sample_copy


@pytest.fixture
def server(start: Start, data: Path, tmp_path: Path) -> Server:
    return launch(start, tmp_path, {"READINESS_DATA_DIR": str(data), "READINESS_SNAPSHOT_POLL_SECONDS": "1"})


def test_swap_drops_the_old_snapshots_answers_from_the_served_cache(server: Server, data: Path) -> None:
    before = kenya_score(server)
    assert kenya_score(server) == before  # now a tier-1 hit
    add_snapshot(data, "2026-12", kenya_score=99.5)
    flip(data, "2026-12")
    until(lambda: kenya_score(server) == 99.5, 20, "the server serves the new snapshot")
    until(lambda: "dropped" in server.log.read_text(), 5, "the swap is logged")
    dropped = [json.loads(line)["message"] for line in server.log.read_text().splitlines()
               if line.startswith("{") and "dropped" in line]
    assert dropped and not any(message.startswith("dropped 0 ") for message in dropped), dropped


def test_publish_replace_same_id_is_served(server: Server, data: Path, tmp_path: Path) -> None:
    assert kenya_score(server) != 12.34
    assert kenya_score(server) != 12.34  # a tier-1 hit now: the cache must let it go
    replacement = tmp_path / "build" / "2026-11"
    shutil.copytree(data / "snapshots" / "2026-11", replacement)
    rewrite_kenya(replacement, 12.34)
    publish(replacement, data, conflict=Conflict.REPLACE, announce=lambda data_dir, snapshot_id: None)
    until(lambda: kenya_score(server) == 12.34, 20, "the server serves the replaced content of 2026-11")
    assert ready(server) == {"status": "ready", "snapshot": "2026-11"}


def test_current_naming_a_missing_directory_is_reported_then_served(
    server: Server, data: Path, tmp_path: Path
) -> None:
    add_snapshot(data, "2026-12", kenya_score=99.5)
    os.rename(data / "snapshots" / "2026-12", tmp_path / "2026-12")
    flip(data, "2026-12")
    until(lambda: "warnings" in ready(server), 20, "/readyz says CURRENT cannot be served")
    report = ready(server)
    assert report["snapshot"] == "2026-11" and "2026-12" in str(report["warnings"])
    assert server.metric("readiness_snapshot_current_unservable") == 1
    assert kenya_score(server) != 99.5
    os.rename(tmp_path / "2026-12", data / "snapshots" / "2026-12")
    until(lambda: kenya_score(server) == 99.5, 20, "the server serves 2026-12 once it exists")
    assert ready(server) == {"status": "ready", "snapshot": "2026-12"}
    assert server.metric("readiness_snapshot_current_unservable") == 0


# --- the same, in process: the app as server.py builds it ------------------------------------------


@asynccontextmanager
async def served(store: SnapshotStore) -> AsyncIterator[tuple[str, SnapshotWatcher]]:
    """``make_app`` over ``store`` with its default cache, as server.py builds it, listening on
    a free port; yields its base URL and the watcher server.py builds from it."""
    app = make_app(Settings(data_dir=store.data_dir), store, access=AccessLog(io.BytesIO()))
    sockets = bind_sockets(0, "127.0.0.1")
    server = HTTPServer(app)
    server.add_sockets(sockets)
    try:
        yield f"http://127.0.0.1:{sockets[0].getsockname()[1]}", SnapshotWatcher(app.lane.service)
    finally:
        server.stop()
        await server.close_all_connections()
        store.close()


async def http_json(url: str) -> tuple[int, dict[str, object]]:
    response = await AsyncHTTPClient().fetch(url, raise_error=False)
    document: dict[str, object] = json.loads(response.body)
    return response.code, document


@gen_test(timeout=60)
async def test_app_same_query_after_a_replace_gives_the_new_body(data: Path, tmp_path: Path) -> None:
    store = SnapshotStore(data)
    store.load_current()
    async with served(store) as (url, watcher):
        first = await http_json(url + KENYA)
        assert first == await http_json(url + KENYA)  # the second is a tier-1 hit
        replacement = copy_tree(data / "snapshots" / "2026-11", tmp_path / "2026-11")
        rewrite_kenya(replacement, 12.34)
        shutil.rmtree(data / "snapshots" / "2026-11")
        os.rename(replacement, data / "snapshots" / "2026-11")
        await watcher.refresh()
        assert len(watcher.service.memory) == 0, "the served cache lost the replaced answers"
        status, after = await http_json(url + KENYA)
    assert status == 200 and isinstance(after["data"], dict)
    assert after["data"]["Composite Readiness Score"] == 12.34 != first[1]["data"]["Composite Readiness Score"]  # type: ignore[index]


@gen_test(timeout=60)
async def test_app_snapshot_missing_files_counted_and_readyz_warns(data: Path) -> None:
    countries = data / "snapshots" / "2026-11" / "countries"
    for path in sorted(countries.iterdir())[:30]:
        path.unlink()
    store = SnapshotStore(data)
    store.load_current()
    async with served(store) as (url, watcher):
        status, report = await http_json(url + "/readyz")
        metrics = watcher.service.metrics.render().decode()
    assert status == 200 and report["snapshot"] == "2026-11"
    assert "without 30 of its 217 country files" in str(report["warnings"])
    assert 'readiness_snapshot_skipped_files{snapshot="2026-11"} 30.0' in metrics
    assert 'readiness_snapshot_loads_total{kind="current",outcome="disk"} 1.0' in metrics
