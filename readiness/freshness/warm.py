"""Cache warm-up: ``python -m readiness.freshness.warm [--snapshot 2026-12]``, by default CURRENT's snapshot.

Computes the answers most worth having ready for a snapshot and writes them to Redis under
that snapshot's id. The publish command runs it as its warm-up (``--warm``, best effort:
builder/warmup.py), with the new snapshot's id, before CURRENT flips to it, so the first users
after a refresh hit a warm cache on every server (docs/OPERATIONS.md). It also runs on its own,
without ``--snapshot``, to warm the snapshot CURRENT names again: Redis keeps nothing on disk,
so after a restart every server would otherwise compute its first answers itself. On
Kubernetes that is the suspended CronJob ``readiness-warm`` (docs/OPERATIONS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import parse_qsl

from config import Settings, SettingsError, redact
from config.settings import redis_url
from loaders import (
    COMPOSITE,
    REGION_SHORT,
    Snapshot,
    SnapshotRefused,
    load_snapshot,
    read_current_id,
    snapshot_ids,
)
from readiness.cache.answers import AnswerCodec
from readiness.cache.keys import cache_key, pinned_key, request_key
from readiness.cache.redis_tier import FAILURES, RedisClient, connect, popular_key, store_answers, warmed_key
from readiness.domain.answer import Answer
from readiness.domain.compute import compute
from readiness.domain.errors import ReadinessError
from readiness.domain.query import Query
from readiness.domain.route import FromSnapshots, Route
from readiness.domain.routes import LEGACY, V1, named

log = logging.getLogger("readiness.warm")

WARM_TIMEOUT_SECONDS = 5.0
"""Redis timeout of a warm-up: a batch job, patient, unlike a request."""

BATCH = 100
"""Answers computed (in a worker thread) and written to Redis per round trip."""


@dataclass(frozen=True, slots=True)
class WarmSettings:
    """What a warm-up needs besides Redis and the snapshot: the same in the command and in a
    server's automatic re-warm, so both write what the servers read."""

    top: int
    ttl_current: int
    ttl_archive: int
    max_answer_bytes: int
    codec: AnswerCodec = field(default_factory=AnswerCodec)

    @classmethod
    def of(cls, settings: Settings) -> WarmSettings:
        """The warm-up settings of a server's Settings."""
        return cls(
            settings.warm_top_n,
            settings.redis_ttl_seconds,
            settings.archive_redis_ttl_seconds,
            settings.redis_max_answer_bytes,
            AnswerCodec(settings.redis_signing_key) if settings.redis_signing_key else AnswerCodec(),
        )


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
        for route in (V1, LEGACY):
            yield route, query


def parse_request(member: str) -> tuple[Route, Query] | None:
    """Read a counted request (``<route>|<canonical query>``) of a route answered from one
    snapshot (popularity counts no other); None if it is not one."""
    route_name, _, canonical = member.partition("|")
    route = named(route_name)
    if route is None or not isinstance(route.source, FromSnapshots):
        return None
    try:
        return route, Query.parse(dict(parse_qsl(canonical)), route.grammar)
    except ReadinessError:
        return None


async def warm(
    redis: RedisClient,
    data_dir: Path,
    snapshot_id: str,
    settings: WarmSettings,
    progress: bool = True,
) -> Summary:
    """Read snapshot ``snapshot_id`` of ``data_dir`` (in a worker thread) and ``warm_snapshot`` it.

    Raises SnapshotRefused if the snapshot cannot be read, one of FAILURES if Redis cannot be written.
    """
    snapshot = await asyncio.to_thread(load_snapshot, data_dir / "snapshots" / snapshot_id)
    return await warm_snapshot(redis, data_dir, snapshot, settings, progress)


async def warm_snapshot(
    redis: RedisClient,
    data_dir: Path,
    snapshot: Snapshot,
    settings: WarmSettings,
    progress: bool = False,
) -> Summary:
    """Write the standard answers and the ``top`` queries most requested of the snapshot
    CURRENT names (the previous one when warming a new snapshot before the flip, the same one
    when warming CURRENT again; none if Redis lost its data, and the counts with it), then the
    snapshot's "warmed" marker, which servers check to notice a Redis that lost them.

    Answers are computed in a worker thread, a batch at a time, so a server running this keeps
    answering requests. Counted answers over ``max_answer_bytes`` are skipped, as servers
    skip them. Raises one of FAILURES (readiness.cache.redis_tier) if Redis cannot be written.
    """
    started = time.monotonic()
    years, counted = await asyncio.to_thread(_archive_years_and_current, data_dir)
    requests = [(request, True) for request in standard_requests(snapshot, years)]
    if counted is not None and settings.top:
        popular = await redis.zrevrange(popular_key(counted), 0, settings.top - 1)
        for member in popular:
            parsed = parse_request(_text(member)) if isinstance(member, (bytes, str)) else None
            if parsed is not None:
                requests.append((parsed, False))
    summary = Summary()
    work = _Work(data_dir, snapshot, settings)
    for first in range(0, len(requests), BATCH):
        entries = await asyncio.to_thread(work.compute, requests[first : first + BATCH], summary)
        summary.bytes += await store_answers(redis, settings.codec, entries)
        if progress:
            print(f"  {min(first + BATCH, len(requests))}/{len(requests)} requests, {len(summary.written)} keys",
                  file=sys.stderr, flush=True)
    await redis.set(warmed_key(cache_key(snapshot, "")), str(len(summary.written)), ex=settings.ttl_current)
    summary.seconds = time.monotonic() - started
    return summary


