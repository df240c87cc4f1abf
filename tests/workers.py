"""What each pytest-xdist worker owns, so that workers running side by side never meet:
its own Redis database and its own block of TCP ports (docs/TESTING.md#running-in-parallel).

``make test`` runs the suite in several worker processes (pytest-xdist). Each worker is named
by ``PYTEST_XDIST_WORKER`` (``gw0``, ``gw1``, ...); without xdist (``-n 0``, or a plain
``pytest``) there is one process and it counts as worker 0. Temporary directories need nothing
here: pytest-xdist gives each worker a base temporary directory of its own (``popen-gw<N>``),
under which ``tmp_path`` and ``tmp_path_factory`` make theirs.

- **Redis**: worker N uses database ``D + N``, where D is the database of
  READINESS_TEST_REDIS_URL (``redis://127.0.0.1:6379/10`` when unset: workers 0-5 take 10-15).
  Two runs on one machine need two ranges that do not overlap.
- **Ports**: every port a test hands to a server (``free_port``, ``free_ports``) comes from a
  block of PORT_BLOCK ports that belongs to that Redis database, so to this worker of this run:
  ``PORT_BASE + PORT_BLOCK * (D + N)``. The blocks lie below Linux's ephemeral range
  (32768-60999), which the kernel draws on for ``bind(port 0)`` and for every outgoing
  connection's local port: a port handed out here cannot be taken between the test's choice
  and the server's bind by another worker, by a connection of any process, or by a suite
  that picks ports the old way. Each port is still probed before it is handed out, so one
  held by anything else on the machine is passed over.

Standard library only: ``tests/edge_nginx.py`` uses it, and the benchmarks import that.
"""

from __future__ import annotations

import os
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

DEFAULT_TEST_REDIS = "redis://127.0.0.1:6379/10"
"""The test Redis when READINESS_TEST_REDIS_URL is unset: database 10, so that six workers
(``make test``'s default) take 10 to 15."""

REDIS_DATABASES = 16
"""Databases a Redis server has unless configured otherwise (0 to 15)."""

PORT_BASE = 16000
PORT_BLOCK = 1000
"""Ports ``PORT_BASE + PORT_BLOCK * d`` to the next block for the worker on database d: sixteen
blocks, 16000-31999, below the ephemeral range. A thousand per worker: ports are handed out in
turn and wrap around, so a port comes back only after a thousand others, long after the test
that had it has ended."""


def worker_index() -> int:
    """This process's xdist worker number (``gw3`` gives 3); 0 without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name.removeprefix("gw")) if name.startswith("gw") else 0


def worker_redis_url(base: str) -> str:
    """``base`` (a Redis URL) with its database moved on by the worker number: ``redis://h:p/12``
    is database 12 for ``gw0``, 13 for ``gw1``. The database may be past the server's last one
    (``check_database`` says so); the URL is returned all the same so that the error names it."""
    parts = urlsplit(base)
    database = int(parts.path.lstrip("/") or 0) + worker_index()
    return urlunsplit(parts._replace(path=f"/{database}"))


def database(url: str) -> int:
    """The database number of a Redis URL (0 when it names none)."""
    return int(urlsplit(url).path.lstrip("/") or 0)


def check_database(url: str) -> str | None:
    """Why this worker cannot use ``url``'s database (past the server's last), or None."""
    if database(url) < REDIS_DATABASES:
        return None
    return (f"worker {os.environ.get('PYTEST_XDIST_WORKER', '0')} would use Redis database {database(url)}, "
            f"but a Redis has {REDIS_DATABASES} (0-{REDIS_DATABASES - 1}): start READINESS_TEST_REDIS_URL "
            f"at a lower database, or run fewer workers (-n), so that the last worker's is at most "
            f"{REDIS_DATABASES - 1} (docs/TESTING.md#running-in-parallel)")


TEST_REDIS = worker_redis_url(os.environ.get("READINESS_TEST_REDIS_URL", DEFAULT_TEST_REDIS))
"""This worker's test Redis: READINESS_TEST_REDIS_URL's database plus the worker number."""


class PortBlock:
    """The ports one worker hands out, in turn, each probed free before it is handed out."""

    def __init__(self, first: int, size: int) -> None:
        self.first = first
        self.size = size
        self._next = 0
        self._lock = threading.Lock()

    def take(self, count: int) -> tuple[int, ...]:
        """``count`` distinct ports that nothing on the machine listens on or holds now.

        Raises OSError when the whole block is taken (a leak: a thousand servers alive)."""
        taken: list[int] = []
        with self._lock:
            for _ in range(self.size):
                port = self.first + self._next
                self._next = (self._next + 1) % self.size
                if _bindable(port):
                    taken.append(port)
                    if len(taken) == count:
                        return tuple(taken)
        raise OSError(f"no {count} free ports left in {self.first}-{self.first + self.size - 1}")


def _bindable(port: int) -> bool:
    """Whether 127.0.0.1:``port`` can be bound now. Without SO_REUSEADDR, so a port with a
    connection still in TIME_WAIT counts as taken too: passed over, never fought for."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _block() -> PortBlock:
    # Past the last database (a usage error reported by the Redis fixtures) the block wraps
    # around rather than climbing into the ephemeral range.
    return PortBlock(PORT_BASE + PORT_BLOCK * (database(TEST_REDIS) % REDIS_DATABASES), PORT_BLOCK)


PORTS = _block()
"""This worker's ports."""


def free_port() -> int:
    """A port of this worker's block that nothing listens on now: for a server the test starts,
    or as a port where nothing listens (it is not handed out again for a thousand calls)."""
    return PORTS.take(1)[0]


def free_ports(count: int) -> tuple[int, ...]:
    """``count`` distinct free ports of this worker's block (a server's public and operations
    ports must differ)."""
    return PORTS.take(count)
