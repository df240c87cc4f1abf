"""loaders.workers: thread pools that count the calls still running, idle threads not."""

from __future__ import annotations

import threading

import pytest

from loaders.workers import CountingExecutor, busy_workers


def test_a_running_call_is_busy_and_an_idle_thread_is_not() -> None:
    executor = CountingExecutor(2)
    other = CountingExecutor(1)
    release = threading.Event()
    try:
        before = busy_workers()
        running = executor.submit(release.wait, 10)
        assert executor.busy == 1 and other.busy == 0
        assert busy_workers() == before + 1  # summed over every executor of the process
        release.set()
        assert running.result(timeout=10) is True
        assert executor.busy == 0 and busy_workers() == before  # its thread lives on, idle
    finally:
        release.set()
        executor.shutdown()
        other.shutdown()


def test_a_call_that_raises_is_no_longer_busy() -> None:
    executor = CountingExecutor(1)
    try:
        failing = executor.submit(int, "not a number")
        with pytest.raises(ValueError, match="invalid literal"):
            failing.result(timeout=10)
        assert executor.busy == 0
    finally:
        executor.shutdown()
