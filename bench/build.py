"""Benchmark: building one 217-economy snapshot from the raw tables (target: under 10 s).

Each run does what ``python -m builder build`` does: read and validate both CSV tables,
score every economy, write the country files and manifest into a staging directory,
validate them with the servers' reader and rename the directory into place. The baseline,
measured in the same run and interleaved with the builds, is reading the CSV tables alone:
the ratio build / baseline compares across machines better than absolute times do.

Run from the repository root (see bench/README.md):

    .venv/bin/python bench/build.py [--runs N] [--json]

Exit status: 0 when the median build is under the target, 1 when it is not, 2 when the
benchmark cannot run (no raw tables).
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from support import REPO_ROOT, call_seconds  # first: it puts the repository root on sys.path

from builder import InputError, Release, build_snapshot, read_raw, score_snapshot  # noqa: E402
from builder.write import write_snapshot  # noqa: E402
from loaders import read_snapshot  # noqa: E402

RAW_DIR = REPO_ROOT / "data" / "raw"
SNAPSHOT = "2026-11"
TARGET_SECONDS = 10.0


def build_once(workspace: Path, run: int) -> None:
    """One full build into a fresh directory: what ``python -m builder build`` does."""
    build_snapshot(read_raw(RAW_DIR), Release.parse(SNAPSHOT), workspace / f"run-{run}")


def phases(workspace: Path) -> dict[str, float]:
    """The build's phases, timed separately once (they add up to about one build)."""
    raw_seconds = call_seconds(lambda: read_raw(RAW_DIR))
    raw = read_raw(RAW_DIR)
    start = time.perf_counter()
    scored = score_snapshot(raw, int(SNAPSHOT[:4]))
    score_seconds = time.perf_counter() - start
    directory = workspace / "phases" / SNAPSHOT
    write_seconds = call_seconds(lambda: write_snapshot(scored, Release.parse(SNAPSHOT), directory))
    validate_seconds = call_seconds(lambda: read_snapshot(directory))
    return {"read": raw_seconds, "score": score_seconds, "write": write_seconds, "validate": validate_seconds}


def main() -> int:
    """Run the benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="builds (and baselines) to time")
    parser.add_argument("--json", action="store_true", help="print machine-readable results")
    args = parser.parse_args()
    try:
        economies = len(read_raw(RAW_DIR).economies)
    except InputError as error:
        print(f"cannot run: {error}", file=sys.stderr)
        return 2
    baseline: list[float] = []
    builds: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-build-") as name:
        workspace = Path(name)
        for run in range(args.runs):
            baseline.append(call_seconds(lambda: read_raw(RAW_DIR)))
            builds.append(call_seconds(functools.partial(build_once, workspace, run)))
        breakdown = phases(workspace)
    build_median, baseline_median = statistics.median(builds), statistics.median(baseline)
    passed = build_median < TARGET_SECONDS
    results = {
        "snapshot": SNAPSHOT,
        "economies": economies,
        "runs": args.runs,
        "python": platform.python_version(),
        "build_median_s": round(build_median, 3),
        "build_min_s": round(min(builds), 3),
        "build_max_s": round(max(builds), 3),
        "baseline_median_s": round(baseline_median, 3),
        "ratio": round(build_median / baseline_median, 2),
        "phases_s": {phase: round(seconds, 3) for phase, seconds in breakdown.items()},
        "target_s": TARGET_SECONDS,
        "passed": passed,
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"Snapshot build: {economies} economies, snapshot {SNAPSHOT}, {args.runs} runs "
              f"(Python {platform.python_version()}, {platform.system()} {platform.machine()})")
        print(f"  read raw CSV tables (baseline)  median {baseline_median:6.3f} s")
        print(f"  build one snapshot              median {build_median:6.3f} s  "
              f"(min {min(builds):.3f}, max {max(builds):.3f})  ratio {results['ratio']}x")
        print("  phases of one build: " + ", ".join(f"{p} {s:.3f} s" for p, s in breakdown.items()))
        print(f"{'PASS' if passed else 'FAIL'}: median build {build_median:.3f} s "
              f"{'<' if passed else '>='} target {TARGET_SECONDS:.0f} s")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
