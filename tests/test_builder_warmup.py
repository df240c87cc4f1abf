"""builder.warmup and ``publish --warm``: the cache warm-up is tried until its deadline, and a
Redis that is down or hangs never holds a month back."""

from __future__ import annotations

import datetime
import io
import json
import re
import shlex
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from builder import Release, build_snapshot, publish
from builder.__main__ import main
from builder.journal import JOURNAL
from builder.progress import Progress
from builder.warmup import Warmed, WarmFailed, WarmUp, shell_warm, warm_up
from loaders import read_current_id
from readiness.cache.redis_tier import ANSWER_PREFIX
from tests.builder_world import STANDARD, world
from tests.processes import RedisServer, until

ROOT = Path(__file__).resolve().parent.parent
WARM = (f"cd {shlex.quote(str(ROOT))} && {shlex.quote(sys.executable)} -m readiness.freshness.warm "
        '--data-dir "$READINESS_DATA_DIR" --snapshot "$READINESS_SNAPSHOT_ID"')
"""The CronJob's warm-up command, run with this interpreter from the repository."""


class Clock:
    """A monotonic clock that moves only when told: by each wait, and by each try's ``took``."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def failing(clock: Clock, times: int, took: float = 1.0) -> tuple[list[float], WarmUp]:
    """A warm-up whose first ``times`` tries fail after ``took`` seconds each, and the time
    each try was given."""
    given: list[float] = []

    def run(data_dir: Path, snapshot_id: str, seconds: float) -> None:
        given.append(seconds)
        clock.now += took
        if len(given) <= times:
            raise WarmFailed("exited with status 1")

    return given, WarmUp(run, deadline=60)


def said(log: io.StringIO) -> Progress:
    """Progress lines into ``log``, all at 06:00:00."""
    return Progress(log, wall=lambda: datetime.datetime(2026, 12, 5, 6, tzinfo=datetime.UTC))


def test_warm_up_tries_again_saying_each_failure_and_wait(tmp_path: Path) -> None:
    clock, log = Clock(), io.StringIO()
    given, warm = failing(clock, times=2)
    warmed = warm_up(warm, tmp_path, "2026-12", said(log), clock=clock, wait=clock.wait)
    assert warmed == Warmed(3, 9.0) and str(warmed) == "warmed in 9.0 s (3 tries)"
    assert clock.waits == [2, 4] and given == [60, 57, 52], "each try gets the time left"
    assert log.getvalue().splitlines() == [
        "06:00:00 warm: try 1 failed (exited with status 1); try 2 in 2 s (59 s left of 60)",
        "06:00:00 warm: try 2 failed (exited with status 1); try 3 in 4 s (56 s left of 60)",
    ]


def test_warm_up_gives_up_at_its_deadline(tmp_path: Path) -> None:
    clock, log = Clock(), io.StringIO()
    given, warm = failing(clock, times=100)
    warmed = warm_up(warm, tmp_path, "2026-12", said(log), clock=clock, wait=clock.wait)
    assert clock.waits == [2, 4, 8, 16] and len(given) == 5, "no wait the deadline would cut short"
    assert warmed.failure == "exited with status 1" and warmed.seconds <= 60
    assert str(warmed) == "not warmed: gave up after 5 tries in 35.0 s; the last: exited with status 1"


def test_shell_warm_stops_a_command_and_its_children_when_the_time_runs_out(tmp_path: Path) -> None:
    pid = tmp_path / "pid"
    run = shell_warm(f"sleep 30 & echo $! > {shlex.quote(str(pid))}; wait")
    started = time.monotonic()
    # 2 s, not less: the shell must have written its child's pid before the deadline strikes,
    # and under the suite's load a shell can take a good part of a second to start.
    with pytest.raises(WarmFailed, match=r"^no result within 2.0 s: stopped$"):
        run(tmp_path, "2026-12", 2)
    assert time.monotonic() - started < 7
    child = int(pid.read_text())
    until(lambda: gone(child), 5, "the warm-up's background child is killed too")


def gone(pid: int) -> bool:
    """Whether process ``pid`` ended: no longer there, or a zombie until whoever inherited it
    reaps it."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(") ", 1)[-1].startswith("Z")
    except FileNotFoundError:
        return True


def test_shell_warm_fails_on_a_non_zero_exit(tmp_path: Path) -> None:
    with pytest.raises(WarmFailed, match=r"^exited with status 3$"):
        shell_warm("exit 3")(tmp_path, "2026-12", 5)


