"""Benchmark: HTTP throughput and latency of cached answers, against bare Tornado baselines.

Targets (project issue), measured with wrk on loopback for one country (``?code=KEN``) and the
global answer (no parameters) of the bundled sample's 217-economy current snapshot, and (tier-1
hits) for the global CSV, the indicator table (all economies and ``?code=KEN``), history (all
economies and ``?code=KEN``) and the snapshot catalogue:

- tier-1 (in-process) hit: at least 0.85 of the throughput of a bare Tornado handler writing
  the same pre-serialized bytes with the same headers (bench/baseline_server.py);
- tier-2 (Redis) hit, tier 1 off: at least 0.85 of a bare handler doing one redis-py asyncio
  GET of the same packed value and writing the body; checked with 32 connections and with one
  (with 32 on one key, single-flight shares each GET among the waiting requests; with one,
  every request does its own GET, like the baseline);
- 304 revalidation (If-None-Match with the answer's ETag; KEN, global and the global CSV): at
  least the bare handler's small-body (one country) throughput;
- tier-1 hit (KEN and global): at least 1.15 times the throughput of a bare handler writing
  the same body with only a Content-Type header (``/plain/``), the lead the hit lane has over
  the framework's own cost of sending bytes (issue 19).

Reported as well, with no target: the miss path (no cache at all: every request computes),
the global answer with and without ``Accept-Encoding: gzip``, and the cost of the access log
line the service writes at INFO (its production default) for every request.

One server process at a time (the service's ``server.py`` or the bare baseline), each a
subprocess; every case gets a warm-up run, then a measured run; the servers alternate in
every round and the rounds repeat, and each ratio is the median over rounds of
``case req/s / baseline req/s`` measured in the same round. A throwaway ``redis-server``
(no persistence, its own port) serves tier 2. Only 127.0.0.1 is contacted.

Run from the repository root (see bench/README.md):

    .venv/bin/python bench/http_cache.py [--quick] [--json]

Exit status: 0 when every target passes, 1 when one fails, 2 when the benchmark cannot run
(wrk or redis-server missing, a server that does not start, a response that is not the
expected answer).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:  # imported by tests/test_bench_http.py rather than run
    sys.path.insert(0, str(BENCH))

from support import (  # noqa: E402
    HOST,
    REPO_ROOT,
    BenchError,
    Process,
    WrkResult,
    answering,
    bare_environ,
    fetch,
    free_port,
    machine,
    machine_busy,
    make_data_dir,
    metrics,
    process_cpu,
    report_exit,
    run_wrk,
    server_argv,
    server_env,
    start_redis,
    table,
)

import redis  # noqa: E402

from baseline_server import ANSWERS, build_answers  # noqa: E402
from readiness.cache.answers import AnswerCodec  # noqa: E402
from readiness.domain.answer import Answer  # noqa: E402
from readiness.cache.redis_tier import ANSWER_PREFIX  # noqa: E402

TIER_TARGET = 0.85
"""Tier-1 and tier-2 hits: at least this fraction of their bare baseline's throughput."""
REVALIDATION_TARGET = 1.0
"""304: at least the bare handler's small-body throughput."""
PLAIN_TARGET = 1.15
"""Tier-1 hits: at least this multiple of a bare handler writing the same body with only a
Content-Type header (issue 19): the lead the hit lane must keep as features land on it."""

GZIP = ("Accept-Encoding", "gzip")


# --- servers and cases --------------------------------------------------------------------


@dataclass(frozen=True)
class ServerKind:
    """One server configuration: the bare baseline or server.py with some settings."""

    name: str
    description: str
    baseline: bool = False
    cache_bytes: int | None = None
    """READINESS_CACHE_BYTES; None: the default (tier 1 on)."""
    redis: bool = False
    log_level: str = "WARNING"


