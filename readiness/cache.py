"""The in-process answer cache: serialized bodies with their ETag, in an LRU bounded in bytes.

Values are bytes, never Python objects (DESIGN §4), so a hit costs a dict lookup and a write.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field

_ENTRY_OVERHEAD = 200
"""Rough bytes of bookkeeping per entry (dict slot, Answer, key object), so tiny answers count."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A response body ready to send, with its strong ETag computed once."""

    body: bytes
    etag: str = field(init=False)

    def __post_init__(self) -> None:
        digest = hashlib.blake2b(self.body, digest_size=16).hexdigest()
        object.__setattr__(self, "etag", f'"{digest}"')


class AnswerCache:
    """Least-recently-used map from cache key to Answer, holding at most ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
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
        previous = self._entries.pop(key, None)
        if previous is not None:
            self.size -= _cost(key, previous)
        self._entries[key] = answer
        self.size += cost
        while self.size > self.max_bytes:
            old_key, old_answer = self._entries.popitem(last=False)
            self.size -= _cost(old_key, old_answer)


def _cost(key: str, answer: Answer) -> int:
    return len(key) + len(answer.body) + _ENTRY_OVERHEAD
