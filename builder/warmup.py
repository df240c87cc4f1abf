"""A publish's cache warm-up, best effort: it never holds the month back.

The warm-up writes the new snapshot's answers to Redis before CURRENT flips, so the first
users after the flip hit a warm cache (docs/CACHING.md). It is worth having, not a condition:
with Redis down the servers serve from memory and compute, and re-warm Redis on their own once
it answers (docs/OPERATIONS.md#re-warm-after-a-redis-restart). Run as a hook, a Redis outage
failed the publish, the Job retried it three times within minutes, and the month waited for a
person. So ``warm_up`` tries again until a deadline, saying each failure and the wait before
the next try; then it says why the cache is not warm, and the publish goes on. Each try is
bounded by the time left: a Redis that accepts connections and never answers holds the publish
no longer than one that refuses them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.progress import Progress

Warm = Callable[[Path, str, float], None]
"""Warms the cache for (data directory, snapshot id) within the seconds given; fails by
raising WarmFailed, whose message says why."""

DEADLINE = 60.0
"""How long a warm-up's tries may take in all by default: a Redis back within a minute (a pod
restarted) is worth waiting for; after that, once CURRENT flipped, the servers warm the new
snapshot themselves within READINESS_REWARM_CHECK_SECONDS (30 s) of Redis answering."""

FIRST_WAIT = 2.0
"""Seconds before the second try; each wait after is twice the one before, within the deadline."""


class WarmFailed(Exception):
    """One try of the warm-up failed; the message says why."""


@dataclass(frozen=True, slots=True)
class WarmUp:
    """A best-effort warm-up: what runs, and how long all its tries may take (seconds)."""

    run: Warm
    deadline: float = DEADLINE


@dataclass(frozen=True, slots=True)
class Warmed:
    """What became of a warm-up: how many tries, how long, and the last try's failure (None:
    the cache is warm)."""

    tries: int
    seconds: float
    failure: str | None = None

    def __str__(self) -> str:
        tries = "1 try" if self.tries == 1 else f"{self.tries} tries"
        if self.failure is None:
            return f"warmed in {self.seconds:.1f} s ({tries})"
        return f"not warmed: gave up after {tries} in {self.seconds:.1f} s; the last: {self.failure}"


def warm_up(
    warm: WarmUp,
    data_dir: Path,
    snapshot_id: str,
    said: Progress,
    *,
    clock: Callable[[], float] = time.monotonic,
    wait: Callable[[float], None] = time.sleep,
) -> Warmed:
    """Run ``warm`` until it succeeds or its deadline passes, each try within the time left,
    saying each failure and the wait after it. Never raises WarmFailed: the outcome says."""
    started = clock()
    tries, pause = 0, FIRST_WAIT
    while True:
        tries += 1
        left = warm.deadline - (clock() - started)
        try:
            warm.run(data_dir, snapshot_id, left)
        except WarmFailed as failed:
            left = warm.deadline - (clock() - started)
            if left <= pause:
                return Warmed(tries, clock() - started, str(failed))
            said.say("warm", f"try {tries} failed ({failed}); try {tries + 1} in {pause:g} s "
                             f"({left:.0f} s left of {warm.deadline:g})")
            wait(pause)
            pause *= 2
        else:
            return Warmed(tries, clock() - started)


def shell_warm(command: str) -> Warm:
    """A warm-up running ``command`` in a shell, with READINESS_DATA_DIR and
    READINESS_SNAPSHOT_ID set (as a hook); a non-zero exit status fails the try, and so does
    the time running out, which kills the command and whatever it started."""

    def run(data_dir: Path, snapshot_id: str, seconds: float) -> None:
        environment = {
            **os.environ,
            "READINESS_DATA_DIR": str(data_dir.resolve()),
            "READINESS_SNAPSHOT_ID": snapshot_id,
        }
        try:
            # A session of its own: the whole group is killed when the time runs out.
            process = subprocess.Popen(command, shell=True, env=environment, start_new_session=True)
        except OSError as error:
            raise WarmFailed(f"cannot run {command!r}: {error}") from None
        try:
            status = process.wait(timeout=max(0.0, seconds))
        except subprocess.TimeoutExpired:
            raise WarmFailed(f"no result within {seconds:.1f} s: stopped") from None
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if status != 0:
            raise WarmFailed(f"exited with status {status}")

    return run
