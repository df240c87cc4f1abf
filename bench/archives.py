"""Benchmark: what an archive evicted from the LRU costs when it is asked for again.

Before: every reload read the archive's files again (checksums, JSON Schema validation of each
country file, confidence keys removed), about a second of CPU on a busy machine. Now the store
keeps every archive it has read packed (``loaders.compact``) and revives it after checking the
manifest's digest. Both are timed in the same run, on the bundled sample's December archives,
in CPU time of this process (what the server's other requests wait for), and reported as
medians and a ratio. A third figure: ``store.archive`` alternating between three years with
one archive slot, each call a revival.

    .venv/bin/python bench/archives.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from support import SAMPLE_DIR, call_seconds  # first: it puts the repository root on sys.path

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
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
