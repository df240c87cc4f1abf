"""Benchmark: what an archive evicted from the LRU costs when it is asked for again.

Before: every reload read the archive's files again (checksums, JSON Schema validation of each
country file, confidence keys removed), about a second of CPU on a busy machine. Now the store
keeps every archive it has read packed (``loaders.compact``) and revives it after checking the
manifest's digest. Both are timed in the same run, on the bundled sample's December archives,
in CPU time of this process (what the server's other requests wait for), and reported as
medians and a ratio. A third figure: ``store.archive`` alternating between three years with
one archive slot, each call a revival.

``--cycling``: a real server.py (default settings, no Redis) on a copy of the sample while
another process asks for every snapshot the catalogue lists with ``snapshot=`` in turn; the
current snapshot's answers are timed meanwhile, and against the same requests with nothing else
running (the ratio). Two kinds of cycling: the same few queries per snapshot again and again
(after the first round every answer is in tier 1), and a new query on every request (every one
a miss). ``/metrics`` says how many archive reads (from the files or the packed form) the
cycling cost: one per request would be the LRU thrashing.

    .venv/bin/python bench/archives.py [--runs N]
    .venv/bin/python bench/archives.py --cycling [--calls N] [--rate R] [--slots S]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.client
import itertools
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from support import (  # first: it puts the repository root on sys.path
    HOST,
    SAMPLE_DIR,
    Process,
    answering,
    call_seconds,
    free_port,
    make_data_dir,
    metrics,
    server_argv,
    server_env,
)

from loaders import Snapshot, SnapshotStore, load_snapshot, manifest_digest  # noqa: E402
from loaders.compact import Packed  # noqa: E402

YEARS = ("2023-12", "2024-12", "2025-12")


def cpu_ms(work: Callable[[], object], runs: int) -> list[float]:
    """CPU milliseconds of each of ``runs`` calls of ``work``."""
    return [call_seconds(work, time.process_time) * 1000 for _ in range(runs)]


def revive_packed(directory: Path, packed: Packed) -> Snapshot:
    """What the store does for an evicted archive: check the manifest's digest, unpack."""
    assert manifest_digest(directory) == packed.identity
    return packed.unpack()


async def alternate(runs: int) -> list[float]:
    """CPU milliseconds per ``store.archive`` call, years alternating over one slot."""
    store = SnapshotStore(SAMPLE_DIR, archive_slots=1)
    store.load_current()
    for year in YEARS:  # each read from its files once
        await store.archive(year)
    times = []
    for index in range(runs):
        began = time.process_time()
        assert await store.archive(YEARS[index % len(YEARS)]) is not None
        times.append((time.process_time() - began) * 1000)
    store.close()
    assert store.counts.loads[("archive", "disk")] == len(YEARS), store.counts.loads
    return times


CURRENT_PATHS = ("/api/v1/readiness", "/api/v1/readiness?region=SSA", "/api/v1/indicators?code=KEN")
"""The current snapshot's answers timed: cached after their first request (the common case)."""
CYCLED_QUERIES = ("/api/v1/readiness?fields=score{pin}", "/api/v1/indicators?code=KEN{pin}",
                  "/api/v1/readiness?region=SSA{pin}")
"""The repeated cycling's queries, each asked of every listed snapshot in turn (``{pin}`` is
``&snapshot=<id>``), or of the current snapshot in the control phases (``{pin}`` empty)."""
LOADS = ('readiness_snapshot_loads_total{kind="archive",outcome="packed"}',
         'readiness_snapshot_loads_total{kind="archive",outcome="disk"}')


def _get(connection: http.client.HTTPConnection, path: str) -> int:
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response.status


