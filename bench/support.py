"""What the benchmark scripts in bench/ share: ports, HTTP, server processes, Redis, nginx,
wrk, CPU time, the benchmark's data directory and the pass/fail report.

A script runs as ``python bench/NAME.py``, so Python puts bench/ first on sys.path and
``from support import ...`` works; importing this module puts the repository root on
sys.path too, for ``loaders``, ``readiness``, ``tests``... Nothing of the service (nor Redis,
Tornado or nginx's test helper) is imported at module level, only inside the helpers that need
it: a script that uses none of them does not depend on them.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loaders import Snapshot
    from tests.edge_nginx import Nginx

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

HOST = "127.0.0.1"
"""The only address the benchmarks contact."""
SAMPLE_DIR = REPO_ROOT / "data" / "sample"
ECONOMIES = 217
"""Economies in the bundled sample's current snapshot: the size the targets are set for."""


class BenchError(Exception):
    """The benchmark cannot run; exit status 2."""


# --- the report ---------------------------------------------------------------------------


def report_exit(
    run: Callable[[], dict[str, Any]], as_json: bool, show: Callable[[dict[str, Any]], None],
    cannot_run: str,
) -> int:
    """Run a benchmark that judges targets and print its report, as JSON or by ``show``.

    The exit status: 0 when the report ``passed``, 1 when not, 2 when ``run`` raised
    BenchError (said on stderr after ``cannot_run: ``).
    """
    try:
        report = run()
    except BenchError as error:
        print(f"{cannot_run}: {error}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        show(report)
    return 0 if report["passed"] else 1


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> Iterator[str]:
    """Lines of aligned columns two spaces apart, the first left-justified and the others
    right-justified: the header, a rule of dashes, then the rows."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for cells in [header, tuple("-" * width for width in widths), *rows]:
        yield "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )


def call_seconds(
    work: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> float:
    """Seconds of ``clock`` (wall time by default; ``time.process_time``: CPU time) that one
    call of ``work`` takes."""
    start = clock()
    work()
    return clock() - start


# --- ports and HTTP -----------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on HOST that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def fetch(
    port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 10
) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` on a new connection to HOST:``port``: status, headers (lower-case names)
    and body. Raises OSError or http.client.HTTPException."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def metrics(admin_port: int) -> dict[str, float]:
    """The samples of a server.py's ``/metrics`` (on its operations port), by name with
    labels, e.g. ``readiness_cache_lookups_total{outcome="hit",tier="memory"}``."""
    _, _, body = fetch(admin_port, "/metrics")
    samples: dict[str, float] = {}
    for line in body.decode().splitlines():
        if line.startswith("#") or " " not in line:
            continue
        name, _, value = line.rpartition(" ")
        samples[name] = float(value)
    return samples


# --- processes ----------------------------------------------------------------------------


class Process:
    """A server subprocess run from the repository root, its output in a file, stopped by its
    own pid only."""

    def __init__(
        self, name: str, argv: list[str], env: dict[str, str], log_path: Path, admin_port: int = 0,
        preexec_fn: Callable[[], object] | None = None,
    ) -> None:
        self.name = name
        self.admin_port = admin_port
        """server.py's operations port (/metrics); 0 for the baseline, which has none."""
        self.log_path = log_path
        # Open while the process runs; stop() closes it.
        self._log = open(log_path, "ab")  # noqa: SIM115
        self.popen = subprocess.Popen(
            argv, cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=self._log, preexec_fn=preexec_fn,
        )

    def tail(self, lines: int = 15) -> str:
        """The last ``lines`` lines of its output."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log.close()


def wait_http(process: Process, port: int, path: str = "/healthz", timeout: float = 60.0) -> None:
    """Return once ``process`` answers ``path`` on ``port`` with a 200; BenchError (with the
    end of its output) if it exits or does not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise BenchError(
                f"{process.name} exited with {process.popen.returncode}:\n{process.tail()}"
            )
        try:
            status, _, _ = fetch(port, path)
            if status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.05)
    raise BenchError(f"{process.name} did not answer {path} within {timeout}s:\n{process.tail()}")


