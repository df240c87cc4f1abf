"""Process entry point: settings, snapshot, cache tiers, application, listener, signals.

    python server.py [--host HOST] [--port N] [--admin-port N] [--data-dir DIR]

With no arguments and no ``READINESS_*`` variables it serves the bundled synthetic sample on
127.0.0.1:8080 (operations on 8081) with the in-process cache only. A setting it cannot use, or
a port it cannot listen on, stops it with one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tornado.httpserver import HTTPServer
from tornado.ioloop import PeriodicCallback
from tornado.netutil import bind_sockets
from tornado.web import Application

from config import Settings, SettingsError, port_number
from loaders import SnapshotStore
from loaders.workers import CountingExecutor, busy_workers
from readiness.app import make_admin_app, make_app, new_metrics
from readiness.cache.answers import AnswerCache
from readiness.cache.breaker import CircuitBreaker
from readiness.cache.redis_tier import RedisTier, connect, prepare
from readiness.freshness.rewarm import Rewarmer
from readiness.freshness.warm import WARM_TIMEOUT_SECONDS, WarmSettings
from readiness.freshness.watch import SnapshotWatcher
from readiness.http.clients import TrustedProxies
from readiness.http.connections import LimitedHTTPServer, connection_cap
from readiness.http.lifecycle import Lifecycle
from readiness.http.logs import AccessLog, configure

log = logging.getLogger("readiness.server")

ACCESS_FLUSH_SECONDS = 1
"""How often the access lines gathered in memory are written."""

COUNT_FLUSH_SECONDS = 10
"""How often request counts per query go to Redis for the warm-up's top-N list."""

MAX_BODY_BYTES = 64 * 1024
"""No route reads a request body. A larger one is refused (400, connection closed) before it
is buffered, instead of Tornado's default 100 MB per connection."""

SETTLE_SECONDS = 2.5
"""At stop, how long from SIGTERM a snapshot read already running (the background summary
fill's) may take to finish, so a healthy process exits without busy threads; it runs during
the shutdown delay and the drain, and a read stuck on a hung volume is left behind."""

IDLE_CONNECTION_SECONDS = 120
"""A keep-alive connection idle this long is closed (Tornado's default: an hour). Longer than
load balancers' usual 60 s (the edge's: 60 s), so that they close first and never reuse a
closing connection. Tornado also uses it as the time a request's headers may take to arrive."""

BODY_SECONDS = 10
"""A request body (no route reads one; at most MAX_BODY_BYTES) must arrive within this, else
the connection is closed: without it a client trickling a body holds a connection for ever."""



def parse_args(argv: Sequence[str], defaults: Settings) -> Settings:
    """Command-line flags over the environment's settings."""
    parser = argparse.ArgumentParser(description="Readiness Index Data Service")
    parser.add_argument("--host", help=f"address to listen on (default {defaults.host})")
    parser.add_argument(
        "--port", type=port_number, help=f"public port: the API (default {defaults.port})"
    )
    parser.add_argument(
        "--admin-port", type=port_number,
        help=f"operations port: /metrics, /healthz, /readyz (default {defaults.admin_port})",
    )
    parser.add_argument(
        "--data-dir", type=Path, help=f"data directory (default {defaults.data_dir})"
    )
    args = parser.parse_args(argv)
    return replace(
        defaults,
        host=args.host or defaults.host,
        port=defaults.port if args.port is None else args.port,
        admin_port=defaults.admin_port if args.admin_port is None else args.admin_port,
        data_dir=args.data_dir or defaults.data_dir,
    )


@dataclass(frozen=True, slots=True)
class Listener:
    """One of the process's two listeners, as a start-up error names it."""

    name: str
    flag: str
    variable: str


PUBLIC = Listener("public", "--port", "READINESS_PORT")
OPERATIONS = Listener("operations", "--admin-port", "READINESS_ADMIN_PORT")


class ListenError(Exception):
    """A listener cannot bind its port; the message is the one line ``main`` prints."""


@dataclass(frozen=True, slots=True)
class Sockets:
    """Both listeners' bound sockets (several each when the host names several addresses)."""

    public: list[socket.socket]
    operations: list[socket.socket]


def bind(port: int, host: str, listener: Listener) -> list[socket.socket]:
    """``listener``'s listening sockets on ``host``:``port``, or ListenError saying what to
    change: a taken port is an operator's mistake, owed a sentence rather than a traceback."""
    try:
        return bind_sockets(port, host)
    except OSError as error:
        raise ListenError(bind_failure(error, port, host, listener)) from None


def bind_failure(error: OSError, port: int, host: str, listener: Listener) -> str:
    """One line explaining ``error`` that names the flag and variable which fix it."""
    where = f"the {listener.name} port {port} on {host}"
    change = f"choose another with {listener.flag} or {listener.variable}"
    if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
        # The address is at fault, not the port: not a name or address of this machine.
        return (
            f"cannot listen on {where}: {error.strerror or error}; "
            "check --host or READINESS_HOST"
        )
    if error.errno == errno.EADDRINUSE:
        return f"{where} is already in use; {change}"
    if error.errno == errno.EACCES:
        return f"{where}: permission denied (ports below 1024 need privileges); {change}"
    return f"cannot listen on {where}: {error.strerror or error}; {change}"


