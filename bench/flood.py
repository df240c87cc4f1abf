"""Benchmark: an innocent client's cached requests while another client floods misses.

The hostile-client reviews' cases. Meanwhile an innocent client sends a popular cached request
(``?code=KEN``, a tier-1 hit) at a fixed rate (50 per second by default); what matters is its
latency: p50 and p99 under each flood, as ratios against the same server with no flood,
measured in the same run. The floods (``--flood``, repeatable; all three by default):

- ``large``: one client sends, at a fixed rate (49 per second), requests for 200 country
  codes, each a different set, so every one is a miss whose answer (about 1.7 MB, with a
  110 KB gzip copy) must be computed;
- ``small``: one client sends, at a fixed rate (1,000 per second), requests for 1 to 4 codes,
  each a different set: misses cheap enough to be computed on the event loop;
- ``costly``: 16 connections, each sending its next request as soon as the last is answered
  (200 or 503 alike), for the costliest answers: the indicator table of 150 to 216 random
  economies (every indicator, 1.7 to 2.4 MB), asking for gzip.

Each server configuration is a real ``server.py`` process (no Redis, log at WARNING):

- ``inline``: ``READINESS_COMPUTE_THREADS=0``, every answer computed on the event loop, as
  before the compute pool existed;
- ``unbudgeted``: the compute pool without its budget, without the pause before a 503, and with
  Python's default GIL switch interval (``READINESS_COMPUTE_BYTES_PER_SECOND=0``,
  ``READINESS_COMPUTE_SHED_PAUSE_MS=0``, ``READINESS_SWITCH_INTERVAL_US=5000``): the code
  before the compute budget;
- ``pool``: the defaults, with the budget the manifests set (``READINESS_COMPUTE_BYTES_PER_SECOND=8388608``,
  k8s/base/readiness.env; the embedded default has none). Extra ``--server NAME:VAR=VALUE,...`` options
  replace these three.

The fixed-rate clients are open-loop (a request leaves at its scheduled time whether or not
earlier ones have been answered, over as many keep-alive connections as needed) and latency
counts from the scheduled time, so a stalled server cannot hide its stall by slowing the
client. The innocent client and the flood run in two separate processes, so that reading the
flood's bodies does not delay the innocent client's clock. Only 127.0.0.1 is contacted.

Run from the repository root (see bench/README.md):

    .venv/bin/python bench/flood.py [--seconds 15] [--rounds 2] [--flood small] [--json]

Exit status 0, or 2 when the benchmark cannot run (a server that does not start, a cached
request that is not answered 200).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from support import (
    HOST,
    BenchError,
    Process,
    answering,
    fetch,
    free_port,
    make_data_dir,
    metrics,
    process_cpu,
    server_argv,
    server_env,
)

API = "/api/v1/readiness"
INDICATORS = "/api/v1/indicators"
INNOCENT_PATH = API + "?code=KEN"
CONNECT_TIMEOUT = 10.0
RESPONSE_TIMEOUT = 30.0


@dataclass(frozen=True)
class ServerConfig:
    """One server.py configuration: a name and the READINESS_* variables it runs with."""

    name: str
    env: dict[str, str]


BEFORE_BUDGET = {"READINESS_COMPUTE_BYTES_PER_SECOND": "0", "READINESS_COMPUTE_SHED_PAUSE_MS": "0",
                 "READINESS_SWITCH_INTERVAL_US": "5000"}
"""The settings that turn off the compute budget, the pause before a 503 and the shorter GIL
switch interval: the server as it was before them."""

DEFAULT_SERVERS = (
    ServerConfig("inline", {"READINESS_COMPUTE_THREADS": "0", **BEFORE_BUDGET}),
    ServerConfig("unbudgeted", BEFORE_BUDGET),
    ServerConfig("pool", {"READINESS_COMPUTE_BYTES_PER_SECOND": "8388608"}),
)

FLOODS = ("large", "small", "costly")
COSTLY_ECONOMIES = (150, 216)
"""How many economies each costly request asks for: a random number in this range (not all 217,
whose answer would be computed once and then be a cache hit)."""


# --- the open-loop client ----------------------------------------------------------------


@dataclass
class ClientResult:
    """What one client saw: latency of every answered request, by status, in ms."""

    sent: int = 0
    latencies_ms: dict[int, list[float]] = field(default_factory=dict)
    failures: int = 0
    """Requests with no HTTP response (connection error or timeout)."""


class _Connections:
    """Keep-alive connections to the server: an idle one is reused, else a new one opened."""

    def __init__(self, port: int, gzip: bool = False) -> None:
        self.port = port
        self.accept = "Accept-Encoding: gzip\r\n" if gzip else ""
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, path: str) -> tuple[int, int]:
        """GET ``path``; return the status and body length. Raises OSError or TimeoutError."""
        if self.idle:
            reader, writer = self.idle.pop()
        else:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port), CONNECT_TIMEOUT)
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n{self.accept}\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), RESPONSE_TIMEOUT)
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            await asyncio.wait_for(reader.readexactly(length), RESPONSE_TIMEOUT)
        except BaseException:
            writer.close()
            raise
        self.idle.append((reader, writer))
        return status, length


async def _open_loop(port: int, paths: list[str], rate: float, start: float, gzip: bool) -> ClientResult:
    """Send ``paths`` in turn, one every 1/``rate`` s from wall-clock time ``start``."""
    connections = _Connections(port, gzip)
    result = ClientResult()
    loop = asyncio.get_running_loop()
    offset = time.time() - loop.time()  # loop time of the shared wall-clock start

    async def one(path: str, scheduled: float) -> None:
        try:
            status, _ = await connections.request(path)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
            result.failures += 1
            return
        result.latencies_ms.setdefault(status, []).append((loop.time() - scheduled) * 1000)

    tasks = []
    for number, path in enumerate(paths):
        scheduled = start - offset + number / rate
        delay = scheduled - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(path, scheduled)))
        result.sent += 1
    await asyncio.gather(*tasks)
    for _, writer in connections.idle:
        writer.close()
    return result


def run_client(port: int, paths: list[str], rate: float, start: float, gzip: bool = False) -> ClientResult:
    """One open-loop client, in its own process: see ``_open_loop``."""
    return asyncio.run(_open_loop(port, paths, rate, start, gzip))


async def _closed_loop(port: int, codes: list[str], connections: int, seconds: float, start: float,
                       seed: int) -> ClientResult:
    """From wall-clock time ``start`` for ``seconds``, ``connections`` keep-alive connections
    each ask for a costly answer as soon as their last one is answered (a 503 too)."""
    result = ClientResult()
    chooser = random.Random(seed)
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, start - time.time()))
    end = loop.time() + seconds

    async def connection() -> None:
        client = _Connections(port, gzip=True)
        while loop.time() < end:
            chosen = ",".join(chooser.sample(codes, chooser.randint(*COSTLY_ECONOMIES)))
            sent = loop.time()
            result.sent += 1
            try:
                status, _ = await client.request(f"{INDICATORS}?codes={chosen}")
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                result.failures += 1
                continue
            result.latencies_ms.setdefault(status, []).append((loop.time() - sent) * 1000)
        for _, writer in client.idle:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return result


def run_closed(port: int, codes: list[str], connections: int, seconds: float, start: float, seed: int) -> ClientResult:
    """The costly flood, in its own process: see ``_closed_loop``."""
    return asyncio.run(_closed_loop(port, codes, connections, seconds, start, seed))


def flood_paths(codes: list[str], count: int, per_request: tuple[int, int], seed: int) -> list[str]:
    """``count`` distinct requests for ``per_request`` (a range) codes each: every one a miss."""
    chooser = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    paths: list[str] = []
    while len(paths) < count:
        chosen = tuple(sorted(chooser.sample(codes, chooser.randint(*per_request))))
        if chosen not in seen:
            seen.add(chosen)
            paths.append(f"{API}?codes={','.join(chosen)}")
    return paths


# --- one phase: quiet or flooded -----------------------------------------------------------


@dataclass
class Phase:
    """One measured phase on one server."""

    server: str
    kind: str
    """"quiet", or the flood's name."""
    innocent: ClientResult
    flood: ClientResult | None
    server_cpu_cores: float
    shed: float
    """How much the server's readiness_compute_shed_total grew during the phase."""


