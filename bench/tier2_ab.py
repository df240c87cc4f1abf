"""Benchmark: one-connection tier-2 hits of two checkouts' servers, side by side.

    .venv/bin/python bench/tier2_ab.py --before DIR [--after DIR] [--pairs 10]

Starts ``server.py`` of each checkout (``DIR`` holds a checkout with its ``.venv``, e.g.
``git archive main | tar -x -C /tmp/before && ln -s $PWD/.venv /tmp/before/.venv``; the
default ``--after`` is this one) with tier 1 off and its own database of one throwaway
``redis-server``, serving this checkout's ``data/sample``; fills Redis with two requests each,
then for ``--pairs`` pairs runs ``wrk -t1 -c1 -d3s`` on one server and then the other (the
order alternates), for ``?code=KEN`` and the all-countries answer. Prints each server's CPU
per request and req/s (medians) and the ratio before/after of CPU per request within each
pair: the two servers meet the same machine load, which a comparison with a baseline run
minutes apart cannot promise on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
for entry in (REPO_ROOT, REPO_ROOT / "bench"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from http_cache import Process, fetch, free_port, process_cpu, start_redis, wait_http  # noqa: E402

PATHS = {"KEN": "/api/v1/readiness?code=KEN", "all countries": "/api/v1/readiness"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=REPO_ROOT)
    parser.add_argument("--pairs", type=int, default=10)
    args = parser.parse_args()
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="bench-tier2-ab-") as temp:
        redis_process, redis_port = start_redis(Path(temp))
        servers: dict[str, tuple[Process, int]] = {}
        try:
            for database, (name, root) in enumerate(roots.items()):
                port = free_port()
                env = {key: value for key, value in os.environ.items() if not key.startswith("READINESS_")}
                env.update(
                    READINESS_ADMIN_PORT=str(free_port()), READINESS_LOG_LEVEL="WARNING", READINESS_CACHE_BYTES="0",
                    READINESS_REDIS_URL=f"redis://127.0.0.1:{redis_port}/{database}",
                    READINESS_SHUTDOWN_DELAY_SECONDS="0", READINESS_DRAIN_SECONDS="1",
                )
                argv = [str(root / ".venv" / "bin" / "python"), str(root / "server.py"), "--host", "127.0.0.1",
                        "--port", str(port), "--data-dir", str(REPO_ROOT / "data" / "sample")]
                process = Process(name, argv, env, Path(temp) / f"{name}.log")
                servers[name] = (process, port)
                wait_http(process, port)
                for path in PATHS.values():
                    fetch(port, path)  # computed and written to Redis in the background
                    time.sleep(0.3)
                    fetch(port, path)
            results: dict[tuple[str, str], list[tuple[float, float]]] = {(s, a): [] for s in roots for a in PATHS}
            for pair in range(args.pairs):
                order = list(roots) if pair % 2 == 0 else list(roots)[::-1]
                for answer, path in PATHS.items():
                    for name in order:
                        process, port = servers[name]
                        before = process_cpu(process.popen.pid)
                        output = subprocess.run(["wrk", "-t1", "-c1", "-d3s", f"http://127.0.0.1:{port}{path}"],
                                                capture_output=True, text=True, check=True).stdout
                        requests = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
                        rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", output).group(1))  # type: ignore[union-attr]
                        results[(name, answer)].append(((process_cpu(process.popen.pid) - before) * 1e6 / requests, rps))
            for answer in PATHS:
                for name in roots:
                    runs = results[(name, answer)]
                    print(f"{answer:<14} {name:<7} cpu µs/request {statistics.median(r[0] for r in runs):6.0f}"
                          f"  req/s {statistics.median(r[1] for r in runs):6.0f}")
                ratios = [b[0] / a[0] for a, b in zip(results[("after", answer)], results[("before", answer)], strict=True)]
                print(f"  before/after cpu per request, pair by pair: median {statistics.median(ratios):.2f} "
                      f"({', '.join(f'{r:.2f}' for r in ratios)})")
        finally:
            for process, _ in servers.values():
                process.stop()
            redis_process.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