def bind_listeners(settings: Settings) -> Sockets:
    """Bind both ports, the public one first; ListenError if either cannot be bound.

    Done before the snapshot is read: a taken port stops the process at once, with nothing
    logged before its one line. Connections that arrive before ``serve`` accepts on these
    sockets wait in their backlog.
    """
    public = bind(settings.port, settings.host, PUBLIC)
    try:
        operations = bind(settings.admin_port, settings.host, OPERATIONS)
    except ListenError:
        for sock in public:
            sock.close()
        raise
    return Sockets(public, operations)


def http_server(
    app: Application,
    proxies: TrustedProxies | None,
    idle_seconds: float = IDLE_CONNECTION_SECONDS,
    max_connections: int = Settings().max_connections,
    body_seconds: float = BODY_SECONDS,
    unsent_bytes: int = Settings().unsent_bytes,
) -> LimitedHTTPServer:
    """The HTTP server for ``app``, with the body, body-time and idle limits above, at most
    ``max_connections`` connections and each one's unsent bytes bounded (readiness/http/connections.py).

    X-Forwarded-For / X-Real-Ip are believed only from ``proxies`` (None: from no peer): a
    direct client could forge them, and so choose whom its requests count against.
    """
    return LimitedHTTPServer(
        app,
        proxies=proxies,
        unsent_bytes=unsent_bytes,
        max_body_size=MAX_BODY_BYTES,
        idle_connection_timeout=idle_seconds,
        body_timeout=body_seconds,
        max_connections=max_connections,
    )


def trusted_proxies(settings: Settings) -> TrustedProxies | None:
    """The peers whose headers name the client: ``trusted_proxies`` behind a proxy, else none."""
    if not settings.behind_proxy:
        return None
    return TrustedProxies(ipaddress.ip_network(block) for block in settings.trusted_proxies)


def admin_server(app: Application) -> HTTPServer:
    """The operations port's server: Tornado's own, with the same body and idle limits.

    Only Prometheus and the kubelet reach it (the NetworkPolicy), a few connections at a time.
    """
    return HTTPServer(app, max_body_size=MAX_BODY_BYTES, idle_connection_timeout=IDLE_CONNECTION_SECONDS)


async def serve(settings: Settings, sockets: Sockets) -> None:
    """Load the current snapshot, accept on ``sockets`` (``bind_listeners``), follow snapshot
    changes, and shut down gracefully.

    On SIGTERM or SIGINT: /readyz fails at once; the listener stays open for
    ``shutdown_delay_seconds`` (load balancers notice and stop sending); then it closes and
    requests in flight get up to ``drain_seconds`` to finish. The operations port (``/metrics``,
    ``/healthz``, ``/readyz``) stays open until the end.
    """
    store = SnapshotStore(settings.data_dir, settings.archive_slots, read_timeout=settings.read_timeout_seconds)
    await store.refresh()  # off the event loop and bounded, like every later read
    if store.current is None:
        log.error("no usable snapshot in %s; /readyz fails until one is published", settings.data_dir)
    memory = AnswerCache(settings.cache_bytes)
    lifecycle = Lifecycle()
    redis = None if settings.redis_url is None else _Redis(settings.redis_url, settings)
    metrics = new_metrics(store, None if redis is None else redis.breaker, memory)
    warming = WarmSettings.of(settings)
    tier = None if redis is None else RedisTier(
        redis.client, redis.breaker, metrics, warming.codec, settings.redis_max_answer_bytes, timeout=redis.timeout)
    access = AccessLog(sys.stderr.buffer, settings.log_level)
    app = make_app(settings, store, metrics=metrics, redis=tier, lifecycle=lifecycle, memory=memory, access=access)
    server = http_server(app, trusted_proxies(settings), max_connections=connection_cap(settings.max_connections),
                         unsent_bytes=settings.unsent_bytes)
    metrics.watch_connections("public", server)
    admin = admin_server(make_admin_app(store, metrics, lifecycle, access, settings.max_skipped_percent))
    admin.add_sockets(sockets.operations)
    server.add_sockets(sockets.public)
    log.info(
        "listening on http://%s:%d/api/v1/readiness (at most %d connections), operations on port %d",
        settings.host, settings.port, server.max_connections, settings.admin_port,
    )

    watcher = SnapshotWatcher(app.lane.service)  # the cache the service answers from, not a copy
    periodic = [PeriodicCallback(access.flush, ACCESS_FLUSH_SECONDS * 1000)]
    polling = None
    if settings.snapshot_poll_seconds:
        polling = PeriodicCallback(watcher.refresh, settings.snapshot_poll_seconds * 1000)
        periodic.append(polling)
    if tier is not None:
        periodic.append(PeriodicCallback(tier.flush_counts, COUNT_FLUSH_SECONDS * 1000))
    rewarmer = None
    if settings.redis_url is not None and settings.rewarm_check_seconds:
        rewarmer = Rewarmer(connect(settings.redis_url, WARM_TIMEOUT_SECONDS), store, settings.data_dir, warming)
        periodic.append(PeriodicCallback(rewarmer.check, settings.rewarm_check_seconds * 1000))
    for callback in periodic:
        callback.start()
    listening = preparing = None
    if redis is not None:
        preparing = asyncio.ensure_future(prepare(redis.client, WARM_TIMEOUT_SECONDS))
        listening = asyncio.ensure_future(watcher.listen(redis.listener, settings.breaker_pause_seconds))
    # History and the catalogue answer from every snapshot's summary: read the archives' now,
    # in the store's worker threads, rather than on the first such request (docs/CACHING.md).
    summarizing = asyncio.ensure_future(store.read_summaries())

    await _wait_for_signal()
    lifecycle.draining = True
    summarizing.cancel()  # between two reads: a read already started is waited for below
    if polling is not None:
        # A leaving process needs no next snapshot, and a check of CURRENT started during the
        # drain could still be reading when it exits (then reported "still busy").
        polling.stop()
    watcher.stop()
    settling = asyncio.ensure_future(store.settled(SETTLE_SECONDS))  # alongside delay and drain
    log.info("stopping: not ready; closing the listener in %ss", settings.shutdown_delay_seconds)
    await asyncio.sleep(settings.shutdown_delay_seconds)
    server.stop()
    await lifecycle.drained(settings.drain_seconds)
    await server.close_all_connections()
    for callback in periodic:
        callback.stop()
    if preparing is not None:
        preparing.cancel()  # long done, unless the cluster hung at start
    if listening is not None:
        await asyncio.wait([listening], timeout=2)
    if redis is not None and tier is not None:
        await tier.flush_counts()
        await redis.close()
    if rewarmer is not None:
        await rewarmer.close()
    admin.stop()
    await admin.close_all_connections()
    if not await settling:
        log.warning("a snapshot read is still running %g s after SIGTERM; exiting without it", SETTLE_SECONDS)
    store.close()
    access.flush()
    log.info("stopped")


