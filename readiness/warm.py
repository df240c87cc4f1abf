"""Cache warm-up: ``python -m readiness.warm [--snapshot 2026-12]``, by default CURRENT's snapshot.

Computes the answers most worth having ready for a snapshot and writes them to Redis under
that snapshot's id. The publish command runs it as its hook, with the new snapshot's id,
before CURRENT flips to it, so the first users after a refresh hit a warm cache on every
server (DESIGN §5). It also runs on its own, without ``--snapshot``, to warm the snapshot
CURRENT names again: Redis keeps nothing on disk, so after a restart every server would
otherwise compute its first answers itself. On Kubernetes that is the suspended CronJob
``readiness-warm`` (docs/OPERATIONS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator, Sequence
from urllib.parse import parse_qsl

from config import Settings, SettingsError
from loaders import (
    COMPOSITE,
    REGION_SHORT,
    Snapshot,
    SnapshotRefused,
    load_snapshot,
    read_current_id,
    snapshot_ids,
)
from redis.asyncio import Redis
from redis.exceptions import RedisError

from readiness.errors import ReadinessError
from readiness.query import Query, archive_id
from readiness.redis_tier import ANSWER_PREFIX, connect, popular_key
from readiness.service import Route, cache_key, compute, request_key

log = logging.getLogger("readiness.warm")

BATCH = 100
"""Answers written to Redis per round trip."""


@dataclass
class Summary:
    """What a warm-up wrote: the cache keys, their bytes, requests it could not answer."""

    written: list[str] = field(default_factory=list)
    bytes: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        return (
            f"warmed {len(self.written)} keys, {self.bytes / 1e6:.2f} MB, in {self.seconds:.1f} s"
            + (f" ({self.skipped} requests skipped)" if self.skipped else "")
        )


def standard_requests(snapshot: Snapshot, archive_years: Sequence[int]) -> Iterator[tuple[Route, Query]]:
    """The answers always worth having: all countries, each region by name and by score,
    each country, and each archive's all-countries answer, on both routes.
    """
    queries = [Query()]
    for region in REGION_SHORT:
        queries += [Query(region=region), Query(region=region, sort=COMPOSITE, descending=True)]
    queries += [Query(codes=(code,)) for code in snapshot.countries]
    queries += [Query(year=year) for year in archive_years]
    for query in queries:
        for route in Route:
            yield route, query


def parse_request(member: str) -> tuple[Route, Query] | None:
    """Read a counted request (``<route>|<canonical query>``); None if it is not one."""
    route_name, _, canonical = member.partition("|")
    try:
        return Route(route_name), Query.parse(dict(parse_qsl(canonical)))
    except (ValueError, ReadinessError):
        return None


async def warm(
    redis: Redis,
    data_dir: Path,
    snapshot_id: str,
    top: int,
    ttl: tuple[int, int],
    progress: bool = True,
) -> Summary:
    """Write the standard answers and the ``top`` queries most requested of the snapshot
    CURRENT names: the previous one when warming a new snapshot before the flip, the same one
    when warming CURRENT again (none if Redis lost its data, and the counts with it).

    ``ttl`` is (current answers, archive answers) in seconds. Raises SnapshotRefused if the
    snapshot cannot be read, RedisError if Redis cannot be written.
    """
    started = time.monotonic()
    snapshot = load_snapshot(data_dir / "snapshots" / snapshot_id)
    years = [int(other[:4]) for other in snapshot_ids(data_dir) if other.endswith("-12")]
    snapshots = {snapshot_id: snapshot}
    counted = read_current_id(data_dir)
    requests = list(standard_requests(snapshot, years))
    if counted is not None and top:
        popular = await redis.zrevrange(popular_key(counted), 0, top - 1)
        for member in popular:
            parsed = parse_request(_text(member)) if isinstance(member, (bytes, str)) else None
            if parsed is not None:
                requests.append(parsed)
    summary = Summary()
    seen: set[str] = set()
    pending: list[tuple[str, bytes, int]] = []
    for number, (route, query) in enumerate(requests, 1):
        source = snapshot if query.year is None else _archive(data_dir, snapshots, archive_id(query.year))
        if source is None:
            summary.skipped += 1
            continue
        key = cache_key(source.id, request_key(route, query))
        if key in seen:
            continue
        seen.add(key)
        try:
            answer = compute(source, query, route)
        except ReadinessError:  # a counted legacy request for a code this snapshot lacks
            summary.skipped += 1
            continue
        packed = answer.pack()
        pending.append((ANSWER_PREFIX + key, packed, ttl[0] if query.year is None else ttl[1]))
        summary.written.append(key)
        summary.bytes += len(packed)
        if len(pending) >= BATCH:
            await _write(redis, pending)
            if progress:
                print(f"  {number}/{len(requests)} requests, {len(summary.written)} keys", file=sys.stderr, flush=True)
    await _write(redis, pending)
    summary.seconds = time.monotonic() - started
    return summary


def _archive(data_dir: Path, loaded: dict[str, Snapshot], snapshot_id: str) -> Snapshot | None:
    if snapshot_id not in loaded:
        try:
            loaded[snapshot_id] = load_snapshot(data_dir / "snapshots" / snapshot_id)
        except SnapshotRefused:
            return None
    return loaded[snapshot_id]


async def _write(redis: Redis, pending: list[tuple[str, bytes, int]]) -> None:
    if not pending:
        return
    async with redis.pipeline(transaction=False) as pipe:
        for key, value, ttl in pending:
            pipe.set(key, value, ex=ttl)
        await pipe.execute()
    pending.clear()


def _text(member: bytes | str) -> str:
    return member.decode("utf-8", "replace") if isinstance(member, bytes) else member


def main(argv: Sequence[str] | None = None) -> int:
    """Run the warm-up; exit 0 when done (or nothing to do without Redis), 1 on failure (no
    usable CURRENT to default to included), 2 on a bad setting."""
    parser = argparse.ArgumentParser(
        prog="python -m readiness.warm",
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 done (or no Redis configured: nothing to warm), 1 the snapshot "
        "(or CURRENT, without --snapshot) or Redis failed, 2 a bad setting.",
    )
    parser.add_argument("--snapshot", help="snapshot id to warm, e.g. 2026-12 (default: the one CURRENT names)")
    parser.add_argument("--data-dir", type=Path, help="data directory (default READINESS_DATA_DIR)")
    parser.add_argument("--redis-url", help="Redis URL (default READINESS_REDIS_URL)")
    parser.add_argument("--top", type=int, help="how many of the most requested queries of CURRENT's "
                        "snapshot to add (default READINESS_WARM_TOP_N)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as error:
        print(f"warm: {error}", file=sys.stderr)
        return 2
    url = args.redis_url or settings.redis_url
    if url is None:
        print("warm: no Redis configured (READINESS_REDIS_URL); nothing to warm", file=sys.stderr)
        return 0
    data_dir = args.data_dir or settings.data_dir
    top = settings.warm_top_n if args.top is None else args.top
    ttl = (settings.redis_ttl_seconds, settings.archive_redis_ttl_seconds)
    snapshot_id = args.snapshot or read_current_id(data_dir)
    if snapshot_id is None:
        print(f"warm: failed: no usable CURRENT in {data_dir} (missing, or not a YYYY-MM id); "
              "publish a snapshot or pass --snapshot", file=sys.stderr)
        return 1
    print(f"warming snapshot {snapshot_id} from {data_dir} into Redis", file=sys.stderr)
    try:
        summary = asyncio.run(_run(url, data_dir, snapshot_id, top, ttl))
    except (SnapshotRefused, RedisError, OSError) as error:
        print(f"warm: failed: {error}", file=sys.stderr)
        return 1
    print(summary)
    return 0


async def _run(url: str, data_dir: Path, snapshot_id: str, top: int, ttl: tuple[int, int]) -> Summary:
    redis = connect(url, timeout=5.0)  # a batch job: patient, unlike a request
    try:
        return await warm(redis, data_dir, snapshot_id, top, ttl)
    finally:
        await redis.aclose()


if __name__ == "__main__":
    sys.exit(main())
