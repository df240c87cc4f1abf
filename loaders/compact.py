"""A loaded snapshot packed into a few hundred kilobytes, to be revived without the reader.

Reading a snapshot from its files costs CPU (checksums, JSON Schema validation of every
country file, confidence keys removed); reviving the packed form of the same, already
validated and cleaned snapshot costs a small fraction of that
(docs/PERFORMANCE.md#archives-evicted-and-asked-for-again). The store keeps one for every
archive it has read, so archives evicted from memory come back cheaply
(docs/CACHING.md#archives-in-memory), and history across snapshots can read every
December's scores.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import cast

import orjson

from loaders.model import Country, Forced, JsonValue, Snapshot

_LEVEL = 1
"""zlib's fastest level: small, and quick to unpack (a sample December's size:
docs/PERFORMANCE.md#archives-evicted-and-asked-for-again)."""


@dataclass(frozen=True, slots=True)
class Packed:
    """One snapshot's packed form and the manifest digest of the files it was read from."""

    identity: str
    data: bytes

    @classmethod
    def of(cls, snapshot: Snapshot, identity: str) -> Packed:
        """Pack ``snapshot``, read from files whose manifest digest is ``identity``."""
        document = [
            snapshot.id,
            snapshot.published,
            snapshot.digest,
            snapshot.skipped,
            snapshot.synthetic,
            snapshot.notice,
            snapshot.publisher,
            snapshot.license,
            None if snapshot.forced is None else [list(snapshot.forced.checks), snapshot.forced.reason,
                                                  list(snapshot.forced.findings)],
            [[country.code, country.record, list(country.details)] for country in snapshot.countries.values()],
        ]
        return cls(identity, zlib.compress(orjson.dumps(document), _LEVEL))

    def unpack(self) -> Snapshot:
        """The snapshot as it was packed: equal records, in the same order."""
        snapshot_id, published, digest, skipped, synthetic, notice, publisher, license_, forced, countries = (
            orjson.loads(zlib.decompress(self.data))
        )
        return Snapshot(
            snapshot_id,
            published,
            {
                code: Country(code, cast(dict[str, JsonValue], record), tuple(details))
                for code, record, details in countries
            },
            digest,
            skipped,
            synthetic,
            notice,
            publisher,
            license_,
            None if forced is None else Forced(tuple(forced[0]), forced[1], tuple(forced[2])),
        )