SERVERS: dict[str, ServerKind] = {
    server.name: server
    for server in (
        ServerKind("bare", "bench/baseline_server.py: pre-serialized bytes (the service's headers, or Content-Type "
                   "only) / one Redis GET", baseline=True),
        ServerKind("tier1", "server.py, tier 1 on (default size), no Redis, log WARNING"),
        ServerKind("tier2", "server.py, READINESS_CACHE_BYTES=0, Redis on, log WARNING", cache_bytes=0, redis=True),
        ServerKind("miss", "server.py, READINESS_CACHE_BYTES=0, no Redis, log WARNING", cache_bytes=0),
        ServerKind("tier1-info", "server.py, tier 1 on, no Redis, log INFO (production default)", log_level="INFO"),
    )
}


@dataclass(frozen=True)
class Case:
    """One wrk run: a server, a path, request headers and the response it must give."""

    name: str
    server: str
    path: str
    answer: str
    """Key of ANSWERS whose bytes the response carries."""
    gzip: bool = False
    revalidate: bool = False
    """Send If-None-Match with the answer's ETag; expect 304."""
    baseline: str | None = None
    """Name of the case this one's throughput is divided by."""
    target: float | None = None
    """Minimum ratio; None: reported only."""
    connections: int | None = None
    """wrk connections for this case; None: the run's default (--connections)."""
    plain: bool = False
    """The bare handler that sends only Content-Type: its body and Content-Type are checked,
    not the service's other headers."""


def api_path(answer: str) -> str:
    """The service's URL path and query for ANSWERS[answer]."""
    return ANSWERS[answer].path + ANSWERS[answer].query_string


def bare_path(kind: str, answer: str) -> str:
    """The baseline's URL for ANSWERS[answer] (``kind``: static or redis), same query string."""
    return f"/{kind}/{answer}" + ANSWERS[answer].query_string


ROUTE_CASES: tuple[tuple[str, str], ...] = (
    ("CSV global", "csv"),
    ("indicators", "indicators"),
    ("indicators KEN", "indicators-ken"),
    ("history", "history"),
    ("history KEN", "history-ken"),
    ("catalogue", "catalogue"),
)
"""Tier-1 hits of the other answers (case name suffix, ANSWERS key): the global CSV, the
indicator table (2.4 MB for all economies, so one country too), history and the catalogue."""


