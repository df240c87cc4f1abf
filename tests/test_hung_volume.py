"""A hung snapshot volume in a real server.py process: a FIFO stands for a read that never
returns (a stuck NFS mount). /healthz and cached answers keep coming, the stuck read is
logged, and SIGTERM still stops the process."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import add_snapshot, flip
from tests.processes import Server, Start, fetch, launch, percentile, until

TIMEOUT_SECONDS = 2
"""READINESS_READ_TIMEOUT_SECONDS of the server under test."""

BOUND_SECONDS = 1.5
"""No probe or cached answer may take this long: about a thousand times their usual time, and
less than a stuck read's timeout, so it fails if a request ever waits for the volume."""

CACHED = "/api/v1/readiness?code=KEN"


def make_fifo(path: Path) -> None:
    """Replace ``path`` with a FIFO: opening it for reading blocks until a writer comes."""
    fifo = path.with_name(path.name + ".fifo")
    os.mkfifo(fifo)
    os.replace(fifo, path)


def hang_current(data: Path) -> None:
    make_fifo(data / "CURRENT")


def hang_country_file(data: Path) -> None:
    add_snapshot(data, "2026-12", kenya_score=99.5)
    make_fifo(data / "snapshots" / "2026-12" / "countries" / "BRA.json")
    flip(data, "2026-12")


def hang_archive_manifest(data: Path) -> None:
    make_fifo(data / "snapshots" / "2024-12" / "manifest.json")


@pytest.fixture
def data(sample_copy: Path) -> Path:
    return sample_copy


@pytest.fixture
def server(start: Start, data: Path, tmp_path: Path) -> Server:
    server = launch(start, tmp_path, {
        "READINESS_DATA_DIR": str(data),
        "READINESS_SNAPSHOT_POLL_SECONDS": "1",
        "READINESS_READ_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
    })
    # On a loaded machine the first read of the 217-economy sample can outlast the short read
    # timeout this test needs; the store then reads it again (with backoff). Start once it has.
    until(lambda: fetch(server.port, "/readyz")[0] == 200, 60, "the sample is loaded")
    return server


def latencies(server: Server, seconds: float, also: str | None = None) -> list[float]:
    """Alternate /healthz and a cached answer (and ``also``, not timed) for ``seconds``; each
    must answer 200. Returns the timed requests' latencies."""
    timed = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in ("/healthz", CACHED):
            began = time.monotonic()
            status, body = fetch(server.port, path, timeout=10)
            timed.append(time.monotonic() - began)
            assert status == 200, (path, status, body[:200])
        if also is not None:
            fetch(server.port, also, timeout=10)
    return timed


@pytest.mark.parametrize("hang", [hang_current, hang_country_file, hang_archive_manifest])
def test_hung_volume_probes_and_cached_answers_keep_coming_sigterm_stops(
    server: Server, data: Path, hang: Callable[[Path], None]
) -> None:
    assert fetch(server.port, CACHED)[0] == 200  # now in tier 1
    healthy = latencies(server, 2)
    hang(data)
    also = "/api/v1/readiness?year=2024" if hang is hang_archive_manifest else None
    hung = latencies(server, 3 * TIMEOUT_SECONDS, also)
    until(lambda: "timed out" in server.log.read_text(), 3 * TIMEOUT_SECONDS, "the stuck read is logged")
    status, body = fetch(server.port, "/readyz")
    assert status == 200 and json.loads(body)["snapshot"] == "2026-11"
    print(f"{hang.__name__}: p50 {percentile(healthy, 0.5) * 1000:.1f} ms, max {max(healthy) * 1000:.1f} ms "
          f"healthy; p50 {percentile(hung, 0.5) * 1000:.1f} ms, max {max(hung) * 1000:.1f} ms hung "
          f"({len(hung)} requests)")
    assert max(hung) < BOUND_SECONDS, f"a request waited {max(hung):.2f} s for the hung volume"

    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=30)
    assert server.process.returncode == 0
