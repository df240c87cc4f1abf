"""Real processes for tests: server.py subprocesses, throwaway redis-server instances, and a
bounded HTTP load generator that records every request it sends.

Everything here talks to 127.0.0.1 only and is bounded in count and time; every process a
fixture starts is killed when its test ends, passed or failed.
"""

from __future__ import annotations

import http.client
import itertools
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import REAL_REDIS, ROOT, unavailable

# The ports of this worker's block (tests/workers.py), imported from here by the tests.
from tests.workers import check_database
from tests.workers import free_port as free_port
from tests.workers import free_ports as free_ports

Start = Callable[..., "subprocess.Popen[bytes]"]



def get(url: str) -> tuple[int, bytes]:
    """GET ``url``: (status, body). The timeout guards against a hang; it is no latency bound:
    on a loaded machine a first archive read of the sample can take several seconds."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


SERVER_ENV = {"READINESS_SHUTDOWN_DELAY_SECONDS": "0", "READINESS_REDIS_TIMEOUT_MS": "1000"}
"""Under the test's own settings, every server.py a test starts has these. No shutdown delay: a
test's server stops at once. A 1 s Redis timeout: the 100 ms default is production's, and
under the suite's load a healthy Redis can take longer, so a test whose subject is not a slow
Redis would see its lookups fail into the breaker (on CI the Sentinel test once saw no tier-2
hit in 100 answers). A test of a slow Redis sets its own timeout."""


STARTUP_SECONDS = 60
"""How long a test's server.py may take to answer /healthz. About 1 s on a quiet machine; 20 s
was passed once in a fresh-clone CI run (six workers and four Chromiums on two cores, load 25)."""


def wait_until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    """Return once ``process`` answers /healthz on ``port``; AssertionError if it exits first or
    does not answer within STARTUP_SECONDS."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited early with status {process.returncode}")
        try:
            if get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server did not come up within {STARTUP_SECONDS} s")


@pytest.fixture
def start() -> Iterator[Start]:
    """Start ``server.py`` with arguments and environment; stopped at the end of the test.

    Output goes to pipes read at the end, or with ``log=<path>`` to that file: a server under
    load writes more access-log lines than a pipe holds, and would block on a full pipe.
    """
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str, env: dict[str, str] | None = None, log: Path | None = None) -> subprocess.Popen[bytes]:
        log_file = None if log is None else log.open("ab")
        output = subprocess.PIPE if log_file is None else log_file
        try:
            process = subprocess.Popen(
                [sys.executable, str(ROOT / "server.py"), *args],
                # A free operations port of its own: never the default, which another server
                # (another test run) may hold.
                cwd=ROOT, env={**os.environ, **SERVER_ENV, "READINESS_ADMIN_PORT": str(free_port()), **(env or {})},
                stdout=output, stderr=output,
            )
        finally:
            if log_file is not None:
                log_file.close()  # the child has its own descriptor
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.communicate()


def until(condition: Callable[[], bool], seconds: float, what: str, step: float = 0.02) -> float:
    """Poll ``condition`` until true; return the seconds it took. AssertionError after ``seconds``."""
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > seconds:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(step)
    return time.monotonic() - began


# --- server.py processes ------------------------------------------------------------------


@dataclass(frozen=True)
class Server:
    """A running ``server.py`` process, its public and operations ports and its log file."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    admin_port: int

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def metric(self, name: str, **labels: str) -> float:
        """One sample of ``/metrics`` on the operations port (0 when absent), e.g.
        ``metric("readiness_cache_lookups_total", tier="redis", outcome="hit")``."""
        status, body = get(f"http://127.0.0.1:{self.admin_port}/metrics")
        assert status == 200, body
        for family in text_string_to_metric_families(body.decode()):
            for sample in family.samples:
                if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                    return float(sample.value)
        return 0.0


def launch(start: Start, log_dir: Path, env: dict[str, str]) -> Server:
    """Start ``server.py`` on a free port with ``env`` (READINESS_* over the defaults); wait until it answers."""
    port, admin_port = free_ports(2)
    log = log_dir / f"server-{port}.log"
    process = start(env={"READINESS_PORT": str(port), "READINESS_ADMIN_PORT": str(admin_port), **env}, log=log)
    wait_until_up(port, process)
    return Server(process, port, log, admin_port)


@contextmanager
def serving_sample(log_dir: Path, env: dict[str, str] | None = None) -> Iterator[Server]:
    """``server.py`` on the bundled sample, on a free port, for a whole module (``start`` is per
    test): yields once it answers, killed when the block ends."""
    port, admin_port = free_ports(2)
    log = log_dir / f"server-{port}.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "server.py")], cwd=ROOT, stdout=output, stderr=output,
            env={**os.environ, **SERVER_ENV, "READINESS_PORT": str(port),
                 "READINESS_ADMIN_PORT": str(admin_port), **(env or {})},
        )
    try:
        wait_until_up(port, process)
        yield Server(process, port, log, admin_port)
    finally:
        process.kill()
        process.wait(timeout=10)


def fetch(port: int, path: str, timeout: float = 5.0, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """GET over a new connection: (status, body), or (0, the error) when no response came."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException) as error:
        return 0, repr(error).encode()
    finally:
        connection.close()


# --- throwaway redis-server processes --------------------------------------------------------


OWN_REDIS = "this test starts, kills and pauses a Redis of its own"


def redis_server_executable(why: str = OWN_REDIS) -> str:
    """Path of ``redis-server``; without one, ``unavailable``, saying ``why`` it is needed and
    how to install it."""
    executable = shutil.which("redis-server")
    if executable is None:
        unavailable(f"redis-server is not installed (Debian: apt-get install redis-server): {why}")
    return executable


