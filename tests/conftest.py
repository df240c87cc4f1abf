"""Shared fixtures: tiny snapshots for domain tests, the real app for HTTP tests, and the
one seam between the suite and pytest-tornado.

The suite's rules (docs/TESTING.md): every async test runs under ``gen_test``, whose timeout
fails it instead of letting it hang; a test slow by nature says so with ``gen_test(timeout=N)``;
nothing sleeps to let something happen, it awaits it or polls with a generous deadline; a test
builds tiny snapshots (``tiny_data``) unless the size of the 217-economy sample is its point.

pytest-tornado
--------------
The tests use pytest-tornado only through this module: the ``gen_test`` marker below and five
fixtures, ``io_loop``, ``http_port``, ``base_url``, ``http_server`` and ``http_client``, which
override the plugin's under the same names (each takes the plugin's and returns it). pytest-
tornado needs ``setuptools<81`` (it imports ``pkg_resources``) and registers its hooks in a way
pytest 10 removes. To replace it, change this file only:

1. Give the five fixtures bodies of their own (a fresh ``IOLoop`` made current and closed after
   the test; ``tornado.testing.bind_unused_port()``; ``HTTPServer(app)`` on that socket, stopped
   after the test; an ``AsyncHTTPClient`` closed after the test; ``http://127.0.0.1:<port>``).
2. Register the ``gen_test`` marker (``pytest_configure``) and run marked tests with a
   ``pytest_pyfunc_call`` hook: ``io_loop.run_sync(lambda: test(**arguments), timeout=...)``
   with the marker's ``timeout`` (every use here gives one: ``gen_test`` sets ASYNC_TIMEOUT).
3. Remove pytest-tornado and ``setuptools<81`` from requirements-dev.txt and the warning
   filters that name them from pyproject.toml.

``tests/test_suite_rules.py`` checks that no other test module names pytest-tornado.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import io
import os
import shutil
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import hypothesis
import orjson
import pytest
import redis
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop
from tornado.web import Application

from builder import Economy, Release, build_snapshot
from config import Settings
from loaders import Country, JsonValue, Snapshot, SnapshotStore, reader
from readiness import work
from readiness.app import make_app
from readiness.budget import FairBudget
from readiness.http.handlers import DataHandler
from readiness.http.logs import AccessLog
from tests.builder_world import STANDARD, world
from tests.workers import TEST_REDIS

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = Settings().data_dir


# --- the order of the modules --------------------------------------------------------------

HEAVIEST_FIRST: tuple[str, ...] = (
    "test_openapi_fuzz.py", "test_openapi.py", "test_pages_axe.py", "test_pages_browser.py", "test_k8s.py",
    "test_pages_explorer.py", "test_pages_country.py", "test_edge.py", "test_pages_map.py", "test_store_faults.py",
    "test_data_routes.py", "test_rewarm.py", "test_builder_refresh.py", "test_server.py", "test_redis_faults.py",
    "test_pages_charts.py", "test_packaging.py", "test_swap.py", "test_hung_volume.py", "test_live_swap.py",
    "test_pages_compare.py", "test_generated_client.py", "test_handlers.py", "test_reader.py",
)
"""The modules that keep a worker longest (measured: docs/TESTING.md#running-in-parallel), longest
first. They are collected first, so that pytest-xdist (which hands out whole modules in the order
they were collected) starts them first and the many short modules fill in around them: the run
then ends when the work does, not when a long module handed out last does. A module not listed
keeps its place after them; a name that no longer exists changes nothing."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the collected tests by HEAVIEST_FIRST, each module's own order kept."""
    rank = {name: position for position, name in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


# --- property tests -----------------------------------------------------------------------


hypothesis.settings.register_profile("suite", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile("suite")
"""Hypothesis' timing checks off for every property test: its 200 ms deadline per example and
its too_slow health check are wall-clock bounds on what is not a latency under test, and fail
a test at random on a machine that runs several workers at once (docs/TESTING.md). A test's
own ``@settings`` (max_examples, derandomize) applies on top."""


# --- the seam to pytest-tornado (see the module docstring) --------------------------------

ASYNC_TIMEOUT = 30.0
"""Seconds an async test may take unless it says otherwise: a guard against a hang, far above
what a test here takes. 30, not 10: with the suite's workers sharing two cores (and any other
load), tests that read the 217-economy sample a few times took over 10 s."""

gen_test = pytest.mark.gen_test(timeout=ASYNC_TIMEOUT)
"""Run an ``async def`` test on the test's own IOLoop, failing it after ASYNC_TIMEOUT seconds;
``@gen_test(timeout=60)`` for a test slow by nature (say why next to it)."""


async def eventually(
    condition: Callable[[], bool | Awaitable[bool]], what: str, seconds: float = ASYNC_TIMEOUT / 2
) -> None:
    """Poll ``condition`` (a function or a coroutine function) on the event loop until it
    holds; fail naming ``what`` after ``seconds``. For what another task or process does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = condition()
        if await result if inspect.isawaitable(result) else result:
            return
        if loop.time() > deadline:
            pytest.fail(f"not within {seconds} s: {what}")
        await asyncio.sleep(0.01)


@pytest.fixture
def io_loop(io_loop: IOLoop) -> IOLoop:
    """The test's own IOLoop, current while it runs and closed after it (pytest-tornado's)."""
    return io_loop


@pytest.fixture
def http_port(http_port: int) -> int:
    """The free port ``http_server`` listens on (pytest-tornado's)."""
    return http_port


@pytest.fixture
def base_url(base_url: str) -> str:
    """``http://localhost:<http_port>`` (pytest-tornado's)."""
    return base_url


@pytest.fixture
def http_server(http_server: HTTPServer) -> HTTPServer:
    """The ``app`` fixture's application served on ``http_port``, stopped after the test
    (pytest-tornado's)."""
    return http_server


@pytest.fixture
def http_client(http_client: AsyncHTTPClient) -> AsyncHTTPClient:
    """An AsyncHTTPClient for ``http_server``, closed after the test (pytest-tornado's)."""
    return http_client


def links(header: str | None) -> dict[str, str]:
    """A ``Link`` header's URLs by relation (``{"next": "/api/v1/...", "last": ...}``); none for None."""
    found = {}
    for link in (header or "").split(", ") if header else ():
        url, _, rel = link.partition(">; rel=")
        found[rel.strip('"')] = url.removeprefix("<")
    return found


def country(code: str, name: str, region: str = "Sub-Saharan Africa", **fields: JsonValue) -> Country:
    """A Country with the given fields (keys with spaces via ``**{"Income Level": ...}``)."""
    record: dict[str, JsonValue] = {"Country Name": name, "Country Code": code, "Region": region}
    record.update({key.replace("_", " "): value for key, value in fields.items()})
    details: tuple[dict[str, JsonValue], ...] = (
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
def sample_copy(tmp_path: Path) -> Path:
    """A copy of the bundled sample's data directory that a test may change or damage."""
    return copy_tree(SAMPLE, tmp_path / "data")


def summarized_sample() -> SnapshotStore:
    """A store over the sample with its current snapshot loaded and every snapshot's summary
    read: history, the catalogue and aggregates read all six snapshots on a fresh store
    (seconds each on a busy machine), so a module shares one."""
    store = SnapshotStore(SAMPLE)
    store.load_current()
    # On a thread of its own: asyncio.run on the main thread upsets pytest-tornado's loops.
    reader = threading.Thread(target=asyncio.run, args=(store.summaries(),), name="warm-store")
    reader.start()
    reader.join(300)
    assert store.summaries_now() is not None
    return store


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
    """The response is the error envelope (docs/API.md#the-response) with this status and message fragments."""
    assert response.code == status, response.body
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    parsed = body(response)
    assert set(parsed) == {"apiVersion", "error"}
    assert parsed["apiVersion"] == "1"
    message = parsed["error"]
    assert isinstance(message, str)
    for fragment in fragments:
        assert fragment in message, message


class Clock:
    """A clock the test moves by hand (``clock.now += 5``), for code that takes a clock."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def budget_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock of every compute budget built during the test, standing still unless the test
    moves it: a computation slowed by a busy machine refills nothing between two requests."""
    clock = Clock(100.0)
    monkeypatch.setattr(work, "FairBudget", functools.partial(FairBudget, clock=clock))
    return clock


def copy_tree(source: Path, target: Path) -> Path:
    """Copy a data directory so a test can damage it."""
    shutil.copytree(source, target)
    return target


# --- tiny data directories ----------------------------------------------------------------

TINY_IDS = ("2023-12", "2024-12", "2025-12", "2026-11")
"""The snapshots of ``tiny_data``: three Decembers (archives for year=2023..2025) and 2026-11."""


def place_snapshot(data: Path, snapshot_id: str, positions: Mapping[Economy, float] = STANDARD) -> Path:
    """Build a snapshot of the tiny world (tests/builder_world.py) into ``data/snapshots``,
    as the publisher places it before flipping CURRENT; CURRENT is not touched."""
    release = Release.parse(snapshot_id, None, "SYNTHETIC: test data")
    return build_snapshot(world(positions, year=release.year), release, data / "snapshots").directory


def tiny_data(data: Path, snapshot_ids: tuple[str, ...] = TINY_IDS, current: str = TINY_IDS[-1]) -> Path:
    """A data directory of tiny snapshots (five economies each, milliseconds to build and to
    load), CURRENT naming ``current``: for every test where the sample's size is not the point."""
    for snapshot_id in snapshot_ids:
        place_snapshot(data, snapshot_id)
    flip(data, current)
    return data


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The snapshot ids a SnapshotStore reads from disk, in order; the real reader reads them."""
    seen: list[str] = []

    def counting(directory: Path) -> Snapshot:
        seen.append(directory.name)
        return reader.load_snapshot(directory)

    monkeypatch.setattr("loaders.store.load_snapshot", counting)
    return seen


def flip(data: Path, snapshot_id: str) -> None:
    """Replace CURRENT atomically, as the publisher does."""
    data.mkdir(parents=True, exist_ok=True)
    (data / "CURRENT.tmp").write_text(snapshot_id + "\n")
    os.replace(data / "CURRENT.tmp", data / "CURRENT")


def add_snapshot(data: Path, snapshot_id: str, kenya_score: float) -> None:
    """Copy the data directory's 2026-11 snapshot as ``snapshot_id`` with Kenya's composite
    changed (and its checksum with it), for tests that need a second real-size snapshot."""
    target = data / "snapshots" / snapshot_id
    copy_tree(data / "snapshots" / "2026-11", target)
    kenya = orjson.loads((target / "countries" / "KEN.json").read_bytes())
    kenya["Composite Readiness Score"] = kenya_score
    raw = orjson.dumps(kenya)
    (target / "countries" / "KEN.json").write_bytes(raw)
    manifest = orjson.loads((target / "manifest.json").read_bytes())
    manifest["id"] = snapshot_id
    manifest["checksums"]["KEN"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (target / "manifest.json").write_bytes(orjson.dumps(manifest))


NO_SKIPS = "READINESS_NO_SKIPS"
"""The one switch (``.ci/run`` sets it) that turns every skip for a missing service or tool
(Redis, redis-server, kubectl, a browser) into a failure, so CI always runs every test."""


def unavailable(reason: str, *, whole_module: bool = False) -> NoReturn:
    """Skip a test whose service or tool is missing, printing why; fail it under NO_SKIPS.

    ``whole_module`` skips the calling test module at import, reported once rather than once
    per test; a module doing so must not call it under NO_SKIPS (its tests then fail one by
    one through their fixtures, as failing at import would stop the whole run).
    """
    if os.environ.get(NO_SKIPS):
        pytest.fail(f"{reason} ({NO_SKIPS} is set)")
    print(reason)
    pytest.skip(reason, allow_module_level=whole_module)


REAL_REDIS = TEST_REDIS
"""The machine's Redis, at this worker's database: READINESS_TEST_REDIS_URL's (12 unless it
names another) plus the worker's number (tests/workers.py), so that workers, and two runs
given databases that do not overlap, never flush each other's. When none answers there, the
suite starts a redis-server of its own instead (``shared_redis_url``, tests/processes.py)."""


@pytest.fixture
def real_redis_url(shared_redis_url: str) -> Iterator[str]:
    """A real Redis (REAL_REDIS, or the session's own redis-server), flushed before and after
    the test; ``unavailable`` when there is neither."""
    with redis.Redis.from_url(shared_redis_url, socket_connect_timeout=1) as client:
        client.flushdb()
        yield shared_redis_url
        client.flushdb()


@pytest.fixture
def handlers_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests for which a DataHandler (a data route's handler) was built."""
    built: list[str] = []
    initialize = DataHandler.initialize

    def counting(self: DataHandler, **kwargs: Any) -> None:
        built.append(self.request.path)
        initialize(self, **kwargs)

    monkeypatch.setattr(DataHandler, "initialize", counting)
    return built


def scrape(app: Application) -> str:
    """What ``/metrics`` on the operations port shows for ``app`` (it shares the app's metrics)."""
    return str(app.settings["log_function"].metrics.render().decode())
