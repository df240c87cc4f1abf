"""Benchmark: what each setting of the edge costs per cache hit, in one nginx worker.

bench/edge.py judges the shipped edge against static files. This one answers the question
behind any change to k8s/base/edge.conf.template: which directive costs what. It renders the
shipped edge once, then adds server blocks that each change one thing (below), plus the two
static baselines of bench/edge.py, all in the same nginx worker in front of one server.py and
one Redis. Every round runs the traffic mix of bench/edge.py (or one URL, ``--path``) against
each block in a fresh random order and records the worker's CPU time per request; the report
gives each block's median and its ratio to the static baselines.

    .venv/bin/python bench/edge_variants.py [--rounds 6] [--seconds 3] [--only NAME,...]
    .venv/bin/python bench/edge_variants.py --path '/api/v1/indicators' --identity

Run on a quiet machine: the ratios are stable to a few per cent there (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from support import (  # first: it puts the repository root on sys.path
    BenchError,
    Process,
    fetch,
    free_port,
    make_data_dir,
    nginx_worker,
    process_cpu,
    require_nginx,
    start_proxied,
    start_redis,
    static_block,
    unlimited_edge,
)

from edge import BASELINES, Entry, lua_script, replay, save_bodies, snapshot_mix  # noqa: E402
from readiness.edge_config import TEMPLATE, edge_config  # noqa: E402


def _without(pattern: str) -> Callable[[str], str]:
    return lambda block: re.sub(r"\n[ \t]*" + pattern + r"[^\n]*", "", block)


def _log_off(block: str) -> str:
    return re.sub(r"access_log [^;]*;", "access_log off;", block)


def _minimal(block: str) -> str:
    """Every optional per-request cost removed: what nginx's cache-hit path costs by itself."""
    block = _log_off(_without("limit_(req|conn) ")(_without("add_header X-Edge-Cache")(block)))
    return block.replace('proxy_cache_key "$scheme://$host$request_uri|$edge_encoding";',
                         'proxy_cache_key "$request_uri|$edge_encoding";')


def _map_without_njs(block: str) -> str:
    """The shipped key's map with njs's answer replaced by the raw target: what the map's own
    regular expressions cost a request (the block is preceded by that map, at http level)."""
    template = TEMPLATE.read_text()
    start = template.index("map $request_uri $edge_target {")
    fast_path = template[start:template.index("\n}\n", start) + 3]
    # The lanes' last maps (readiness/edge_fast_path.py), whose default is njs's answer too.
    lanes = "".join(re.findall(r'^map "\$request_method[^\n]*\n(?:    [^\n]*\n)*}\n', template, re.MULTILINE))
    fast_path = (lanes + fast_path).replace("edge_lane_", "edge_lane_without_njs_").replace(
        "$edge_target", "$edge_target_without_njs")
    return fast_path.replace("default $edge_uri;", "default $request_uri;") + block.replace(
        "$edge_target", "$edge_target_without_njs")


VARIANTS: dict[str, Callable[[str], str]] = {
    "edge (shipped)": lambda block: block,
    "edge, sendfile on": lambda block: block.replace("sendfile off;", "sendfile on; tcp_nopush off;"),
    "edge, sendfile on, tcp_nopush on": lambda block: block.replace("sendfile off;", "sendfile on; tcp_nopush on;"),
    "edge, no limit_req/limit_conn": _without("limit_(req|conn) "),
    "edge, no X-Edge-Cache header": _without("add_header X-Edge-Cache"),
    "edge, no access log": _log_off,
    "edge, keyed without njs": lambda block: block.replace("$edge_target", "$request_uri"),
    "edge, keyed by the map alone, without njs": _map_without_njs,
    "edge, minimal": _minimal,
}


def server_block(config: str) -> str:
    """The rendered edge's public ``server { ... }`` block: the first one in the template (the
    miss gate's follows it; the variants share the shipped edge's gate)."""
    start = config.index("\nserver {") + 1
    return config[start:config.index("\n}\n", start) + 3]


def run(rounds: int, seconds: float, only: set[str], path: str | None, identity: bool) -> dict[str, list[float]]:
    executable = require_nginx()
    variants = {name: change for name, change in VARIANTS.items()
                if not only or name == "edge (shipped)" or any(word in name for word in only)}
    workdir = Path(tempfile.mkdtemp(prefix="bench-edge-variants-"))
    processes: list[Process] = []
    try:
        data, snapshot, _ = make_data_dir(workdir / "data")
        entries = snapshot_mix(snapshot) if path is None else [Entry(path, not identity, 100.0)]
        redis_process, redis_port = start_redis(workdir)
        processes.append(redis_process)
        (api_port,) = start_proxied(["api"], data, redis_port, workdir, processes)

        edge = unlimited_edge(executable, [api_port], buffered_log=True)
        static = edge.prefix / "static"
        static.mkdir()
        ports = {name: free_port() for name in [*BASELINES, *variants]}
        ports["edge (shipped)"] = edge.port
        blocks = [static_block(edge, name, ports[name], settings, static)
                  for name, settings in BASELINES.items()]
        shipped = server_block(edge_config(edge.settings))
        for name, change in variants.items():
            if name != "edge (shipped)":
                changed = change(shipped)
                if changed == shipped:
                    raise BenchError(f"variant {name!r} changes nothing: the template moved on")
                blocks.append(changed.replace(f"listen 127.0.0.1:{edge.port} ", f"listen 127.0.0.1:{ports[name]} "))
        edge.extra_http = "\n".join(blocks)

        static_paths = save_bodies(api_port, entries, static)
        edge.start()
        try:
            for name in variants:  # each block's misses, so that only hits are measured
                for item in entries:
                    fetch(ports[name], item.path, item.headers)
            edge_script, static_script = workdir / "edge.lua", workdir / "static.lua"
            edge_script.write_text(lua_script(entries))
            static_script.write_text(lua_script(entries, static_paths))
            scripts = {name: static_script if name in BASELINES else edge_script for name in ports}
            for name in ports:
                replay(ports[name], scripts[name], 1)
            worker = nginx_worker(edge)
            cpu: dict[str, list[float]] = {name: [] for name in ports}
            for number in range(rounds):
                order = list(ports)
                random.shuffle(order)
                for name in order:
                    before = process_cpu(worker)
                    result = replay(ports[name], scripts[name], seconds)
                    cpu[name].append((process_cpu(worker) - before) / result["requests"] * 1e6)
                print(f"round {number + 1}: " + ", ".join(f"{name} {cpu[name][-1]:.1f}" for name in ports),
                      file=sys.stderr)
        finally:
            edge.__exit__(None, None, None)
        return cpu
    finally:
        for process in reversed(processes):
            process.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run (default 3)")
    parser.add_argument("--only", default="", help="comma-separated words: only the variants whose name has one")
    parser.add_argument("--path", help="one URL instead of the mix")
    parser.add_argument("--identity", action="store_true", help="with --path: no Accept-Encoding: gzip")
    args = parser.parse_args(argv)
    only = {word.strip() for word in args.only.split(",") if word.strip()}
    try:
        cpu = run(args.rounds, args.seconds, only, args.path, args.identity)
    except BenchError as error:
        print(f"bench-edge-variants cannot run: {error}", file=sys.stderr)
        return 2
    medians = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"{'server block':36s} {'us CPU/request':>15s} {'static/this':>12s} {'static_tuned/this':>18s}")
    for name, median in medians.items():
        print(f"{name:36s} {median:15.2f} {medians['static'] / median:12.3f} {medians['static_tuned'] / median:18.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