def start_server(
    config: ServerConfig, data_dir: Path, workdir: Path, label: str, cpus: str | None
) -> tuple[Process, int]:
    port = free_port()
    admin_port = free_port()  # /metrics is on the operations port only
    env = server_env(admin_port, **config.env)
    argv = server_argv(port, data_dir)
    if cpus is not None:
        argv = ["taskset", "-c", cpus, *argv]
    return answering(Process(config.name, argv, env, workdir / f"{label}.log", admin_port), port)


def settle(pid: int, timeout: float = 30.0) -> None:
    """Wait (at most ``timeout`` s) until the server is idle: after start it reads every
    snapshot's summary in the background, seconds of CPU that would land in the quiet phase."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = process_cpu(pid)
        time.sleep(0.5)
        if process_cpu(pid) - before < 0.02:
            return


def shed_count(admin_port: int) -> float:
    return metrics(admin_port).get("readiness_compute_shed_total", 0.0)


def run_phase(
    pool: ProcessPoolExecutor, config: ServerConfig, port: int, process: Process, kind: str,
    args: argparse.Namespace, codes: list[str], seed: int,
) -> Phase:
    """The innocent client alone (``kind`` "quiet") or beside the flood named ``kind``."""
    pid = process.popen.pid
    start = time.time() + 0.5
    innocent_paths = [INNOCENT_PATH] * int(args.seconds * args.innocent_rate)
    innocent = pool.submit(run_client, port, innocent_paths, args.innocent_rate, start)
    flooding: Future[ClientResult] | None = None
    if kind == "large":
        paths = flood_paths(codes, int(args.seconds * args.rate), (args.codes, args.codes), seed)
        flooding = pool.submit(run_client, port, paths, args.rate, start)
    elif kind == "small":
        paths = flood_paths(codes, int(args.seconds * args.small_rate), (1, 4), seed)
        flooding = pool.submit(run_client, port, paths, args.small_rate, start, True)
    elif kind == "costly":
        flooding = pool.submit(run_closed, port, codes, args.connections, args.seconds, start, seed)
    shed_before = shed_count(process.admin_port)
    cpu_before, wall_before = process_cpu(pid), time.monotonic()
    innocent_result = innocent.result()
    flood_result = flooding.result() if flooding is not None else None
    cores = (process_cpu(pid) - cpu_before) / (time.monotonic() - wall_before)
    shed = shed_count(process.admin_port) - shed_before
    return Phase(config.name, kind, innocent_result, flood_result, cores, shed)


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --- report --------------------------------------------------------------------------------


def summarize(phases: list[Phase]) -> list[dict[str, object]]:
    """One row per server and phase kind: medians over rounds, ratios to the quiet phase."""
    rows: list[dict[str, object]] = []
    kinds = list(dict.fromkeys(phase.kind for phase in phases))
    for server in dict.fromkeys(phase.server for phase in phases):
        quiet = [p for p in phases if p.server == server and p.kind == "quiet"]
        base50 = statistics.median(percentile(p.innocent.latencies_ms.get(200, []), 0.50) for p in quiet)
        base99 = statistics.median(percentile(p.innocent.latencies_ms.get(200, []), 0.99) for p in quiet)
        for kind in kinds:
            group = [p for p in phases if p.server == server and p.kind == kind]
            p50 = statistics.median(percentile(p.innocent.latencies_ms.get(200, []), 0.50) for p in group)
            p99 = statistics.median(percentile(p.innocent.latencies_ms.get(200, []), 0.99) for p in group)
            worst = max(percentile(p.innocent.latencies_ms.get(200, []), 1.0) for p in group)
            row: dict[str, object] = {
                "server": server, "phase": kind, "innocent_p50_ms": p50, "innocent_p99_ms": p99,
                "innocent_max_ms": worst, "p50_ratio": p50 / base50, "p99_ratio": p99 / base99,
                "innocent_non_200": sum(sum(len(v) for s, v in p.innocent.latencies_ms.items() if s != 200)
                                        + p.innocent.failures for p in group),
                "server_cpu_cores": statistics.median(p.server_cpu_cores for p in group),
            }
            if kind != "quiet":
                sent = sum(p.flood.sent for p in group if p.flood)
                ok = [ms for p in group if p.flood for ms in p.flood.latencies_ms.get(200, [])]
                shed = sum(len(p.flood.latencies_ms.get(503, [])) for p in group if p.flood)
                row.update(
                    flood_sent=sent, flood_200=len(ok), flood_503=shed,
                    flood_failed=sum(p.flood.failures for p in group if p.flood),
                    flood_200_p50_ms=percentile(ok, 0.5), flood_200_p99_ms=percentile(ok, 0.99),
                    shed_counted=sum(p.shed for p in group),
                )
            rows.append(row)
    return rows


def print_report(rows: list[dict[str, object]], args: argparse.Namespace, data: str) -> None:
    print(f"Floods against an innocent {INNOCENT_PATH} at {args.innocent_rate:g}/s: large = distinct "
          f"{args.codes}-code misses at {args.rate:g}/s; small = distinct 1-4-code misses at {args.small_rate:g}/s; "
          f"costly = {args.connections} connections asking {INDICATORS} for {COSTLY_ECONOMIES[0]}-"
          f"{COSTLY_ECONOMIES[1]} economies (gzip), each as soon as its last answer came")
    print(f"{args.rounds} rounds x {args.seconds:g} s per phase; data: {data}; Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs" + (f", server on CPU {args.cpus} only, clients on the others" if args.cpus else "")
          + "; medians over rounds; ratio = phase / the same server's quiet phase")
    print()
    print(f"{'server':14} {'phase':9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'p50 x':>7} {'p99 x':>7} "
          f"{'cpu':>5}  flood: sent / 200 / 503 / failed, 200 p50 / p99 ms")
    for row in rows:
        line = (f"{row['server']:14} {row['phase']:9} {row['innocent_p50_ms']:8.2f} {row['innocent_p99_ms']:8.2f} "
                f"{row['innocent_max_ms']:8.1f} {row['p50_ratio']:7.2f} {row['p99_ratio']:7.2f} "
                f"{row['server_cpu_cores']:5.2f}")
        if row["phase"] != "quiet":
            line += (f"  {row['flood_sent']} / {row['flood_200']} / {row['flood_503']} / {row['flood_failed']}, "
                     f"{row['flood_200_p50_ms']:.1f} / {row['flood_200_p99_ms']:.1f}")
        if row["innocent_non_200"]:
            line += f"  innocent non-200 or failed: {row['innocent_non_200']}"
        print(line)


def cpu_list(text: str) -> set[int]:
    """The CPUs of a taskset list such as ``1``, ``0,2`` or ``2-3``."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def parse_server(text: str) -> ServerConfig:
    name, _, assignments = text.partition(":")
    env = dict(pair.split("=", 1) for pair in assignments.split(",") if pair)
    return ServerConfig(name, env)


