"""Every wait of a fetch said, as it happens (docs/PUBLISHING.md#progress-and-timings).

A request that fails is tried again after a wait, and a request may hang until its timeout: a
source that hangs on every try holds one request for about three minutes (5 tries of 30 s and
30 s of waits), and a source that drops every connection for 30 s of waits. Both used to be
silent until the fetch failed. ``Waits`` knows what each fetch thread is waiting on and says it:
a line per retry (what, which try failed and why, the wait before the next), and while a
request or a wait goes on, a line every ``every`` seconds from a watchdog thread.

The first request of the fetch to fail stops the others: their waits end at once (``Stopped``)
and a request under way ends at its timeout, so the fetch fails promptly, saying which requests
it is still waiting for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

Say = Callable[[str], None]
"""Where the lines go (``builder.progress.Progress.waiting``); called from any thread."""

Wait = Callable[[float], None]
"""How a wait between tries is spent (a test records the waits instead)."""


class Stopped(Exception):
    """A request given up because another request of the fetch failed."""


@dataclass(slots=True)
class _Asked:
    """What one fetch thread waits on: a request's try, or the wait before its next try."""

    what: str
    """``SP.POP.TOTL page 1``."""
    attempt: int
    """The try under way, or the one the wait is before (1: the first)."""
    since: float
    said: float
    """When a line last said it (the watchdog's next line is ``every`` seconds after)."""
    wait: float | None = None
    """None: a request under way; else the length of the wait before try ``attempt``."""


class Waits:
    """What each fetch thread is waiting on, said as lines (safe to call from any thread).

    ``retries`` and ``timeout`` are the source's (for the lines); ``every`` is the longest
    silence while a request hangs or a wait goes on; ``wait`` spends the waits between tries
    (default: a wait that a failure elsewhere in the fetch cuts short).
    """

    def __init__(
        self,
        say: Say,
        *,
        retries: int,
        timeout: float,
        every: float = 10.0,
        wait: Wait | None = None,
    ) -> None:
        self._say = say
        self._tries = retries + 1
        self._timeout = timeout
        self._every = every
        self._wait = wait
        self._changed = threading.Condition()
        self._asked: dict[int, _Asked] = {}
        self._stopped = threading.Event()
        self._watching = False
        self.failed: str | None = None
        """The first request that failed (what ``stop`` was told), None while none did."""

    def asking(self, what: str) -> None:
        """This thread starts a request (its first try). Raises Stopped once the fetch failed."""
        if self._stopped.is_set():
            raise Stopped(what)
        now = time.monotonic()
        with self._changed:
            self._asked[threading.get_ident()] = _Asked(what, 1, now, now)
            self._changed.notify()

    def retrying(self, cause: str, seconds: float) -> None:
        """This thread's try failed (``cause``) and the next one comes after ``seconds``."""
        now = time.monotonic()
        with self._changed:
            asked = self._asked.get(threading.get_ident())
            if asked is None or self._stopped.is_set():
                return  # stopped: the wait raises at once, and ``stop`` said why
            self._say(f"{asked.what}: try {asked.attempt} of {self._tries} failed ({cause}); "
                      f"retry {asked.attempt} of {self._tries - 1} in {seconds:g} s")
            asked.attempt += 1
            asked.since = asked.said = now
            asked.wait = seconds
            self._changed.notify()

    def wait(self, seconds: float) -> None:
        """Spend the wait before this thread's next try. Raises Stopped when the fetch failed
        meanwhile (the wait ends at once then)."""
        if self._wait is not None:
            self._wait(seconds)
        else:
            self._stopped.wait(seconds)
        if self._stopped.is_set():
            raise Stopped("the fetch failed")
        now = time.monotonic()
        with self._changed:
            asked = self._asked.get(threading.get_ident())
            if asked is not None:
                asked.since = asked.said = now
                asked.wait = None
                self._changed.notify()

    def done(self) -> None:
        """This thread's request ended (answered, or failed)."""
        with self._changed:
            self._asked.pop(threading.get_ident(), None)
            self._changed.notify()

    def stop(self, what: str) -> None:
        """Request ``what`` failed: stop the others, and say which ones the fetch still waits for."""
        with self._changed:
            if self._stopped.is_set():
                return
            self.failed = what
            self._stopped.set()
            others = sorted(asked.what for ident, asked in self._asked.items()
                            if ident != threading.get_ident())
            if others:
                self._say(f"stopping: {what} failed; waiting for {len(others)} request(s) under way to "
                          f"end (at their timeout, {self._timeout:g} s, at most): {', '.join(others)}")
            self._changed.notify()

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Run the watchdog while the block runs: a line about each request or wait that has
        gone on ``every`` seconds since the last line about it."""
        with self._changed:
            self._watching = True
        watchdog = threading.Thread(target=self._watch, name="fetch-watchdog", daemon=True)
        watchdog.start()
        try:
            yield
        finally:
            with self._changed:
                self._watching = False
                self._changed.notify()
            watchdog.join()

    def _watch(self) -> None:
        with self._changed:
            while self._watching:
                now = time.monotonic()
                for asked in self._asked.values():
                    if now - asked.said >= self._every:
                        self._say(self._still(asked, now))
                        asked.said = now
                due = min((asked.said + self._every for asked in self._asked.values()), default=None)
                self._changed.wait(None if due is None else max(0.0, due - time.monotonic()))

    def _still(self, asked: _Asked, now: float) -> str:
        """The watchdog's line about ``asked``, ``now``."""
        if asked.wait is not None:
            left = max(0.0, asked.since + asked.wait - now)
            return f"{asked.what}: retry {asked.attempt - 1} of {self._tries - 1} in {left:.1f} s"
        stopping = " (stopping: another request failed)" if self._stopped.is_set() else ""
        return (f"{asked.what}: no answer yet, {now - asked.since:.1f} s into try {asked.attempt} of "
                f"{self._tries} (timeout {self._timeout:g} s){stopping}")