def all_cases() -> list[Case]:
    """Every wrk run. Baseline URLs carry the same query string as the service's, so Tornado
    parses the same arguments on both sides."""
    ken, world = api_path("ken"), api_path("global")
    bare_ken, bare_global = bare_path("static", "ken"), bare_path("static", "global")
    redis_ken, redis_global = bare_path("redis", "ken"), bare_path("redis", "global")
    routes = [
        case
        for label, answer in ROUTE_CASES
        for case in (
            Case(f"bare bytes {label}", "bare", bare_path("static", answer), answer),
            Case(f"tier-1 hit {label}", "tier1", api_path(answer), answer, baseline=f"bare bytes {label}",
                 target=TIER_TARGET),
        )
    ]
    return [
        # bare baselines
        Case("bare bytes KEN", "bare", bare_ken, "ken"),
        Case("bare bytes global", "bare", bare_global, "global"),
        Case("bare bytes global gzip", "bare", bare_global, "global", gzip=True),
        Case("bare 304 KEN", "bare", bare_ken, "ken", revalidate=True, baseline="bare bytes KEN"),
        Case("bare 304 global", "bare", bare_global, "global", revalidate=True, baseline="bare bytes KEN"),
        Case("bare redis GET KEN", "bare", redis_ken, "ken"),
        Case("bare redis GET global", "bare", redis_global, "global"),
        Case("bare redis GET KEN c1", "bare", redis_ken, "ken", connections=1),
        Case("bare redis GET global c1", "bare", redis_global, "global", connections=1),
        # tier 1
        Case("tier-1 hit KEN", "tier1", ken, "ken", baseline="bare bytes KEN", target=TIER_TARGET),
        Case("tier-1 hit global", "tier1", world, "global", baseline="bare bytes global", target=TIER_TARGET),
        Case("tier-1 hit global gzip", "tier1", world, "global", gzip=True, baseline="bare bytes global gzip"),
        Case("304 KEN", "tier1", ken, "ken", revalidate=True, baseline="bare bytes KEN", target=REVALIDATION_TARGET),
        Case("304 global", "tier1", world, "global", revalidate=True, baseline="bare bytes KEN",
             target=REVALIDATION_TARGET),
        # tier 2: with many connections on one key, single-flight shares one GET among the
        # requests waiting for it; with one connection every request does its own GET.
        Case("tier-2 hit KEN", "tier2", ken, "ken", baseline="bare redis GET KEN", target=TIER_TARGET),
        Case("tier-2 hit global", "tier2", world, "global", baseline="bare redis GET global", target=TIER_TARGET),
        Case("tier-2 hit KEN c1", "tier2", ken, "ken", baseline="bare redis GET KEN c1", target=TIER_TARGET,
             connections=1),
        Case("tier-2 hit global c1", "tier2", world, "global", baseline="bare redis GET global c1",
             target=TIER_TARGET, connections=1),
        # no cache: with one connection every request computes; with many, single-flight
        # shares computations among concurrent requests for the same key
        Case("miss KEN", "miss", ken, "ken", baseline="bare bytes KEN"),
        Case("miss global", "miss", world, "global", baseline="bare bytes global"),
        Case("miss KEN c1", "miss", ken, "ken", connections=1),
        Case("miss global c1", "miss", world, "global", connections=1),
        # access log at INFO
        Case("tier-1 hit KEN, log INFO", "tier1-info", ken, "ken", baseline="tier-1 hit KEN"),
        Case("tier-1 hit global, log INFO", "tier1-info", world, "global", baseline="tier-1 hit global"),
        # the other routes and CSV (after the cases above, so those run as they always did)
        *routes,
        Case("304 CSV global", "tier1", api_path("csv"), "csv", revalidate=True, baseline="bare bytes KEN",
             target=REVALIDATION_TARGET),
        # tier 1 against the plainest handler: the same body, Content-Type its only header
        *(
            case
            for label, answer in (("KEN", "ken"), ("global", "global"))
            for case in (
                Case(f"bare Content-Type only {label}", "bare", bare_path("plain", answer), answer, plain=True),
                Case(f"tier-1 hit {label} vs bare (Content-Type only)", "tier1", api_path(answer), answer,
                     baseline=f"bare Content-Type only {label}", target=PLAIN_TARGET),
            )
        ),
    ]


def request_headers(case: Case, answers: dict[str, Answer]) -> dict[str, str]:
    headers: dict[str, str] = {}
    answer = answers[case.answer]
    if case.gzip:
        headers[GZIP[0]] = GZIP[1]
    if case.revalidate:
        headers["If-None-Match"] = answer.gzip_etag if case.gzip else answer.etag
    return headers


def check_response(case: Case, port: int, answers: dict[str, Answer]) -> int:
    """One request before the measured runs: the response must be the expected answer.

    Returns the bytes of the response body (for the table).
    """
    status, headers, body = fetch(port, case.path, request_headers(case, answers))
    answer = answers[case.answer]
    compressed = case.gzip and answer.gzipped is not None
    etag = answer.gzip_etag if compressed else answer.etag
    expected_status, expected_body = (
        (304, b"") if case.revalidate else (200, answer.gzipped if compressed else answer.body)
    )
    problems = []
    if status != expected_status:
        problems.append(f"status {status}, expected {expected_status}")
    if body != expected_body:
        problems.append(f"body of {len(body)} bytes differs from the expected {len(expected_body or b'')} bytes")
    if case.plain:
        problems += plain_header_problems(headers, answer)
    else:
        problems += answer_header_problems(case, headers, answer, etag, compressed)
    if problems:
        raise BenchError(f"{case.name} ({case.server} {case.path}): " + "; ".join(problems))
    return len(body)


