"""Where answers are kept: the in-process tier (``AnswerCache``) and the packed form they take
in Redis (``AnswerCodec``). The ``Answer`` itself is the domain's (``readiness/domain/answer.py``).

Values are bytes, never Python objects (docs/CACHING.md): a tier-1 hit costs a dict lookup, and a
tier-2 (Redis) value is the same bytes packed into one string, so one GET fetches it. A packed
value carries a keyed BLAKE3 digest over its cache key, ETag, body, gzip copy and meta, its ETag
as 16 raw bytes, shown again as 32 hex digits, and its meta (format, snapshot, publication date,
total, download name, next page, synthetic) as numbers and checked ASCII text: whatever else is in Redis under that
name is a miss, never served, and no unchecked text from Redis reaches a header
(docs/CACHING.md#what-redis-may-hold).
"""

from __future__ import annotations

import hmac
import struct
from collections import OrderedDict
from functools import lru_cache

from blake3 import blake3

from config.settings import DEFAULT_SIGNING_KEY  # public: READINESS_REDIS_SIGNING_KEY unset
from readiness.domain.answer import ETAG_BYTES, Answer
from readiness.domain.meta import DOWNLOAD_NAME, AnswerMeta, Format

_ENTRY_OVERHEAD = 200
"""Rough bytes of bookkeeping per entry (dict slot, Answer, key object), so tiny answers count."""

_HEADER = struct.Struct(">BII")
"""Packed answer header: format version, body length, gzip length."""
_FORMAT = 9
"""3 was signed with keyed BLAKE2b, 4 had no meta, 5 no next page, 6 no synthetic flag, 7 a
next page alone (no ``first``, ``prev``, ``last``) beside bodies without the paging envelope, and
8 (the branch of the paging conventions) bodies without ``snapshot_id``, ``current`` and CSV
provenance columns: their values are misses now, overwritten as they are computed."""
_META = struct.Struct(">BBIHBHBBBH")
"""Packed meta, after the gzip copy: format, flags (``_SYNTHETIC``), total (``_NO_TOTAL`` for
none), snapshot year and month, publication year, month and day (zeros for none), lengths of the
download name and of the next page's URL that follow (ASCII, each checked against its pattern by ``AnswerMeta``).
Numbers, so the headers made from them are rebuilt, not read, from Redis; the next page's URL
is text checked as strictly as the download name (only a v1 path and percent-encoded query
characters), stored rather than rebuilt because the codec knows no Query to rebuild it from."""
_NO_TOTAL = 2**32 - 1
_SYNTHETIC = 0x01
"""The flag bit of ``AnswerMeta.synthetic``; any other bit set is a value this code did not write."""
_FORMAT_CODES = {Format.JSON: 0, Format.CSV: 1, Format.PARQUET: 2, Format.ZIP: 3}
_FORMATS = {code: member for member, code in _FORMAT_CODES.items()}
_MAC_BYTES = 32
_MAC_CONTEXT = "readiness 2026-11 packed answer MAC key"
"""BLAKE3 key derivation context (domain separation): the MAC key signs nothing but packed
answers, whatever else READINESS_REDIS_SIGNING_KEY may be used for."""