def timed_current(port: int, calls: int) -> list[float]:
    """Milliseconds of each of ``calls`` current-snapshot requests on one keep-alive connection."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    times = []
    try:
        for path in itertools.islice(itertools.cycle(CURRENT_PATHS), calls):
            began = time.perf_counter()
            assert _get(connection, path) == 200, path
            times.append((time.perf_counter() - began) * 1000)
    finally:
        connection.close()
    return times


def _cycled_paths(ids: list[str] | None, fresh: bool) -> Iterator[str]:
    """Forever: every listed id in turn with snapshot= (``ids``), or the current snapshot (None);
    the same queries again and again, or (``fresh``) a new query each time (a cache miss)."""
    pins = [""] if ids is None else [f"&snapshot={snapshot_id}" for snapshot_id in ids]
    if not fresh:
        yield from itertools.cycle(query.format(pin=pin) for query in CYCLED_QUERIES for pin in pins)
    for number in itertools.count():
        yield f"/api/v1/readiness?limit={1 + number // len(pins) % 1000}{pins[number % len(pins)]}"


def _cycle(port: int, ids: list[str] | None, fresh: bool, rate: float, stop: object, done: object) -> None:
    """The cycling client, at most ``rate`` requests a second (in a process of its own, so it
    takes no CPU from the timed client's process)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    began = time.perf_counter()
    for number, path in enumerate(_cycled_paths(ids, fresh)):
        if stop.is_set():  # type: ignore[attr-defined]
            done.value = number  # type: ignore[attr-defined]
            break
        time.sleep(max(0.0, began + number / rate - time.perf_counter()))
        assert _get(connection, path) == 200, path
    connection.close()


def cycling(calls: int, rate: float, slots: int | None) -> None:
    """Current-snapshot latency alone, then while another client cycles: the current snapshot
    (the control: the same load without archives), then every catalogue id with snapshot=."""
    with tempfile.TemporaryDirectory() as scratch:
        data, _, description = make_data_dir(Path(scratch) / "data")
        port, admin = free_port(), free_port()
        settings = {} if slots is None else {"READINESS_ARCHIVE_SLOTS": str(slots)}
        env = server_env(admin, **settings)
        server = Process("server", server_argv(port, data), env, Path(scratch) / "server.log", admin)
        try:
            answering(server, port)
            connection = http.client.HTTPConnection(HOST, port, timeout=60)
            connection.request("GET", "/api/v1/snapshots")
            ids = [entry["id"] for entry in json.loads(connection.getresponse().read())["data"]]
            connection.close()
            slots_said = "the default READINESS_ARCHIVE_SLOTS" if slots is None else f"READINESS_ARCHIVE_SLOTS={slots}"
            print(f"cycling snapshot= over every catalogue id ({', '.join(reversed(ids))}) with {slots_said}, "
                  f"of {description};\n{calls} current requests timed per phase, "
                  f"the cycling client at most {rate:g} requests/s")
            timed_current(port, len(CURRENT_PATHS))  # their first, uncached answers
            warm = http.client.HTTPConnection(HOST, port, timeout=60)
            for snapshot_id in ids:  # each archive read from its files once, and packed, before timing
                assert _get(warm, f"/api/v1/readiness?snapshot={snapshot_id}&limit=1") == 200
            warm.close()
            alone = timed_current(port, calls)
            print(f"  {'current requests alone':54} median {statistics.median(alone):6.2f} ms          "
                  f"p99 {_p99(alone):6.2f} ms")
            context = multiprocessing.get_context("fork")
            for cycled, fresh in ((None, False), (ids, False), (None, True), (ids, True)):
                before = metrics(admin)
                stop, done = context.Event(), context.Value("i", 0)
                cycler = context.Process(target=_cycle, args=(port, cycled, fresh, rate, stop, done))
                cycler.start()
                during = timed_current(port, calls)
                stop.set()
                cycler.join(60)
                after = metrics(admin)
                packed, disk = (after.get(name, 0) - before.get(name, 0) for name in LOADS)
                what = ("the current snapshot" if cycled is None else "snapshot=every id") + (
                    ", a new query each" if fresh else ", repeated queries")
                print(f"  {'while cycling ' + what:54} median {statistics.median(during):6.2f} ms "
                      f"(x{statistics.median(during) / statistics.median(alone):.2f})   p99 {_p99(during):6.2f} ms "
                      f"(x{_p99(during) / _p99(alone):.2f});   {done.value} cycled requests, archive reads: "
                      f"{packed:.0f} packed, {disk:.0f} from files")
        finally:
            server.stop()


def _p99(times: list[float]) -> float:
    return sorted(times)[max(0, int(len(times) * 0.99) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--cycling", action="store_true", help="cycle every catalogue id against a server")
    parser.add_argument("--calls", type=int, default=3000, help="current requests timed per phase (--cycling)")
    parser.add_argument("--rate", type=float, default=40, help="the cycling client's requests/s at most (--cycling)")
    parser.add_argument("--slots", type=int, help="the server's READINESS_ARCHIVE_SLOTS (--cycling; default: its own)")
    arguments = parser.parse_args()
    if arguments.cycling:
        cycling(arguments.calls, arguments.rate, arguments.slots)
        return 0
    runs = arguments.runs
    print(f"archives of {SAMPLE_DIR}: {', '.join(YEARS)}; CPU ms per reload, "
          f"median of {runs} runs each")
    for year in YEARS:
        directory = SAMPLE_DIR / "snapshots" / year
        snapshot = load_snapshot(directory)
        packed = Packed.of(snapshot, manifest_digest(directory) or "")
        disk = statistics.median(cpu_ms(functools.partial(load_snapshot, directory), runs))
        revive = statistics.median(cpu_ms(functools.partial(revive_packed, directory, packed), runs * 5))
        print(f"  {year}: from files {disk:7.1f} ms   packed {revive:5.1f} ms ({len(packed.data) / 1000:.0f} KB)"
              f"   ratio {disk / revive:5.1f}x")
    alternating = asyncio.run(alternate(runs * 3))
    print(f"store.archive, 3 years over 1 slot: median {statistics.median(alternating):.1f} ms CPU per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