# --- the real warm-up against a Redis that is down, hangs, is paused, or answers -----------------


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data directory with 2026-11 current (no warm-up), and 2026-12 built, to publish."""
    directory = tmp_path / "data"
    for snapshot_id in ("2026-11", "2026-12"):
        release = Release.parse(snapshot_id, None, "SYNTHETIC: test data")
        built = build_snapshot(world(STANDARD, year=release.year), release, tmp_path / "build").directory
        if snapshot_id == "2026-11":
            publish(built, directory)
    return directory


def publish_warm(data: Path, tmp_path: Path, url: str, deadline: float, monkeypatch: pytest.MonkeyPatch,
                 capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str, float]:
    """``builder publish --warm`` with Redis at ``url``: (status, stdout, stderr, seconds)."""
    monkeypatch.setenv("READINESS_REDIS_URL", url)
    started = time.monotonic()
    status = main(["publish", str(tmp_path / "build" / "2026-12"), "--data-dir", str(data),
                   "--warm", WARM, "--warm-deadline", str(deadline)])
    took = time.monotonic() - started
    out, err = capfd.readouterr()
    return status, out, err, took


def last_entry(data: Path) -> dict[str, object]:
    result: dict[str, object] = json.loads((data / JOURNAL).read_text().splitlines()[-1])
    return result


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_publish_with_redis_down_warns_and_flips(
    data: Path, tmp_path: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # How many tries fit in the 6 s depends on how long the warm-up's process takes to start:
    # about 1 s on a quiet machine, over 4 s under six test workers on two cores (CI saw one
    # try only). So the log is checked against the count the journal gives, whatever it is;
    # test_warm_up_tries_again_saying_each_failure_and_wait pins the retries on a fake clock.
    status, out, err, took = publish_warm(data, tmp_path, f"redis://127.0.0.1:{closed_port}/0", 6, monkeypatch, capfd)
    assert status == 0, err
    assert read_current_id(data) == "2026-12", "the month is published all the same"
    assert took < 6 + 10, "within the deadline, give or take a process start and the announcement"
    outcome = str(last_entry(data)["warm"])
    # The last try either fails like the others or, when its process starts too slowly to fail
    # before the deadline (CI: 1.7 s left, not enough under load), is stopped there.
    gave_up = re.fullmatch(r"not warmed: gave up after (\d+) tr(?:y|ies) in \d+\.\d s; the last: "
                           r"(?:exited with status 1|no result within \d+\.\d s: stopped)", outcome)
    assert gave_up, outcome
    tries = int(gave_up[1])
    if tries > 1 or outcome.endswith("exited with status 1"):
        assert "warm: failed: Error 111 connecting to 127.0.0.1" in err, "the warm-up's own words are in the log"
    retried = re.findall(r" warm: try (\d+) failed \(exited with status 1\); try (\d+) in (\d+) s \(", err)
    assert retried == [(str(n), str(n + 1), str(2 ** n)) for n in range(1, tries)], "each try but the last is said"
    assert f" warm: warning: publishing 2026-12 with a cold cache ({outcome})" in err
    lines = out.splitlines()
    assert lines[0].endswith("; CURRENT: 2026-11 -> 2026-12")
    assert lines[1].startswith(f"warning: published with a cold cache ({outcome}); ")


def test_publish_with_redis_hanging_stops_the_warm_up_at_its_deadline(
    data: Path, tmp_path: Path, silent_port: int, monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    status, out, err, took = publish_warm(data, tmp_path, f"redis://127.0.0.1:{silent_port}/0", 2, monkeypatch, capfd)
    assert status == 0, err
    assert read_current_id(data) == "2026-12"
    assert took < 2 + 2 + 5, "the deadline, the announcement's 2 s timeout, a busy machine"
    assert re.fullmatch(r"not warmed: gave up after 1 try in 2\.\d s; the last: no result within 2\.0 s: stopped",
                        str(last_entry(data)["warm"])), last_entry(data)
    assert "warning: published with a cold cache" in out


def test_publish_with_redis_paused_stops_the_warm_up_at_its_deadline(
    data: Path, tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    redis_server.execute("CLIENT", "PAUSE", 60_000, "ALL")  # accepts, answers nothing
    status, out, err, took = publish_warm(data, tmp_path, redis_server.url, 2, monkeypatch, capfd)
    assert status == 0, err
    assert read_current_id(data) == "2026-12"
    assert took < 2 + 2 + 5
    assert "no result within 2.0 s: stopped" in str(last_entry(data)["warm"])


def test_publish_with_redis_answering_warms_before_the_flip(
    data: Path, tmp_path: Path, real_redis_url: str, monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    status, out, err, _ = publish_warm(data, tmp_path, real_redis_url, 60, monkeypatch, capfd)
    assert status == 0, err
    assert "warning" not in out and " warm: done in " in err
    assert re.fullmatch(r"warmed in \d+\.\d s \(1 try\)", str(last_entry(data)["warm"]))
    with redis.Redis.from_url(real_redis_url) as cache:
        assert any(key.startswith(f"{ANSWER_PREFIX}2026-12|".encode()) for key in cache.scan_iter(ANSWER_PREFIX + "*"))
