"""Snapshot files (docs/DATA.md) to validated, immutable in-memory snapshots."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from loaders.contract import (
    COMPOSITE,
    COUNTRY_FIELDS,
    DETAILS,
    DIMENSIONS,
    FIELD_BY_NAME,
    INDICATOR_FIELDS,
    REGION_SHORT,
    REQUIRED_INDICATOR_FIELDS,
    SNAPSHOT_CHANNEL,
    Field,
    Kind,
)
from loaders.model import Country, Forced, JsonValue, Snapshot
from loaders.schema import SCHEMA_VERSION
from loaders.summary import (
    CATALOGUE_KEYS,
    CHANGES_FILE,
    INDICATORS_FILE,
    RANK_MEASURE,
    SERIES_FIELDS,
    Summary,
    mover_direction,
    series_of,
    summarize,
)

if TYPE_CHECKING:
    from loaders.reader import (
        SNAPSHOT_ID,
        Problem,
        SnapshotRefused,
        load_snapshot,
        manifest_digest,
        read_current_id,
        read_snapshot,
        snapshot_ids,
    )
    from loaders.singleflight import Overdue, SingleFlight
    from loaders.store import SnapshotStore

_READERS = {
    "SNAPSHOT_ID": "loaders.reader",
    "Problem": "loaders.reader",
    "SnapshotRefused": "loaders.reader",
    "load_snapshot": "loaders.reader",
    "manifest_digest": "loaders.reader",
    "read_current_id": "loaders.reader",
    "read_snapshot": "loaders.reader",
    "snapshot_ids": "loaders.reader",
    "SnapshotStore": "loaders.store",
    "Overdue": "loaders.singleflight",
    "SingleFlight": "loaders.singleflight",
}
"""Names imported on first use: reading and validating files needs jsonschema, which the
contract's users (the pure query modules) must not load; nor need they asyncio, which the
store and single-flight load."""

__all__ = [
    "CHANGES_FILE",
    "INDICATORS_FILE",
    "RANK_MEASURE",
    "mover_direction",
    "SERIES_FIELDS",
    "CATALOGUE_KEYS",
    "Summary",
    "series_of",
    "summarize",
    "COMPOSITE",
    "COUNTRY_FIELDS",
    "DETAILS",
    "DIMENSIONS",
    "FIELD_BY_NAME",
    "INDICATOR_FIELDS",
    "REGION_SHORT",
    "REQUIRED_INDICATOR_FIELDS",
    "SNAPSHOT_CHANNEL",
    "SNAPSHOT_ID",
    "SCHEMA_VERSION",
    "Field",
    "Kind",
    "Country",
    "Forced",
    "JsonValue",
    "Problem",
    "Snapshot",
    "SnapshotRefused",
    "SnapshotStore",
    "SingleFlight",
    "Overdue",
    "load_snapshot",
    "manifest_digest",
    "read_current_id",
    "read_snapshot",
    "snapshot_ids",
]


def __getattr__(name: str) -> Any:
    """A reader or store name, imported from its module when first asked for (PEP 562)."""
    home = _READERS.get(name)
    if home is None:
        raise AttributeError(f"module 'loaders' has no attribute {name!r}")
    return getattr(import_module(home), name)