def answering(process: Process, port: int) -> tuple[Process, int]:
    """``process`` and its port once it answers; stopped (and BenchError raised) if it never
    does."""
    try:
        wait_http(process, port)
    except BenchError:
        process.stop()
        raise
    return process, port


def bare_environ() -> dict[str, str]:
    """This process's environment without its READINESS_* variables: a server started with it
    has the defaults and what it is told, not the settings of the shell the benchmark runs in."""
    return {name: value for name, value in os.environ.items() if not name.startswith("READINESS_")}


def server_env(admin_port: int, **settings: str) -> dict[str, str]:
    """The environment of a benchmarked server.py: ``bare_environ()``, its operations port,
    log level WARNING, no shutdown delay and a 1 s drain; then ``settings`` (READINESS_*)."""
    env = bare_environ()
    env.update(
        READINESS_LOG_LEVEL="WARNING", READINESS_SHUTDOWN_DELAY_SECONDS="0",
        READINESS_DRAIN_SECONDS="1", READINESS_ADMIN_PORT=str(admin_port),
    )
    env.update(settings)
    return env


def server_argv(
    port: int, data_dir: Path, root: Path = REPO_ROOT, python: str = sys.executable
) -> list[str]:
    """The command line of ``root``'s server.py, run by ``python``, on HOST:``port`` serving
    ``data_dir``."""
    return [python, str(root / "server.py"), "--host", HOST, "--port", str(port),
            "--data-dir", str(data_dir)]


def start_proxied(
    names: Sequence[str], data_dir: Path, redis_port: int, workdir: Path, processes: list[Process],
    root: Path = REPO_ROOT, **settings: str,
) -> list[int]:
    """One server.py per name as the edge benchmarks run it, behind nginx
    (READINESS_BEHIND_PROXY), each on a free port with its own operations port (the
    Process's ``admin_port``), log level WARNING, no shutdown delay, Redis database 0 at
    ``redis_port``, its output in ``workdir/NAME.log``; this process's environment (READINESS_*
    included) under them and ``settings`` over them. ``root``: the checkout whose server.py
    runs (another one's, e.g. the tree before a change, runs its own packages). Each is added
    to ``processes`` as it starts (the caller stops them); returns their ports once every one
    answers."""
    ports = []
    for name in names:
        port, admin_port = free_port(), free_port()
        env = {**os.environ, "READINESS_PORT": str(port), "READINESS_ADMIN_PORT": str(admin_port),
               "READINESS_DATA_DIR": str(data_dir),
               "READINESS_REDIS_URL": f"redis://{HOST}:{redis_port}/0",
               "READINESS_BEHIND_PROXY": "true", "READINESS_LOG_LEVEL": "WARNING",
               "READINESS_SHUTDOWN_DELAY_SECONDS": "0", **settings}
        processes.append(Process(name, [sys.executable, str(root / "server.py")], env, workdir / f"{name}.log",
                                 admin_port))
        ports.append(port)
    for process, port in zip(processes[-len(names):], ports, strict=True):
        answering(process, port)
    return ports