class _Redis:
    """The two Redis connections a server needs, and the breaker guarding answer lookups."""

    def __init__(self, url: str, settings: Settings) -> None:
        self.timeout = settings.redis_timeout_ms / 1000
        # RedisTier bounds each of its calls by ``timeout`` (cheaper than socket timeouts).
        self.client = connect(url, self.timeout, socket_timeouts=False)
        # Pub/sub waits minutes for a message: its connection has no socket timeout. Sentinel:
        # on the primary, which every announcement reaches; a cluster: on the node of the
        # channel's slot, which a cluster-wide PUBLISH reaches (docs/CACHING.md#live-snapshot-swap).
        self.listener = connect(url, self.timeout, socket_timeouts=False)
        self.breaker = CircuitBreaker(settings.breaker_failures, settings.breaker_pause_seconds)

    async def close(self) -> None:
        """Close both connections."""
        await self.client.aclose()
        await self.listener.aclose()


async def _wait_for_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the service; return the process exit status."""
    try:
        settings = parse_args(sys.argv[1:] if argv is None else argv, Settings.from_env(os.environ))
    except SettingsError as error:
        print(f"server.py: {error}", file=sys.stderr)
        return 2
    configure(settings.log_level, (settings.redis_url,))  # no log line shows its password
    # A worker thread computing a large miss gives the GIL back to the event loop this often
    # (docs/CACHING.md#the-compute-budget).
    sys.setswitchinterval(settings.switch_interval_us / 1_000_000)
    try:
        sockets = bind_listeners(settings)
    except ListenError as error:
        print(f"server.py: {error}", file=sys.stderr)
        return 2
    _run(serve(settings, sockets))
    return 0


def _run(main_coroutine: Coroutine[None, None, None]) -> None:
    """``asyncio.run`` without its unbounded wait for worker threads at the end.

    A snapshot read stuck in a worker thread (a hung volume) must not keep the process alive
    past the drain deadline: if one is still running, exit without waiting for it. Otherwise
    return, so the interpreter exits normally (atexit handlers run, idle workers are joined).
    """
    loop = asyncio.new_event_loop()
    loop.set_default_executor(CountingExecutor(thread_name_prefix="readiness-worker"))
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(main_coroutine)
        leftover = asyncio.all_tasks(loop)
        for task in leftover:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        asyncio.set_event_loop(None)
        loop.close()  # shuts the thread pool down without waiting
    busy = busy_workers()  # the loop's default executor and the store's reads alike
    if busy:
        log.warning("exiting with %d worker threads still busy", busy)
        logging.shutdown()
        os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
