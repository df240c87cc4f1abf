"""A circuit breaker: stop calling a failing dependency, probe it again after a pause."""

from __future__ import annotations

import time
from collections.abc import Callable


class CircuitBreaker:
    """Opens after ``failures`` consecutive failures; while open, lets one call through per
    ``pause`` seconds as a probe, and closes on the first success (Redis is never on the
    critical path, docs/CACHING.md#redis-is-never-on-the-critical-path, so a dead Redis costs
    one timeout per pause, not one per request).
    """

    def __init__(self, failures: int, pause: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = failures
        self.pause = pause
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None

    @property
    def is_open(self) -> bool:
        """True while calls are being refused (between probes)."""
        return self._opened_at is not None

    def allow(self) -> bool:
        """Whether to make a call now; an allowed call while open is the pause's one probe."""
        if self._opened_at is None:
            return True
        now = self._clock()
        if now - self._opened_at >= self.pause:
            self._opened_at = now  # the next probe waits another pause, whatever this one does
            return True
        return False

    def success(self) -> None:
        """A call worked: close."""
        self._failures = 0
        self._opened_at = None

    def failure(self) -> None:
        """A call failed: open once the threshold is reached, or again after a failed probe."""
        self._failures += 1
        if self._failures >= self.threshold:
            self._opened_at = self._clock()