def answer_header_problems(
    case: Case, headers: dict[str, str], answer: Answer, etag: str, compressed: bool
) -> list[str]:
    """What a response of the service (or of the bare handler sending its headers) lacks:
    the ETag, Content-Encoding, the answer's own headers; or a Server header it should not send."""
    problems = []
    if headers.get("etag") != etag:
        problems.append(f"ETag {headers.get('etag')}, expected {etag}")
    if compressed and headers.get("content-encoding") != "gzip" and not case.revalidate:
        problems.append("no Content-Encoding: gzip")
    if "server" in headers:
        problems.append("a Server header")
    for name, value in answer.headers:  # the answer's own: Content-Type, Last-Modified, X-Total-Count...
        if case.revalidate and name in ("Content-Type", "Content-Disposition"):
            continue  # a 304 sends no representation
        if headers.get(name.lower()) != value:
            problems.append(f"{name} {headers.get(name.lower())!r}, expected {value!r}")
    return problems


PLAIN_HEADERS = frozenset({"content-type", "content-length", "date", "connection"})
"""Every header the Content-Type-only baseline may send: its own, the two Tornado always adds,
and the ``Connection`` it adds for a client that closes."""


def plain_header_problems(headers: dict[str, str], answer: Answer) -> list[str]:
    """What the Content-Type-only baseline's response does wrong: a Content-Type other than
    the answer's, or any header beyond ``PLAIN_HEADERS``."""
    problems = []
    if headers.get("content-type") != answer.meta.format.content_type:
        problems.append(f"Content-Type {headers.get('content-type')!r}, expected {answer.meta.format.content_type!r}")
    extra = sorted(set(headers) - PLAIN_HEADERS)
    if extra:
        problems.append(f"headers beyond Content-Type: {', '.join(extra)}")
    return problems


# --- wrk ----------------------------------------------------------------------------------


@dataclass
class MeasuredRun(WrkResult):
    """A measured wrk run and the CPU time spent meanwhile."""

    cpu_us: float = 0.0
    """Server process CPU time (user + system) per request during the run."""
    redis_cpu_us: float = 0.0
    """redis-server CPU time per request during the run."""
    others_cores: float = 0.0
    """CPU used by every other process on the machine during the run, in cores (noise)."""


def run_case(
    port: int, case: Case, headers: dict[str, str], seconds: float, connections: int
) -> WrkResult:
    """One wrk run of ``case`` with ``headers``."""
    return run_wrk(port, case.path, seconds, connections, headers)


# --- metrics scraped from the service -----------------------------------------------------


QUERY_ROUTES = tuple(f'route="{label}"' for label in ("v1", "indicators", "history", "snapshots"))
"""The request counter's labels of the routes the cases ask (not /healthz, /metrics...)."""


def scrape(admin_port: int) -> dict[str, float]:
    """The service's counters that say where answers came from (its operations port)."""
    wanted = {
        'readiness_cache_lookups_total{outcome="hit",tier="memory"}': "memory_hit",
        'readiness_cache_lookups_total{outcome="miss",tier="memory"}': "memory_miss",
        'readiness_cache_lookups_total{outcome="hit",tier="redis"}': "redis_hit",
        'readiness_cache_lookups_total{outcome="miss",tier="redis"}': "redis_miss",
        'readiness_cache_lookups_total{outcome="error",tier="redis"}': "redis_error",
        'readiness_cache_lookups_total{outcome="skipped",tier="redis"}': "redis_skipped",
        "readiness_answers_computed_total": "computed",
    }
    values = dict.fromkeys(wanted.values(), 0.0)
    values["requests"] = 0.0
    for metric, value in metrics(admin_port).items():
        if metric in wanted:
            values[wanted[metric]] = value
        elif metric.startswith("readiness_http_requests_total{") and any(route in metric for route in QUERY_ROUTES):
            values["requests"] += value
    return values


# --- the run ------------------------------------------------------------------------------