class AnswerCodec:
    """Packs answers for Redis bound to their cache key, and unpacks only values it packed.

    The packed value is a header, a keyed BLAKE3 digest (256 bits), the ETag's raw digest, the
    body and the gzip copy. The keyed digest covers all of them and the cache key, so a value
    copied to another key, altered, truncated or written by anything without the signing key
    fails the check. The ETag comes back as the hex of 16 stored bytes, so nothing read from
    Redis reaches a response header as text; hashing the body again to derive it would double
    the cost of a Redis read.

    Every byte must be hashed on every Redis read, so the hash's speed is the check's cost:
    keyed BLAKE3 hashes several times faster than the standard library's keyed BLAKE2b
    (docs/PERFORMANCE.md#checking-values-read-from-redis).
    """

    def __init__(self, signing_key: str = DEFAULT_SIGNING_KEY) -> None:
        # BLAKE3's keyed mode takes a 32-byte key: derive it from the setting, in a context of its own.
        self._key = blake3(signing_key.encode(), derive_key_context=_MAC_CONTEXT).digest()

    def pack(self, key: str, answer: Answer) -> bytes:
        """Serialize ``answer`` for storing under cache key ``key``."""
        compressed = answer.gzipped or b""
        header = _HEADER.pack(_FORMAT, len(answer.body), len(compressed))
        etag = bytes.fromhex(answer.etag.strip('"'))  # Answer.of made it: 32 hex digits
        meta = _pack_meta(answer.meta)
        mac = self._mac(header, key, etag, answer.body, compressed, meta)
        return header + mac + etag + answer.body + compressed + meta

    def unpack(self, key: str, data: bytes) -> Answer | None:
        """The answer packed for ``key``; None for anything else (foreign, damaged, moved,
        signed with another key): the caller treats it as a miss."""
        if len(data) < _HEADER.size + _MAC_BYTES + ETAG_BYTES:
            return None
        version, body_length, gzip_length = _HEADER.unpack_from(data)
        etag_start = _HEADER.size + _MAC_BYTES
        start = etag_start + ETAG_BYTES
        meta_start = start + body_length + gzip_length
        if version != _FORMAT or len(data) < meta_start + _META.size:
            return None
        view = memoryview(data)
        etag = view[etag_start:start]
        body = view[start : start + body_length]
        compressed = view[start + body_length : meta_start]
        # ETag, body, gzip copy and meta lie one after the other: one stream hashes them.
        expected = self._mac(view[: _HEADER.size], key, view[etag_start:])
        if not hmac.compare_digest(expected, view[_HEADER.size : etag_start]):
            return None
        meta = _unpack_meta(bytes(view[meta_start:]))
        if meta is None:
            return None
        return Answer(bytes(body), f'"{etag.hex()}"', bytes(compressed) or None, meta)

    def _mac(self, header: bytes | memoryview, key: str, *parts: bytes | memoryview) -> bytes:
        """Keyed BLAKE3 of header, key length, key and ``parts``, as one stream.

        Joined and hashed in one call: a large ``update`` after a short first part costs far
        more than the copy, as its chunks no longer start on BLAKE3's 1 KiB boundaries and the
        SIMD path is lost (docs/PERFORMANCE.md#tier-2-hits-where-the-time-went-2026-11-23)."""
        encoded = key.encode()
        joined = b"".join((header, len(encoded).to_bytes(4, "big"), encoded, *parts))
        return blake3(joined, key=self._key).digest(length=_MAC_BYTES)


def _pack_meta(meta: AnswerMeta) -> bytes:
    """``meta`` as numbers and its ASCII download name (``_META``)."""
    snapshot = (0, 0) if meta.snapshot is None else (int(meta.snapshot[:4]), int(meta.snapshot[5:]))
    published = (0, 0, 0) if meta.published is None else (
        int(meta.published[:4]), int(meta.published[5:7]), int(meta.published[8:])
    )
    download = (meta.download or "").encode("ascii")
    following = (meta.links or "").encode("ascii")
    total = _NO_TOTAL if meta.total is None else meta.total
    flags = _SYNTHETIC if meta.synthetic else 0
    packed = _META.pack(
        _FORMAT_CODES[meta.format], flags, total, *snapshot, *published, len(download), len(following)
    )
    return packed + download + following


@lru_cache(maxsize=1024)
def _unpack_meta(data: bytes) -> AnswerMeta | None:
    """The meta ``_pack_meta`` wrote; None for anything else (wrong length, bad name or date).

    Memoized: the answers of one snapshot, route and total share a few dozen bytes of meta,
    and every Redis hit would otherwise check the name and the dates again
    (docs/PERFORMANCE.md#tier-2-hits-where-the-time-went-2026-11-23)."""
    code, flags, total, year, month, published_year, published_month, day, length, next_length = (
        _META.unpack_from(data)
    )
    download = bytes(data[_META.size : _META.size + length])
    following = bytes(data[_META.size + length :])
    if len(download) != length or len(following) != next_length or code not in _FORMATS or flags & ~_SYNTHETIC:
        return None
    if download and not (download.isascii() and DOWNLOAD_NAME.fullmatch(download.decode("ascii"))):
        return None
    if following and not following.isascii():
        return None
    try:
        return AnswerMeta(
            _FORMATS[code],
            f"{year:04d}-{month:02d}" if year else None,
            f"{published_year:04d}-{published_month:02d}-{day:02d}" if published_year else None,
            None if total == _NO_TOTAL else total,
            download.decode("ascii") or None,
            following.decode("ascii") or None,  # AnswerMeta checks it against PAGE_LINKS
            bool(flags & _SYNTHETIC),
        )
    except ValueError:  # signed, so written by this code: only a changed rule gets here
        return None