def run_rounds(
    pool: ProcessPoolExecutor, args: argparse.Namespace, workdir: Path
) -> tuple[list[Phase], str]:
    """Every round's phases, and where the data came from; BenchError when a server does not
    start or does not answer the cached request with a 200."""
    servers = args.server or list(DEFAULT_SERVERS)
    floods = list(dict.fromkeys(args.flood or FLOODS))
    phases: list[Phase] = []
    data_dir, snapshot, data = make_data_dir(workdir / "data")
    codes = sorted(snapshot.countries)
    seed = 0
    for round_number in range(args.rounds):
        order = servers if round_number % 2 == 0 else servers[::-1]
        for config in order:
            print(f"round {round_number + 1}: {config.name}", file=sys.stderr)
            label = f"{config.name}-{round_number}"
            process, port = start_server(config, data_dir, workdir, label, args.cpus)
            try:
                if fetch(port, INNOCENT_PATH)[0] != 200:  # now a tier-1 hit
                    raise BenchError(f"{INNOCENT_PATH} is not answered 200")
                settle(process.popen.pid)
                for kind in ["quiet", *floods]:
                    seed += 1
                    phases.append(run_phase(pool, config, port, process, kind, args, codes, seed))
            finally:
                process.stop()
    return phases, data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--flood", action="append", choices=FLOODS, default=[],
                        help="a flood to run (repeatable; default: all three)")
    parser.add_argument("--rate", type=float, default=49.0, help="large flood: requests per second")
    parser.add_argument("--codes", type=int, default=200, help="large flood: codes per request")
    parser.add_argument("--small-rate", type=float, default=1000.0, help="small flood: requests per second")
    parser.add_argument("--connections", type=int, default=16, help="costly flood: connections")
    parser.add_argument("--innocent-rate", type=float, default=50.0, help="innocent requests per second")
    parser.add_argument("--server", action="append", type=parse_server, default=[],
                        help="NAME:READINESS_X=1,READINESS_Y=2 (replaces the default inline, unbudgeted, pool)")
    parser.add_argument("--cpus", help="run the server on these CPUs only (taskset -c), e.g. 1: a one-core pod;"
                        " the clients then run on the others, as they would on other machines")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.cpus:
        others = set(os.sched_getaffinity(0)) - cpu_list(args.cpus)
        if others:  # this process, and so the clients' processes started below
            os.sched_setaffinity(0, others)
    with tempfile.TemporaryDirectory(prefix="flood-bench-") as temp, ProcessPoolExecutor(2) as pool:
        try:
            phases, data = run_rounds(pool, args, Path(temp))
        except BenchError as error:
            print(f"flood.py: {error}", file=sys.stderr)
            return 2
    rows = summarize(phases)
    if args.json:
        print(json.dumps({"rows": rows, "phases": [asdict(p) for p in phases]}, default=str))
    else:
        print_report(rows, args, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
