"""Cache keys: the one place that names an answer in both tiers, for the servers and the
warm-up alike, so that what one writes the others find (docs/CACHING.md#the-path-of-one-request)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from loaders import Snapshot, Summary
from readiness.domain.query import Query
from readiness.domain.route import Route

CONTENT_DIGEST_CHARS = 16
"""Hex characters of the snapshot's content digest in a cache key: 64 bits tell apart any two
data directories that happen to share a snapshot id."""


def request_key(route: Route, query: Query) -> str:
    """Route + canonical query: what popularity is counted by, and replayed by the warm-up."""
    return f"{route.name}|{query.canonical()}"


def cache_key(snapshot: Snapshot, request: str) -> str:
    """Snapshot id + content digest + route + canonical query: equal keys give identical
    bytes, even across data directories sharing one Redis.

    The id comes first so that one snapshot's keys share the prefix ``<id>|``, which the live
    swap drops from tier 1 (``AnswerCache.discard_prefix``).
    """
    return f"{snapshot.id}|{snapshot.digest[:CONTENT_DIGEST_CHARS]}|{request}"


def pinned_key(snapshot: Snapshot, current_id: str, request: str) -> str:
    """The cache key of an answer pinned to ``snapshot`` (by ``year``, ``snapshot`` or a change
    report's path): ``cache_key``, the request marked ``|current`` while ``snapshot`` is the
    current one. Its envelope says whether it is (``"current"``), so once another snapshot is
    current the same request is another answer, under a key the old one never had: no tier
    serves an archive's answer saying ``"current": true`` (docs/CACHING.md#the-path-of-one-request)."""
    return cache_key(snapshot, f"{request}|current" if snapshot.id == current_id else request)


def collection_key(current: Snapshot, summaries: Sequence[Summary], request: str) -> str:
    """The cache key of a history or catalogue answer: the current snapshot's, with a digest
    of every snapshot shown (id and content digest) before the request.

    Such answers change when any snapshot is published, replaced or becomes readable, so the
    key names them all; the current snapshot's id first keeps the swap's drop by prefix."""
    return snapshots_key(current, [summary.series for summary in summaries], request)


def snapshots_key(current: Snapshot, shown: Sequence[Snapshot], request: str) -> str:
    """The cache key of an answer computed from several snapshots (``shown``: whole ones, as
    the indicator table over ``years`` reads them, or series): as ``collection_key``, a digest
    of each one's id and content digest, so a replaced snapshot gives a new key. A summary's
    series has its snapshot's id and digest, so both name one answer alike."""
    named = ";".join(f"{snapshot.id}:{snapshot.digest}" for snapshot in shown)
    digest = hashlib.blake2b(named.encode(), digest_size=CONTENT_DIGEST_CHARS // 2).hexdigest()
    return cache_key(current, f"{digest}|{request}")
