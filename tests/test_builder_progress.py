"""builder.progress: plain lines for a log, a bar on a terminal, each step with its time."""

from __future__ import annotations

import datetime
import io
import itertools

import pytest

from builder.progress import Fetch, Progress

NOON = datetime.datetime(2026, 11, 5, 12, 0, 0, tzinfo=datetime.UTC)


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def progress(stream: io.StringIO, **options: bool) -> Progress:
    """Progress with a clock that advances 1.5 s per reading and a wall clock at noon."""
    ticks = itertools.count(0.0, 1.5)
    return Progress(stream, clock=lambda: next(ticks), wall=lambda: NOON, **options)


def test_plain_lines_say_each_step_its_time_and_result() -> None:
    log = io.StringIO()
    said = progress(log)
    with said.step("build", "2026-11, published 2026-11-05") as step:
        step.result = "217 economies"
    with said.step("flip", "CURRENT 2026-10 -> 2026-11"):
        pass
    assert log.getvalue().splitlines() == [
        "12:00:00 build: 2026-11, published 2026-11-05",
        "12:00:00 build: done in 1.5 s: 217 economies",
        "12:00:00 flip: CURRENT 2026-10 -> 2026-11",
        "12:00:00 flip: done in 1.5 s",
    ]


def test_a_failed_step_says_so_and_the_error_goes_on() -> None:
    log = io.StringIO()
    with pytest.raises(OSError, match="disk full"), progress(log).step("copy", "a to b"):
        raise OSError("disk full")
    assert log.getvalue().splitlines()[-1] == "12:00:00 copy: failed after 1.5 s"


def test_series_lines_count_rows_pages_seconds_and_retries() -> None:
    log = io.StringIO()
    said = progress(log)
    with said.counting(2, "request"):
        said.fetched(Fetch("country", 296, 1, 0.4, 0))
        said.fetched(Fetch("SP.POP.TOTL", 2660, 3, 2.25, 1))
    assert log.getvalue() == (
        "12:00:00 fetch: country: 296 rows, 1 page, 0.40 s, 0 retries (1/2)\n"
        "12:00:00 fetch: SP.POP.TOTL: 2660 rows, 3 pages, 2.25 s, 1 retry (2/2)\n"
    ), "plain lines only: no bar, no carriage return, in a log"


def test_a_terminal_gets_a_bar_under_the_same_lines() -> None:
    screen = Terminal()
    said = progress(screen)
    with said.counting(2, "request"):
        said.fetched(Fetch("country", 296, 1, 0.4, 0))
        said.fetched(Fetch("GE.EST", 2660, 1, 0.5, 0))
    shown = screen.getvalue()
    assert "\r" in shown and "fetch:" in shown and "2/2" in shown, "tqdm drew its bar"
    assert "12:00:00 fetch: GE.EST: 2660 rows, 1 page, 0.50 s, 0 retries (2/2)\n" in shown
    assert progress(Terminal(), bar=False)._bar_wanted is False


def test_quiet_progress_writes_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    # Quiet has no stream: a line or a bar written anyway would land on the standard output
    # or error (print's and tqdm's default), which capfd holds, down to the descriptors.
    said = Progress.quiet()
    with said.step("fetch", "x") as step, said.counting(1, "request"):
        said.fetched(Fetch("country", 1, 1, 0.1, 0))
        said.say("fetch", "y")
        step.result = "1 series"
    with pytest.raises(OSError, match="disk full"), said.step("copy", "a to b"):
        raise OSError("disk full")
    assert capfd.readouterr() == ("", "")
