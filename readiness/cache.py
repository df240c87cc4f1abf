"""Cached answers: serialized bodies with their ETag and gzip copy, and the in-process tier.

Values are bytes, never Python objects (docs/CACHING.md): a tier-1 hit costs a dict lookup, and a
tier-2 (Redis) value is the same bytes packed into one string, so one GET fetches it. A packed
value carries a keyed digest over its cache key, ETag, body and gzip copy, and its ETag as 16
raw bytes, shown again as 32 hex digits: whatever else is in Redis under that name is a miss,
never served, and no text from Redis reaches a header (docs/CACHING.md, "What Redis may hold").
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import struct
from collections import OrderedDict
from dataclasses import dataclass

GZIP_MIN_BYTES = 1024
"""Smaller bodies are not worth compressing: headers and CPU cost more than they save."""

GZIP_LEVEL = 4
"""Half the CPU of level 6 for 11 % more bytes (0.49 ms and 13.4 KB against 0.86 ms and
12.0 KB for the 217-economy answer): every miss pays it, and the event loop waits meanwhile."""

_ENTRY_OVERHEAD = 200
"""Rough bytes of bookkeeping per entry (dict slot, Answer, key object), so tiny answers count."""

_HEADER = struct.Struct(">BII")
"""Packed answer header: format version, body length, gzip length."""
_FORMAT = 3
_MAC_BYTES = 32
_ETAG_BYTES = 16
"""The ETag's BLAKE2b-128 digest, stored raw (``_etag`` shows it as 32 hex digits)."""
_MAC_PERSON = b"readiness-answer"
"""Domain separation: the MAC key signs nothing but packed answers."""

DEFAULT_SIGNING_KEY = "readiness-default-signing-key"
"""The key when READINESS_REDIS_SIGNING_KEY is unset: public, so it detects accidents (a value
under the wrong key, from another version, damaged), not a deliberate writer (docs/DECISIONS.md)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A response body ready to send: its strong ETag and gzip copy are computed once."""

    body: bytes
    etag: str
    gzipped: bytes | None

    @classmethod
    def of(cls, body: bytes) -> Answer:
        """Wrap a serialized body, computing its ETag and (if worth it) its gzip copy."""
        compressed = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0) if len(body) >= GZIP_MIN_BYTES else None
        return cls(body, _etag(body), compressed)

    @property
    def gzip_etag(self) -> str:
        """ETag of the gzip representation: a different representation needs its own."""
        return self.etag[:-1] + '-gz"'

    @property
    def size(self) -> int:
        """Bytes this answer holds."""
        return len(self.body) + len(self.gzipped or b"") + len(self.etag)


class AnswerCodec:
    """Packs answers for Redis bound to their cache key, and unpacks only values it packed.

    The packed value is a header, a keyed BLAKE2b-256 digest, the ETag's raw digest, the body
    and the gzip copy. The keyed digest covers all of them and the cache key, so a value copied
    to another key, altered, truncated or written by anything without the signing key fails the
    check. The ETag comes back as the hex of 16 stored bytes, so nothing read from Redis reaches
    a response header as text; hashing the body again to derive it would double the cost of a
    Redis read (about 70 of 150 µs for the 217-economy answer).
    """

    def __init__(self, signing_key: str = DEFAULT_SIGNING_KEY) -> None:
        # BLAKE2b takes at most 64 key bytes: hash the setting to a fixed-size key first.
        self._key = hashlib.blake2b(signing_key.encode(), digest_size=32).digest()

    def pack(self, key: str, answer: Answer) -> bytes:
        """Serialize ``answer`` for storing under cache key ``key``."""
        compressed = answer.gzipped or b""
        header = _HEADER.pack(_FORMAT, len(answer.body), len(compressed))
        etag = bytes.fromhex(answer.etag.strip('"'))  # Answer.of made it: 32 hex digits
        mac = self._mac(header, key, etag, answer.body, compressed)
        return header + mac + etag + answer.body + compressed

    def unpack(self, key: str, data: bytes) -> Answer | None:
        """The answer packed for ``key``; None for anything else (foreign, damaged, moved,
        signed with another key): the caller treats it as a miss."""
        if len(data) < _HEADER.size + _MAC_BYTES + _ETAG_BYTES:
            return None
        version, body_length, gzip_length = _HEADER.unpack_from(data)
        etag_start = _HEADER.size + _MAC_BYTES
        start = etag_start + _ETAG_BYTES
        if version != _FORMAT or len(data) != start + body_length + gzip_length:
            return None
        view = memoryview(data)
        etag = view[etag_start:start]
        body = view[start : start + body_length]
        compressed = view[start + body_length :]
        expected = self._mac(view[: _HEADER.size], key, etag, body, compressed)
        if not hmac.compare_digest(expected, view[_HEADER.size : etag_start]):
            return None
        return Answer(bytes(body), f'"{etag.hex()}"', bytes(compressed) or None)

    def _mac(self, header: bytes | memoryview, key: str, *parts: bytes | memoryview) -> bytes:
        encoded = key.encode()
        mac = hashlib.blake2b(key=self._key, digest_size=_MAC_BYTES, person=_MAC_PERSON)
        for part in (header, len(encoded).to_bytes(4, "big"), encoded, *parts):
            mac.update(part)
        return mac.digest()


def _etag(body: bytes) -> str:
    """The strong validator of a body: every server derives the same one from the same bytes."""
    return f'"{hashlib.blake2b(body, digest_size=_ETAG_BYTES).hexdigest()}"'


class AnswerCache:
    """Tier 1: least-recently-used map from cache key to Answer, holding at most ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.evictions = 0
        """Entries dropped to make room, counted for ``/metrics``."""
        self._entries: OrderedDict[str, Answer] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Answer | None:
        """Return the answer stored under ``key``, marking it recently used."""
        answer = self._entries.get(key)
        if answer is not None:
            self._entries.move_to_end(key)
        return answer

    def put(self, key: str, answer: Answer) -> None:
        """Store an answer, evicting the least recently used ones to stay within bounds.

        An answer larger than the whole cache is not stored.
        """
        cost = _cost(key, answer)
        if cost > self.max_bytes:
            return
        self._drop(key)
        self._entries[key] = answer
        self.size += cost
        while self.size > self.max_bytes:
            old_key, old_answer = self._entries.popitem(last=False)
            self.size -= _cost(old_key, old_answer)
            self.evictions += 1

    def discard_prefix(self, prefix: str) -> int:
        """Drop every entry whose key starts with ``prefix`` (a replaced snapshot's); count them."""
        doomed = [key for key in self._entries if key.startswith(prefix)]
        for key in doomed:
            self._drop(key)
        return len(doomed)

    def _drop(self, key: str) -> None:
        previous = self._entries.pop(key, None)
        if previous is not None:
            self.size -= _cost(key, previous)


def _cost(key: str, answer: Answer) -> int:
    return len(key) + answer.size + _ENTRY_OVERHEAD
