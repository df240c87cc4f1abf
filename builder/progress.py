"""What the refresh is doing, while it does it (docs/PUBLISHING.md#progress-and-timings).

Each step (fetch, build, check, then the publish's copy, warm and flip) says when it starts,
and when it ends how long it took and what it found, or that it failed. The fetch says one
line per series as it completes: rows, pages, seconds and retries; and one per retry and every
few seconds of a request or a wait still going on (``builder.waits``). Every line starts with the
UTC time of day. On a terminal a tqdm bar counts the fetched series under those lines;
anywhere else (the CronJob's log) there is no bar, only the lines, each flushed as it is
written.
"""

from __future__ import annotations

import datetime
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm


@dataclass(frozen=True, slots=True)
class Fetch:
    """One paged request, done: what it was (a series code, or ``country`` for the economy
    list), how many rows and pages it gave, how long it took and how many retries it needed."""

    label: str
    rows: int
    pages: int
    seconds: float
    retries: int


@dataclass(slots=True)
class Step:
    """A step under way; ``result`` (set by the step's code) ends its closing line."""

    name: str
    result: str = ""


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class Progress:
    """Lines about the steps and the fetched series, written to ``stream`` (None: nowhere).

    ``bar``: show a bar over the fetch (default: when ``stream`` is a terminal). ``clock``
    times the steps (seconds, monotonic); ``wall`` gives the time of day of each line. Safe to
    call from the fetch's threads.
    """

    def __init__(
        self,
        stream: TextIO | None,
        *,
        bar: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime.datetime] = _utc_now,
    ) -> None:
        self._stream = stream
        self._bar_wanted = bar if bar is not None else bool(stream is not None and stream.isatty())
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._bar: tqdm[NoReturn] | None = None
        self._counted = 0
        self._total = 0

    @classmethod
    def quiet(cls) -> Progress:
        """Progress that writes nothing (a library call without a log)."""
        return cls(None)

    @classmethod
    def to_stderr(cls) -> Progress:
        """What the commands use: lines on stderr, a bar when it is a terminal."""
        return cls(sys.stderr)

    def say(self, step: str, text: str) -> None:
        """One line: ``HH:MM:SS step: text``."""
        with self._lock:
            self._write(step, text)

    def _write(self, step: str, text: str) -> None:
        """Write one line (the lock held): above the bar if there is one."""
        if self._stream is None:
            return
        line = f"{self._wall().astimezone(datetime.UTC):%H:%M:%S} {step}: {text}"
        if self._bar is not None:
            self._bar.write(line, file=self._stream)
        else:
            print(line, file=self._stream, flush=True)

    @contextmanager
    def step(self, name: str, what: str) -> Iterator[Step]:
        """Announce step ``name`` (doing ``what``); on leaving, its time and result, or that
        it failed (the error itself propagates: the command prints it)."""
        self.say(name, what)
        step = Step(name)
        started = self._clock()
        try:
            yield step
        except BaseException:
            self.say(name, f"failed after {self._clock() - started:.1f} s")
            raise
        took = f"done in {self._clock() - started:.1f} s"
        self.say(name, f"{took}: {step.result}" if step.result else took)

    @contextmanager
    def counting(self, total: int, unit: str) -> Iterator[None]:
        """A bar counting ``total`` ``unit``s while the block runs (on a terminal only)."""
        self._counted, self._total = 0, total
        if self._bar_wanted and self._stream is not None:
            from tqdm import tqdm  # only on a terminal: the CronJob never loads it

            with self._lock:
                self._bar = tqdm(total=total, unit=unit, file=self._stream, leave=False,
                                 dynamic_ncols=True, desc="fetch")
        try:
            yield
        finally:
            with self._lock:
                if self._bar is not None:
                    self._bar.close()
                self._bar = None

    def waiting(self, line: str) -> None:
        """A line of the fetch about a wait: a retry, a request or a wait still going on."""
        self.say("fetch", line)

    def fetched(self, fetch: Fetch) -> None:
        """One series (or the economy list) fetched: its line, and the bar one further."""
        pages = "1 page" if fetch.pages == 1 else f"{fetch.pages} pages"
        retries = "1 retry" if fetch.retries == 1 else f"{fetch.retries} retries"
        with self._lock:  # one at a time: the lines count up in order
            self._counted += 1
            counted = f" ({self._counted}/{self._total})" if self._total else ""
            self._write("fetch", f"{fetch.label}: {fetch.rows} rows, {pages}, {fetch.seconds:.2f} s, "
                                 f"{retries}{counted}")
            if self._bar is not None:
                self._bar.update(1)
