"""Redis admission: a computed answer is written to Redis once a second client has asked for it.

Redis is shared by every server and bounded (``maxmemory``, ``allkeys-lru``): written at once,
a flood of valid one-off queries (distinct sets of four countries, each a small answer) fills
it and evicts the warm set for answers nobody asks for twice. So a server keeps the first
computation of a key in tier 1 only and notes it here, with who asked; a request for the key
from another client within ``window`` seconds (a tier-1 hit, or a second miss after tier 1
dropped it) writes it to Redis then. Not the same client's second request: one client asking
each query twice (under two spellings, or twice in a row) would otherwise write everything
it asks for. The warm-up writes what it computes directly: its answers are worth it by choice.
docs/CACHING.md#redis-admission explains the choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable

ENTRIES = 10_000
"""Keys noted at most; beyond, the oldest notes are forgotten (an answer asked for again after
that many other first computations waits for a third request to reach Redis)."""


class RedisAdmission:
    """The keys computed once and not yet written to Redis, with when and for whom they were noted.

    Keys and clients are held by their ``hash()`` (str hashes are cached, so a lookup costs one
    dict probe): at most ``entries`` pairs of small numbers, whatever the length of the keys.
    Two keys (or two clients) with one hash would only let an answer reach Redis a request
    early (or late).
    """

    def __init__(self, window: float, entries: int = ENTRIES, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self.entries = entries
        self.pending: dict[int, tuple[float, int]] = {}
        """hash(key) -> (when it was noted, hash(client) who asked), oldest first.
        ``hash(key) in pending`` is the check on a hit: only keys found there need ``admit``."""
        self._clock = clock

    def admit(self, key: str, client: str) -> bool:
        """Whether the answer under ``key``, computed or found in tier 1 now for ``client``,
        goes to Redis: True when another client's request noted ``key`` within the window (the
        note is dropped) or the window is 0; otherwise ``key`` is noted now for ``client``
        (again, if its note was older or this client's) and False returned."""
        if not self.window:
            return True
        now = self._clock()
        noted = self.pending.pop(hash(key), None)
        if noted is not None and now - noted[0] <= self.window and noted[1] != hash(client):
            return True
        self.pending[hash(key)] = (now, hash(client))
        if len(self.pending) > self.entries:
            del self.pending[next(iter(self.pending))]
        return False
