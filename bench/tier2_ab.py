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
import statistics
import sys
import tempfile
import time
from pathlib import Path

from support import (
    HOST,
    REPO_ROOT,
    SAMPLE_DIR,
    Process,
    fetch,
    free_port,
    process_cpu,
    run_wrk,
    server_argv,
    server_env,
    start_redis,
    wait_http,
)

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
                env = server_env(free_port(), READINESS_CACHE_BYTES="0",
                                 READINESS_REDIS_URL=f"redis://{HOST}:{redis_port}/{database}")
                argv = server_argv(port, SAMPLE_DIR, root, str(root / ".venv" / "bin" / "python"))
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
                        run = run_wrk(port, path, 3, 1)
                        cpu_us = (process_cpu(process.popen.pid) - before) * 1e6 / run.requests
                        results[(name, answer)].append((cpu_us, run.rps))
            for answer in PATHS:
                for name in roots:
                    runs = results[(name, answer)]
                    print(f"{answer:<14} {name:<7} cpu µs/request {statistics.median(r[0] for r in runs):6.0f}"
                          f"  req/s {statistics.median(r[1] for r in runs):6.0f}")
                pairs = zip(results[("after", answer)], results[("before", answer)], strict=True)
                ratios = [b[0] / a[0] for a, b in pairs]
                print(f"  before/after cpu per request, pair by pair: median {statistics.median(ratios):.2f} "
                      f"({', '.join(f'{r:.2f}' for r in ratios)})")
        finally:
            for process, _ in servers.values():
                process.stop()
            redis_process.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