def start_redis(workdir: Path) -> tuple[Process, int]:
    """A throwaway redis-server on a free port (no persistence, its files in ``workdir``) once
    it answers PING; BenchError if it does not start."""
    import redis

    port = free_port()
    process = Process(
        "redis-server",
        ["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
         "--dir", str(workdir)],
        dict(os.environ),
        workdir / "redis.log",
    )
    client = redis.Redis(host=HOST, port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.RedisError as error:
            if process.popen.poll() is not None or time.monotonic() > deadline:
                process.stop()
                raise BenchError(f"redis-server did not start:\n{process.tail()}") from error
            time.sleep(0.05)
    client.close()
    return process, port


# --- nginx --------------------------------------------------------------------------------


EDGE_LOG_OPTIONS = "readiness_edge buffer=64k flush=1s"
"""The access log options of the edge and the static baselines when both are measured: the
same format, buffered alike."""


def require_nginx() -> str:
    """The nginx executable; BenchError without one."""
    from tests.edge_nginx import nginx_executable

    executable = nginx_executable()
    if executable is None:
        raise BenchError("nginx is not installed (make bench-edge installs Debian's package)")
    return executable


def unlimited_edge(executable: str, api_ports: Sequence[int], buffered_log: bool = False) -> Nginx:
    """The shipped edge (not started) in front of ``api_ports``, its per-address limits (the
    miss budget and ceiling at its gate too: the replays revalidate every entry each max-age)
    raised out of the way, as one client address sends everything, but still in the
    configuration, so that their cost is measured; ``buffered_log``: its access log with
    EDGE_LOG_OPTIONS."""
    from tests.edge_nginx import Nginx

    edge = Nginx(executable, tuple(f"{HOST}:{port}" for port in api_ports),
                 rate="1000000r/s", burst=1000000, connections=60000, miss_rate="1000000r/s",
                 miss_burst=1000000, total_miss_rate="1000000r/s", total_miss_burst=1000000)
    if buffered_log:
        access_log = f"{edge.access_log} {EDGE_LOG_OPTIONS}"
        edge.settings = dataclasses.replace(edge.settings, access_log=access_log)
    return edge


def static_block(edge: Nginx, name: str, port: int, settings: str, root: Path) -> str:
    """An nginx server block on HOST:``port`` serving the files under ``root`` as JSON, with
    ``settings`` (sendfile...) and a buffered access log ``NAME-access.log`` in the edge's
    prefix: a static baseline in the edge's nginx."""
    return (f"server {{ listen {HOST}:{port}; server_tokens off; {settings}\n"
            f"  access_log {edge.prefix / (name + '-access.log')} {EDGE_LOG_OPTIONS};\n"
            f"  default_type \"application/json; charset=utf-8\"; root {root}; }}\n")


def nginx_worker(edge: Nginx) -> int:
    """The pid of the edge's one worker process (the one doing the work measured)."""
    assert edge.process is not None
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(stat[1]) == edge.process.pid:
                return int(entry.name)
    raise BenchError("the nginx worker process was not found")


# --- wrk ----------------------------------------------------------------------------------


@dataclass
class WrkResult:
    """What one wrk run reports."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    read_bytes: float
    errors: int
    """Socket errors: connect, read, write, timeout."""
    bad_status: int
    """Responses other than 2xx or 3xx."""


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}
_SIZES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


def _duration_ms(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text)
    if match is None:
        raise BenchError(f"cannot read wrk duration {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk(output: str) -> WrkResult:
    """Requests/sec, the 50% and 99% latency lines of --latency, totals and errors."""

    def found(pattern: str) -> re.Match[str]:
        match = re.search(pattern, output, re.M)
        if match is None:
            raise BenchError(f"cannot read wrk output:\n{output}")
        return match

    rps = float(found(r"Requests/sec:\s+([0-9.]+)").group(1))
    p50 = _duration_ms(found(r"^\s+50%\s+(\S+)").group(1))
    p99 = _duration_ms(found(r"^\s+99%\s+(\S+)").group(1))
    total = found(r"(\d+) requests in \S+, ([0-9.]+)([KMG]?B) read")
    requests, read_bytes = int(total.group(1)), float(total.group(2)) * _SIZES[total.group(3)]
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", output))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return WrkResult(rps, p50, p99, requests, read_bytes, errors, int(bad.group(1)) if bad else 0)


def wrk_argv(
    port: int, path: str, seconds: float, connections: int,
    headers: Mapping[str, str] | None = None, script: Path | None = None,
) -> list[str]:
    """wrk on one thread for ``seconds`` with ``connections`` connections, a 5 s timeout and
    the latency distribution, asking for HOST:``port`` ``path`` with ``headers``, or what the
    Lua ``script`` says."""
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "5s", "--latency"]
    for name, value in (headers or {}).items():
        argv += ["-H", f"{name}: {value}"]
    if script is not None:
        argv += ["-s", str(script)]
    return [*argv, f"http://{HOST}:{port}{path}"]


def start_wrk(
    port: int, path: str, seconds: float, connections: int,
    headers: Mapping[str, str] | None = None, script: Path | None = None,
) -> subprocess.Popen[str]:
    """wrk started (``wrk_argv``); ``wrk_result`` waits for it."""
    argv = wrk_argv(port, path, seconds, connections, headers, script)
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wrk_result(
    run: subprocess.Popen[str], seconds: float, clean: bool = False, label: str = "wrk"
) -> WrkResult:
    """What a started wrk run of ``seconds`` reports; BenchError (named ``label``) if it fails
    and, when ``clean``, if it saw socket errors or non-2xx/3xx answers."""
    try:
        out, err = run.communicate(timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        raise
    if run.returncode != 0:
        raise BenchError(f"{label} failed ({run.returncode}): {err.strip() or out}")
    result = parse_wrk(out)
    if clean and (result.errors or result.bad_status):
        raise BenchError(f"{label} saw errors or non-2xx answers:\n{out}")
    return result


def run_wrk(
    port: int, path: str, seconds: float, connections: int,
    headers: Mapping[str, str] | None = None, script: Path | None = None, clean: bool = False,
) -> WrkResult:
    """One wrk run (``wrk_argv``), waited for (``wrk_result``)."""
    return wrk_result(start_wrk(port, path, seconds, connections, headers, script), seconds, clean)


# --- CPU time -----------------------------------------------------------------------------


_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 if it cannot be read)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy so far (0 if /proc/stat is unreadable)."""
    try:
        values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / _TICK


# --- data and machine ---------------------------------------------------------------------


def load_sample() -> Snapshot | None:
    """Load the bundled current snapshot (None, logged by the loaders, if unusable)."""
    from loaders import SnapshotStore

    return SnapshotStore(SAMPLE_DIR).load_current()


def make_data_dir(root: Path) -> tuple[Path, Snapshot, str]:
    """A private copy of the bundled sample's snapshots (the current one has 217 economies),
    so that edits to data/sample during a run cannot swap a snapshot under the servers. The
    archives come too: history and the catalogue answer from every snapshot."""
    from loaders import read_snapshot

    sample = load_sample()
    if sample is None or len(sample.countries) < ECONOMIES:
        raise BenchError(f"data/sample has no current snapshot of {ECONOMIES} economies")
    shutil.copytree(SAMPLE_DIR / "snapshots", root / "snapshots")
    (root / "CURRENT").write_text(sample.id + "\n", encoding="utf-8")
    loaded, problems = read_snapshot(root / "snapshots" / sample.id)
    if loaded is None or problems:
        raise BenchError(f"the benchmark's data directory does not load cleanly: {problems[:3]}")
    others = sorted(path.name for path in (root / "snapshots").iterdir() if path.name != sample.id)
    return root, loaded, (
        f"the bundled sample's snapshots, copied: current {sample.id}, "
        f"and {', '.join(others) or 'no others'}"
    )


def machine() -> dict[str, Any]:
    """The machine and the versions of what the HTTP benchmarks run, for their reports."""
    import orjson
    import redis
    import tornado

    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    def version(*argv: str) -> str:
        return subprocess.run(argv, capture_output=True, text=True).stdout

    wrk = version("wrk", "--version").split("[")[0].strip()
    redis_version = version("redis-server", "--version").split()
    hiredis = "no"
    try:
        import hiredis as hiredis_module

        hiredis = hiredis_module.__version__
    except ImportError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "tornado": tornado.version,
        "redis_py": redis.__version__,
        "hiredis": hiredis,
        "orjson": orjson.__version__,
        "wrk": wrk,
        "redis_server": next((part[2:] for part in redis_version if part.startswith("v=")), "?"),
    }
