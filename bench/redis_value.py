"""Cost of checking a Redis value: ``AnswerCodec.unpack`` against slicing the value unchecked.

    .venv/bin/python bench/redis_value.py

For one country (KEN) and the all-countries answer of the bundled sample, times (median of
many runs) the service's unpack, which verifies the keyed digest and derives the ETag from
the body, and a baseline that only slices the body and gzip copy out of the same bytes (what
an unchecked reader does). Prints both and their ratio. Paid once per Redis read, never on
tier-1 hits (docs/CACHING.md#what-redis-may-hold).
"""

from __future__ import annotations

import statistics
import sys
import time

from support import SAMPLE_DIR  # first: it puts the repository root on sys.path

from loaders import SnapshotStore  # noqa: E402

from readiness.cache.answers import AnswerCodec  # noqa: E402
from readiness.domain.query import Query  # noqa: E402

from readiness.cache.keys import cache_key, request_key  # noqa: E402
from readiness.domain.compute import compute  # noqa: E402
from readiness.domain import routes

CASES = {"KEN": Query(codes=("KEN",)), "all countries": Query()}
RUNS = 2000
_PREFIX = 9 + 32  # header + digest


def _median_us(function: object, value: bytes, key: str) -> float:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        function(key, value)  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def _slice(key: str, value: bytes) -> tuple[bytes, bytes]:
    body_length = int.from_bytes(value[1:5], "big")
    return value[_PREFIX : _PREFIX + body_length], value[_PREFIX + body_length :]


def main() -> int:
    snapshot = SnapshotStore(SAMPLE_DIR).load_current()
    if snapshot is None:
        print("redis_value.py: no sample snapshot", file=sys.stderr)
        return 2
    codec = AnswerCodec()
    print(f"{'case':<15}{'value bytes':>12}{'unpack µs':>11}{'slice µs':>10}{'ratio':>8}")
    for name, query in CASES.items():
        key = cache_key(snapshot, request_key(routes.V1, query))
        value = codec.pack(key, compute(snapshot, query, routes.V1))
        checked = _median_us(codec.unpack, value, key)
        sliced = _median_us(_slice, value, key)
        print(f"{name:<15}{len(value):>12}{checked:>11.1f}{sliced:>10.1f}{checked / sliced:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