PROTECTED_SHARE = 0.8
"""Of tier 1's bytes, how many answers asked for again may hold: the rest is the probation
segment, where every new answer starts and where a flood of one-off answers churns."""


class AnswerCache:
    """Tier 1: answers by cache key, holding at most ``max_bytes``, scan-resistant.

    A segmented LRU: a new answer enters the probation segment; asked for again there, it is
    promoted to the protected segment (at most ``PROTECTED_SHARE`` of the bytes). Room for a
    new answer is made from probation only, least recently used first, so a flood of one-off
    answers (a scan, a cache-busting client) evicts other one-off answers and never the
    answers clients keep asking for (docs/CACHING.md#tier-1-a-segmented-lru). An answer that
    probation cannot hold is not stored. When protected outgrows its share, its least recently
    used answers go back to probation, as new ones would.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.protected_max = int(max_bytes * PROTECTED_SHARE)
        self.size = 0
        """Bytes held by both segments."""
        self.protected_size = 0
        self.evictions = 0
        """Entries dropped to make room, counted for ``/metrics``."""
        self._probation: OrderedDict[str, Answer] = OrderedDict()
        self._protected: OrderedDict[str, Answer] = OrderedDict()

    def __len__(self) -> int:
        return len(self._probation) + len(self._protected)

    def __contains__(self, key: str) -> bool:
        """Whether ``key`` is held, without counting as a use."""
        return key in self._protected or key in self._probation

    def get(self, key: str) -> Answer | None:
        """Return the answer stored under ``key``, marking it recently used; a second use of
        an answer in probation promotes it."""
        answer = self._protected.get(key)
        if answer is not None:
            self._protected.move_to_end(key)
            return answer
        answer = self._probation.pop(key, None)
        if answer is not None:
            self._protect(key, answer)
        return answer

    def put(self, key: str, answer: Answer) -> None:
        """Store an answer: in place if the key is held, else in probation, evicting only
        probation's least recently used answers to make room. An answer that does not fit
        beside the protected answers is not stored."""
        cost = _cost(key, answer)
        protected = key in self._protected
        self._drop(key)
        if cost > self.max_bytes - self.protected_size:
            return
        self.size += cost
        if protected:  # a newer answer under a key clients keep asking for stays protected
            self._protect(key, answer)
        else:
            self._probation[key] = answer
        self._evict_probation()

    def discard_prefix(self, prefix: str) -> int:
        """Drop every entry whose key starts with ``prefix`` (a replaced snapshot's); count them."""
        doomed = [key for key in (*self._probation, *self._protected) if key.startswith(prefix)]
        for key in doomed:
            self._drop(key)
        return len(doomed)

    def _protect(self, key: str, answer: Answer) -> None:
        """Put ``answer`` (counted in ``size``, in neither segment) at the recent end of
        protected; demote what overflows its share to the recent end of probation."""
        self._protected[key] = answer
        self.protected_size += _cost(key, answer)
        while self.protected_size > self.protected_max and len(self._protected) > 1:
            old_key, old_answer = self._protected.popitem(last=False)
            self.protected_size -= _cost(old_key, old_answer)
            self._probation[old_key] = old_answer

    def _evict_probation(self) -> None:
        """Evict probation's least recently used answers until both segments fit."""
        while self._probation and self.size > self.max_bytes:
            old_key, old_answer = self._probation.popitem(last=False)
            self.size -= _cost(old_key, old_answer)
            self.evictions += 1

    def _drop(self, key: str) -> None:
        previous = self._probation.pop(key, None)
        if previous is not None:
            self.size -= _cost(key, previous)
            return
        previous = self._protected.pop(key, None)
        if previous is not None:
            cost = _cost(key, previous)
            self.size -= cost
            self.protected_size -= cost


def _cost(key: str, answer: Answer) -> int:
    return len(key) + answer.size + _ENTRY_OVERHEAD
