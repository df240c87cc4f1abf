"""loaders.bounded: reads off the event loop, bounded in time and shared while they run."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import pytest

from loaders.bounded import BoundedReads, ReadTimeout
from tests.conftest import gen_test


@gen_test
async def test_concurrent_reads_of_one_thing_share_one_run(tmp_path: Path) -> None:
    reads = BoundedReads(tmp_path, timeout=10)
    release = threading.Event()
    runs: list[str] = []

    def work() -> str:
        runs.append("run")
        release.wait(10)
        return "bytes"

    try:
        waiting = [asyncio.ensure_future(reads.run("CURRENT", work)) for _ in range(5)]
        other = asyncio.ensure_future(reads.run("snapshots/", lambda: "listing"))
        assert await other == "listing"  # another thing is not held up behind it
        release.set()
        assert await asyncio.gather(*waiting) == ["bytes"] * 5
        assert runs == ["run"]
        assert await reads.settled(1)
    finally:
        release.set()
        reads.close()


@gen_test
async def test_a_stuck_read_times_out_is_logged_once_and_is_not_waited_for_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reads = BoundedReads(tmp_path, timeout=0.2)
    release = threading.Event()
    try:
        with caplog.at_level(logging.WARNING, logger="readiness.loaders"):
            with pytest.raises(ReadTimeout, match="reading CURRENT has not finished"):
                await reads.run("CURRENT", lambda: release.wait(10))
            loop = asyncio.get_running_loop()
            began = loop.time()
            with pytest.raises(ReadTimeout):  # the same read, still stuck: no second wait
                await reads.run("CURRENT", lambda: release.wait(10))
            assert loop.time() - began < 0.1
            assert await reads.quietly("CURRENT", lambda: release.wait(10)) is None
            assert not await reads.settled(0.05)  # a stop would leave it behind
            release.set()
            assert await reads.settled(5)
        timeouts = [r for r in caplog.records if "timed out" in r.getMessage()]
        assert len(timeouts) == 1 and timeouts[0].levelno == logging.ERROR
        assert any("finished after all" in r.getMessage() for r in caplog.records)
        assert await reads.run("CURRENT", lambda: "fresh") == "fresh"  # a new read once it ended
    finally:
        release.set()
        reads.close()


@gen_test
async def test_a_read_that_raises_raises_to_every_caller(tmp_path: Path) -> None:
    reads = BoundedReads(tmp_path, timeout=5)

    def broken() -> None:
        raise OSError("input/output error")

    try:
        results = await asyncio.gather(reads.run("m", broken), reads.run("m", broken), return_exceptions=True)
        assert all(isinstance(result, OSError) for result in results)
        assert await reads.settled(1)
    finally:
        reads.close()