class _Work:
    """The computing side of a warm-up, run in a worker thread one batch at a time."""

    def __init__(self, data_dir: Path, snapshot: Snapshot, settings: WarmSettings) -> None:
        self.data_dir = data_dir
        self.settings = settings
        self.snapshots: dict[str, Snapshot | None] = {snapshot.id: snapshot}
        self.current = snapshot
        self.seen: set[str] = set()

    def compute(
        self, batch: Sequence[tuple[tuple[Route, Query], bool]], summary: Summary
    ) -> list[tuple[str, Answer, int]]:
        entries: list[tuple[str, Answer, int]] = []
        for (route, query), standard in batch:
            wanted = query.snapshot_in(self.current.id)
            source = self.current if wanted is None else self._archive(wanted)
            if source is None:
                summary.skipped += 1
                continue
            request = request_key(route, query)
            key = pinned_key(source, self.current.id, request) if query.pinned else cache_key(source, request)
            if key in self.seen:
                continue
            self.seen.add(key)
            try:
                answer = compute(source, query, route, self.current.id)
            except ReadinessError:  # a counted legacy request for a code this snapshot lacks
                summary.skipped += 1
                continue
            if not standard and len(answer.body) + len(answer.gzipped or b"") > self.settings.max_answer_bytes:
                summary.skipped += 1
                continue
            ttl = self.settings.ttl_archive if query.pinned else self.settings.ttl_current
            entries.append((key, answer, ttl))
            summary.written.append(key)
        return entries

    def _archive(self, snapshot_id: str) -> Snapshot | None:
        if snapshot_id not in self.snapshots:
            try:
                self.snapshots[snapshot_id] = load_snapshot(self.data_dir / "snapshots" / snapshot_id)
            except SnapshotRefused:
                self.snapshots[snapshot_id] = None
        return self.snapshots[snapshot_id]


def _archive_years_and_current(data_dir: Path) -> tuple[list[int], str | None]:
    years = [int(other[:4]) for other in snapshot_ids(data_dir) if other.endswith("-12")]
    return years, read_current_id(data_dir)


def _text(member: bytes | str) -> str:
    return member.decode("utf-8", "replace") if isinstance(member, bytes) else member


def main(argv: Sequence[str] | None = None) -> int:
    """Run the warm-up; exit 0 when done (or nothing to do without Redis), 1 on failure (no
    usable CURRENT to default to included), 2 on a bad setting."""
    parser = argparse.ArgumentParser(
        prog="python -m readiness.freshness.warm",
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
        url = redis_url(args.redis_url, "--redis-url") if args.redis_url else settings.redis_url
    except SettingsError as error:
        print(f"warm: {error}", file=sys.stderr)
        return 2
    if url is None:
        print("warm: no Redis configured (READINESS_REDIS_URL); nothing to warm", file=sys.stderr)
        return 0
    data_dir = args.data_dir or settings.data_dir
    warm_settings = WarmSettings.of(settings)
    if args.top is not None:
        warm_settings = replace(warm_settings, top=args.top)
    snapshot_id = args.snapshot or read_current_id(data_dir)
    if snapshot_id is None:
        print(f"warm: failed: no usable CURRENT in {data_dir} (missing, or not a YYYY-MM id); "
              "publish a snapshot or pass --snapshot", file=sys.stderr)
        return 1
    print(f"warming snapshot {snapshot_id} from {data_dir} into Redis", file=sys.stderr)
    try:
        summary = asyncio.run(_run(url, data_dir, snapshot_id, warm_settings))
    except (SnapshotRefused, *FAILURES) as error:
        print(f"warm: failed: {redact(str(error), url)}", file=sys.stderr)  # no password of the URL
        return 1
    print(summary)
    return 0


async def _run(url: str, data_dir: Path, snapshot_id: str, settings: WarmSettings) -> Summary:
    redis = connect(url, timeout=WARM_TIMEOUT_SECONDS)
    try:
        return await warm(redis, data_dir, snapshot_id, settings)
    finally:
        await redis.aclose()


if __name__ == "__main__":
    sys.exit(main())