class RedisServer:
    """A redis-server of our own on a free port, with nothing persisted, that a test may kill,
    restart on the same port, pause or flush.
    """

    def __init__(self, executable: str, port: int, log: Path, arguments: Sequence[str] = ()) -> None:
        """``arguments`` follow the defaults on the command line (``--cluster-enabled yes``,
        ``--replicaof 127.0.0.1 <port>``)."""
        self.executable = executable
        self.port = port
        self.log = log
        self.arguments = tuple(arguments)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or restart, after ``kill``) on this port; return once it answers PING."""
        assert self.process is None, "already running"
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(self.command(), stdout=output, stderr=subprocess.STDOUT)
        until(self._answers, 10, f"redis-server answers PING on port {self.port}", step=0.05)

    def command(self) -> list[str]:
        """The command line. --dir: should anything be written after all (a SAVE), it lands
        beside the log, never in the checkout the tests run from."""
        return [self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", str(self.log.parent), *self.arguments]

    def kill(self) -> None:
        """SIGKILL: the connections die without a goodbye, as when a Redis pod is lost."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
            self.process = None

    def execute(self, *command: str | int) -> Any:
        """Run one command on a fresh connection; the reply as redis-py parses it."""
        with redis.Redis(port=self.port, socket_timeout=5, socket_connect_timeout=5) as client:
            return client.execute_command(*command)

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"redis-server exited with status {self.process.returncode}; see {self.log}")
        try:
            return self.execute("PING") is True
        except redis.RedisError:
            return False


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A started throwaway redis-server, killed at the end of the test."""
    server = RedisServer(redis_server_executable(), free_port(), tmp_path / "redis.log")
    try:
        server.start()
        yield server
    finally:
        server.kill()


def redis_answers(url: str) -> bool:
    """Whether a Redis at ``url`` answers PING (within a second: a closed port refuses at once)."""
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1) as client:
            return client.ping() is True
    except redis.RedisError:
        return False


@contextmanager
def redis_unless_one_answers(default: str, directory: Path) -> Iterator[str]:
    """``default`` when a Redis answers there; else the URL of a redis-server of our own on a
    free port, nothing persisted, its log in ``directory``, killed on exit. Without a
    redis-server to start, ``unavailable``."""
    if redis_answers(default):
        yield default
        return
    why = f"no Redis answers at {default}, and the suite cannot start its own"
    server = RedisServer(redis_server_executable(why), free_port(), directory / "redis.log")
    try:
        server.start()
        yield server.url
    finally:
        server.kill()


@pytest.fixture(scope="session")
def shared_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Redis that ``real_redis_url`` (tests/conftest.py) flushes for each test: the
    machine's (REAL_REDIS) when one answers, else one redis-server for the whole session, so
    a machine with Debian's redis-server but no Redis running still runs every Redis test.
    Fails when this worker's database is past the server's last (too many workers for where
    READINESS_TEST_REDIS_URL starts)."""
    if (problem := check_database(REAL_REDIS)) is not None:
        pytest.fail(problem)
    with redis_unless_one_answers(REAL_REDIS, tmp_path_factory.mktemp("redis")) as url:
        yield url


# --- bounded load ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    """One request the load generator sent, and what came back."""

    port: int
    path: str
    sent: float
    """time.monotonic() before connecting."""
    received: float
    """time.monotonic() once the whole body (or the error) was in."""
    status: int
    """0 when no HTTP response came (refused, reset, timed out)."""
    body: bytes
    """The body, or the error when status is 0."""

    @property
    def seconds(self) -> float:
        return self.received - self.sent


class Load:
    """Closed-loop GET load from ``workers`` threads, round-robin over every (port, path).

    Bounded: it stops at ``stop()``, after ``max_requests`` requests in all or after
    ``max_seconds``, whichever comes first. Use as a context manager so the threads always end.
    """

    def __init__(
        self,
        ports: Sequence[int],
        paths: Sequence[str],
        *,
        workers: int = 4,
        max_requests: int = 20_000,
        max_seconds: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        self.targets = list(itertools.product(ports, paths))
        self.workers = workers
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self.timeout = timeout
        self._samples: list[Sample] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Load:
        deadline = time.monotonic() + self.max_seconds
        self._threads = [
            threading.Thread(target=self._work, args=(offset, deadline), name=f"load-{offset}")
            for offset in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop sending and wait for the requests in flight (each is bounded by ``timeout``)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(self.timeout + 5)
        assert not any(thread.is_alive() for thread in self._threads), "load threads did not stop"

    @property
    def samples(self) -> list[Sample]:
        """Every request completed so far, in completion order."""
        with self._lock:
            return list(self._samples)

    def wait(self, condition: Callable[[list[Sample]], bool], seconds: float, what: str) -> float:
        """Poll the samples until ``condition`` holds; return the seconds it took."""
        return until(lambda: condition(self.samples), seconds, what)

    def wait_for_count(self, count: int, seconds: float = 30, after: float = -math.inf) -> float:
        """Wait until ``count`` requests sent after monotonic time ``after`` were answered (a
        guard against a hang, not a throughput bound: under the suite's other workers 300
        answers took over 10 s)."""
        return self.wait(
            lambda samples: sum(sample.sent > after for sample in samples) >= count,
            seconds, f"{count} requests answered",
        )

    def _work(self, offset: int, deadline: float) -> None:
        targets = itertools.islice(itertools.cycle(self.targets), offset, None)
        for port, path in targets:
            if self._stop.is_set() or time.monotonic() > deadline:
                return
            with self._lock:
                if len(self._samples) >= self.max_requests:
                    return
            sent = time.monotonic()
            status, body = fetch(port, path, self.timeout)
            sample = Sample(port, path, sent, time.monotonic(), status, body)
            with self._lock:
                self._samples.append(sample)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value at or above ``fraction`` of them."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]
