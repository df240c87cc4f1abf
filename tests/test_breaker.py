"""CircuitBreaker, driven by a fake clock: no sleeping."""

from __future__ import annotations

from readiness.cache.breaker import CircuitBreaker
from tests.conftest import Clock


def test_breaker_closed_allows_calls_until_threshold() -> None:
    breaker = CircuitBreaker(failures=3, pause=5, clock=Clock(100.0))
    for _ in range(2):
        breaker.failure()
        assert breaker.allow() and not breaker.is_open
    breaker.failure()
    assert breaker.is_open and not breaker.allow()


def test_breaker_success_resets_the_count() -> None:
    breaker = CircuitBreaker(failures=2, pause=5, clock=Clock(100.0))
    breaker.failure()
    breaker.success()
    breaker.failure()
    assert not breaker.is_open


def test_breaker_open_lets_one_probe_per_pause() -> None:
    clock = Clock(100.0)
    breaker = CircuitBreaker(failures=1, pause=5, clock=clock)
    breaker.failure()
    clock.now += 4.9
    assert not breaker.allow()
    clock.now += 0.2
    assert breaker.allow()  # the probe
    assert not breaker.allow()  # only one per pause
    clock.now += 5
    assert breaker.allow()


def test_breaker_failed_probe_reopens_successful_probe_closes() -> None:
    clock = Clock(100.0)
    breaker = CircuitBreaker(failures=1, pause=5, clock=clock)
    breaker.failure()
    clock.now += 5
    assert breaker.allow()
    breaker.failure()
    assert breaker.is_open and not breaker.allow()
    clock.now += 5
    assert breaker.allow()
    breaker.success()
    assert not breaker.is_open and breaker.allow() and breaker.allow()