@dataclass
class Samples:
    runs: list[MeasuredRun] = field(default_factory=list)
    sources: list[dict[str, float]] = field(default_factory=list)


def start_server(
    kind: ServerKind, data_dir: Path, redis_port: int, workdir: Path, round_number: int
) -> tuple[Process, int]:
    port, admin_port = free_port(), 0
    log_path = workdir / f"{kind.name}-{round_number}.log"
    redis_url = f"redis://{HOST}:{redis_port}/0"
    if kind.baseline:
        argv = [sys.executable, str(REPO_ROOT / "bench" / "baseline_server.py"), "--port", str(port),
                "--data-dir", str(data_dir), "--redis-url", redis_url]
        env = bare_environ()
    else:
        argv = server_argv(port, data_dir)
        admin_port = free_port()
        # No compute budget and no Redis admission: the miss cases measure what a computation
        # costs, not the budget that sheds them, and tier 2 must hold each answer at its first
        # computation, as the baseline's Redis does (docs/CACHING.md#the-compute-budget).
        env = server_env(admin_port, READINESS_LOG_LEVEL=kind.log_level,
                         READINESS_COMPUTE_BYTES_PER_SECOND="0", READINESS_REDIS_ADMIT_WINDOW_SECONDS="0")
        if kind.cache_bytes is not None:
            env["READINESS_CACHE_BYTES"] = str(kind.cache_bytes)
        if kind.redis:
            env["READINESS_REDIS_URL"] = redis_url
    process, port = answering(Process(kind.name, argv, env, log_path, admin_port), port)
    if not kind.baseline:
        # The catalogue awaits every snapshot's summary: the start-up's background read of
        # the archives is then over, and cannot run during a measured case.
        status, _, _ = fetch(port, ANSWERS["catalogue"].path)
        if status != 200:
            process.stop()
            raise BenchError(f"{kind.name}: the catalogue answered {status}:\n{process.tail()}")
    return process, port


def fill_redis(port: int, redis_port: int, keys: dict[str, str], cases: list[Case], answers: dict[str, Answer]) -> None:
    """Make the tier-2 server compute each answer once and store it; wait until Redis has it.

    The stored value must be the very bytes the baseline GETs (``AnswerCodec().pack``);
    ``keys`` are the service's cache keys by ANSWERS name.
    """
    client = redis.Redis(host=HOST, port=redis_port)
    try:
        for case in cases:
            fetch(port, case.path)
            cached = keys[case.answer]
            key = ANSWER_PREFIX + cached
            deadline = time.monotonic() + 5
            while (stored := client.get(key)) is None:
                if time.monotonic() > deadline:
                    raise BenchError(f"the tier-2 server did not store {key} in Redis")
                time.sleep(0.02)
            if stored != AnswerCodec().pack(cached, answers[case.answer]):
                raise BenchError(f"{key} in Redis is not the packed answer the baseline serves")
    finally:
        client.close()


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured_run(
    port: int, case: Case, headers: dict[str, str], seconds: float, connections: int, pids: tuple[int, int]
) -> MeasuredRun:
    """One wrk run with the CPU time the server, Redis and everything else spent meanwhile."""
    server_pid, redis_pid = pids
    start = (process_cpu(server_pid), process_cpu(redis_pid), machine_busy(), children_cpu(),
             resource.getrusage(resource.RUSAGE_SELF), time.monotonic())
    result = run_case(port, case, headers, seconds, connections)
    self_usage = resource.getrusage(resource.RUSAGE_SELF)
    server = process_cpu(server_pid) - start[0]
    redis_cpu = process_cpu(redis_pid) - start[1]
    wrk = children_cpu() - start[3]
    bench = (self_usage.ru_utime + self_usage.ru_stime) - (start[4].ru_utime + start[4].ru_stime)
    others = machine_busy() - start[2] - server - redis_cpu - wrk - bench
    wall = time.monotonic() - start[5]
    served = max(1, result.requests)
    return MeasuredRun(
        **asdict(result), cpu_us=server * 1e6 / served, redis_cpu_us=redis_cpu * 1e6 / served,
        others_cores=max(0.0, others / wall),
    )


