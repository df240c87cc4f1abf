"""Snapshot files (DESIGN §2) to validated, immutable in-memory snapshots."""

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
from loaders.schema import SCHEMA_VERSION
from loaders.model import Country, JsonValue, Snapshot
from loaders.reader import (
    SNAPSHOT_ID,
    Problem,
    SnapshotRefused,
    load_snapshot,
    read_current_id,
    read_snapshot,
    snapshot_ids,
)
from loaders.store import SnapshotStore

__all__ = [
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
    "JsonValue",
    "Problem",
    "Snapshot",
    "SnapshotRefused",
    "SnapshotStore",
    "load_snapshot",
    "read_current_id",
    "read_snapshot",
    "snapshot_ids",
]