def server_order(round_number: int) -> list[str]:
    """Servers alternate: the baseline first in even rounds, last in odd ones."""
    order = list(SERVERS)
    return order if round_number % 2 == 0 else order[1:] + order[:1]


def selected_cases(only: str | None) -> list[Case]:
    """Every case, or those whose name matches the regular expression ``only`` and the cases
    they are compared with (so each ratio is still measured against its baseline in the same
    round)."""
    cases = all_cases()
    if only is None:
        return cases
    pattern = re.compile(only)
    wanted = {case.name for case in cases if pattern.search(case.name)}
    if not wanted:
        raise BenchError(f"no case matches --only {only!r}")
    wanted |= {case.baseline for case in cases if case.name in wanted and case.baseline is not None}
    return [case for case in cases if case.name in wanted]


def run(
    quick: bool,
    rounds: int | None,
    connections: int,
    seconds: float | None,
    progress: bool,
    only: str | None = None,
) -> dict[str, Any]:
    if shutil.which("wrk") is None:
        raise BenchError("wrk is not installed; install it with: apt-get install -y wrk")
    if shutil.which("redis-server") is None:
        raise BenchError("redis-server is not installed; install it with: apt-get install -y redis-server")
    rounds = rounds or (1 if quick else 3)
    seconds = seconds or (2.0 if quick else 5.0)
    warmup = 1.0 if quick else 2.0
    cases = selected_cases(only)
    samples = {case.name: Samples() for case in cases}
    body_bytes: dict[str, int] = {}

    with tempfile.TemporaryDirectory(prefix="bench-http-cache-") as temp:
        workdir = Path(temp)
        data_dir, snapshot, origin = make_data_dir(workdir / "data")
        keyed = asyncio.run(build_answers(data_dir))  # the baseline's own answers and keys
        answers = {name: answer for name, (_, answer) in keyed.items()}
        keys = {name: key for name, (key, _) in keyed.items()}
        redis_process, redis_port = start_redis(workdir)
        try:
            for round_number in range(rounds):
                for server_name in server_order(round_number):
                    kind = SERVERS[server_name]
                    server_cases = [case for case in cases if case.server == server_name]
                    if not server_cases:
                        continue
                    process, port = start_server(kind, data_dir, redis_port, workdir, round_number)
                    try:
                        if kind.redis:
                            fill_redis(port, redis_port, keys, server_cases, answers)
                        for case in server_cases:
                            body_bytes[case.name] = check_response(case, port, answers)
                            headers = request_headers(case, answers)
                            conns = case.connections or connections
                            run_case(port, case, headers, warmup, conns)
                            before = None if kind.baseline else scrape(process.admin_port)
                            result = measured_run(
                                port, case, headers, seconds, conns, (process.popen.pid, redis_process.popen.pid)
                            )
                            if result.errors or result.bad_status:
                                raise BenchError(
                                    f"{case.name}: wrk saw {result.errors} socket errors and "
                                    f"{result.bad_status} non-2xx/3xx responses:\n{process.tail()}"
                                )
                            samples[case.name].runs.append(result)
                            if before is not None:
                                after = scrape(process.admin_port)
                                samples[case.name].sources.append({k: after[k] - before[k] for k in after})
                            if progress:
                                print(
                                    f"  round {round_number + 1}/{rounds}  {case.name:<30} "
                                    f"{result.rps:>7.0f} req/s  p50 {result.p50_ms:.2f} ms  "
                                    f"p99 {result.p99_ms:.2f} ms  "
                                    f"cpu {result.cpu_us:.0f} µs/req  others {result.others_cores:.2f} cores",
                                    file=sys.stderr,
                                    flush=True,
                                )
                        if process.popen.poll() is not None:
                            raise BenchError(f"{kind.name} died:\n{process.tail()}")
                    finally:
                        process.stop()
        finally:
            redis_process.stop()

    rows: list[dict[str, Any]] = []
    for case in cases:
        runs = samples[case.name].runs
        row: dict[str, Any] = {
            "case": case.name,
            "server": case.server,
            "path": case.path,
            "headers": request_headers(case, answers),
            "status": 304 if case.revalidate else 200,
            "body_bytes": body_bytes[case.name],
            "rps": statistics.median(r.rps for r in runs),
            "rps_rounds": [round(r.rps, 1) for r in runs],
            "p50_ms": statistics.median(r.p50_ms for r in runs),
            "p99_ms": statistics.median(r.p99_ms for r in runs),
            "requests": sum(r.requests for r in runs),
            "connections": case.connections or connections,
            "cpu_us": statistics.median(r.cpu_us for r in runs),
            "redis_cpu_us": statistics.median(r.redis_cpu_us for r in runs),
            "others_cores": max(r.others_cores for r in runs),
            "baseline": case.baseline,
            "ratio": None,
            "cpu_ratio": None,
            "target": case.target,
            "passed": None,
        }
        if case.baseline is not None:
            base_runs = samples[case.baseline].runs
            row["ratio"] = statistics.median(r.rps / b.rps for r, b in zip(runs, base_runs, strict=True))
            row["cpu_ratio"] = statistics.median(
                b.cpu_us / r.cpu_us for r, b in zip(runs, base_runs, strict=True) if r.cpu_us
            )
            if case.target is not None:
                row["passed"] = row["ratio"] >= case.target
        sources = samples[case.name].sources
        if sources:
            totals = {key: sum(s[key] for s in sources) for key in sources[0]}
            served = totals.pop("requests") or 1
            row["per_request"] = {key: round(value / served, 4) for key, value in totals.items() if value}
        rows.append(row)
    by_case = {row["case"]: row for row in rows}

    def log_cost(case: str) -> dict[str, float]:
        info, warning = by_case[case + ", log INFO"], by_case[case]
        return {
            "throughput_change": info["ratio"] - 1.0,
            "us_per_request": 1e6 / info["rps"] - 1e6 / warning["rps"],
            "cpu_us_per_request": info["cpu_us"] - warning["cpu_us"],
        }

    return {
        "benchmark": "http_cache",
        "date": time.strftime("%Y-%m-%d"),
        "quick": quick,
        "only": only,
        "rounds": rounds,
        "seconds": seconds,
        "warmup_seconds": warmup,
        "connections": connections,
        "wrk_threads": 1,
        "economies": len(snapshot.countries),
        "data": origin,
        "machine": machine(),
        "servers": {name: kind.description for name, kind in SERVERS.items()},
        "results": rows,
        "access_log_cost": {
            name: log_cost(case)
            for name, case in (("KEN", "tier-1 hit KEN"), ("global", "tier-1 hit global"))
            if case in by_case and case + ", log INFO" in by_case
        },
        "targets": [
            {
                "case": row["case"],
                "baseline": row["baseline"],
                "ratio": row["ratio"],
                "cpu_ratio": row["cpu_ratio"],
                "target": row["target"],
                "passed": row["passed"],
            }
            for row in rows
            if row["target"] is not None
        ],
        "passed": all(row["passed"] for row in rows if row["target"] is not None),
    }


# --- report -------------------------------------------------------------------------------


def print_table(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(
        f"HTTP cache benchmark: wrk -t{report['wrk_threads']} -c{report['connections']} (c1 cases: -c1) "
        f"-d{report['seconds']:g}s on 127.0.0.1, warm-up {report['warmup_seconds']:g}s per case, "
        f"{report['rounds']} rounds" + (", QUICK" if report["quick"] else "")
        + (f", only cases matching {report['only']!r} and their baselines" if report["only"] else "")
    )
    print(f"data: {report['economies']} economies, {report['data']}")
    print(
        f"{m['cpus']} CPUs ({m['cpu']}), Linux {m['kernel']}, Python {m['python']}, Tornado {m['tornado']}, "
        f"redis-py {m['redis_py']} + hiredis {m['hiredis']}, redis-server {m['redis_server']}, {m['wrk']}"
    )
    print("req/s: median over rounds; p50/p99: median over rounds of wrk's latency percentiles (ms);")
    print("cpu: server CPU µs per request (median); ratio: median over rounds of req/s / baseline req/s")
    print("in the same round; cpu ratio: baseline cpu / case cpu (less sensitive to other load);")
    print("others: most CPU (in cores, of the machine's) other processes used during a measured run\n")
    print("servers:")
    for name, description in report["servers"].items():
        print(f"  {name:<10} {description}")
    print()
    lines: list[tuple[str, ...]] = []
    for row in report["results"]:
        verdict = "" if row["passed"] is None else ("PASS" if row["passed"] else "FAIL")
        lines.append(
            (
                str(row["case"]),
                str(row["status"]),
                str(row["body_bytes"]),
                f"{row['rps']:.0f}",
                f"{row['p50_ms']:.2f}",
                f"{row['p99_ms']:.2f}",
                f"{row['cpu_us']:.0f}",
                f"{row['others_cores']:.2f}",
                str(row["baseline"] or ""),
                "" if row["ratio"] is None else f"{row['ratio']:.2f}",
                "" if row["cpu_ratio"] is None else f"{row['cpu_ratio']:.2f}",
                "" if row["target"] is None else f">={row['target']:.2f}",
                verdict,
            )
        )
    header = ("case", "status", "bytes", "req/s", "p50", "p99", "cpu", "others", "baseline", "ratio",
              "cpu ratio", "target", "")
    for line in table(header, lines):
        print(line.rstrip())

    print("\nwhere the service's answers came from (per request, measured runs):")
    for row in report["results"]:
        if "per_request" in row:
            parts = ", ".join(f"{key} {value:g}" for key, value in row["per_request"].items())
            redis_cpu = f"; redis-server cpu {row['redis_cpu_us']:.0f} µs/req" if row["redis_cpu_us"] >= 0.5 else ""
            print(f"  {row['case']:<30} {parts}{redis_cpu}")
    print("\nreq/s of each round:")
    for row in report["results"]:
        print(f"  {row['case']:<30} {' '.join(f'{v:.0f}' for v in row['rps_rounds'])}")
    if report["access_log_cost"]:
        print("\naccess log line at INFO (production default) vs WARNING, tier-1 hits:")
    for name, cost in report["access_log_cost"].items():
        print(
            f"  {name:<7} throughput {cost['throughput_change'] * 100:+.1f}%, "
            f"{cost['us_per_request']:+.1f} µs per request (from req/s), "
            f"{cost['cpu_us_per_request']:+.1f} µs server CPU per request"
        )
    print()
    for target in report["targets"]:
        verdict = "PASS" if target["passed"] else "FAIL"
        print(f"{verdict}  {target['case']}: {target['ratio']:.2f} of {target['baseline']} "
              f"(target >= {target['target']:.2f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 s per case, 1 round (smoke run)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--rounds", type=int, help="rounds (default 3, 1 with --quick)")
    parser.add_argument("--seconds", type=float, help="seconds per measured run (default 5, 2 with --quick)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (default 32)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--only", metavar="REGEX", help="only the cases whose name matches REGEX, and their baselines "
        "(e.g. 'tier-2 hit .* c1': the one-connection tier-2 targets, about 2 minutes)"
    )
    args = parser.parse_args(argv)
    def report() -> dict[str, Any]:
        progress = not args.quiet
        return run(args.quick, args.rounds, args.connections, args.seconds, progress, args.only)

    return report_exit(report, args.json, print_table, "bench/http_cache.py")


if __name__ == "__main__":
    sys.exit(main())
