"""What a servers' data directory holds (docs/DATA.md): which snapshot is current, and a listing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from loaders import read_current_id, snapshot_ids

CURRENT = "CURRENT"
SNAPSHOTS = "snapshots"


@dataclass(frozen=True, slots=True)
class Listed:
    """One snapshot of a data directory, from its manifest (None where unreadable)."""

    snapshot_id: str
    published: str | None
    countries: int | None
    current: bool


def list_snapshots(data_dir: Path) -> list[Listed]:
    """Every snapshot directory of ``data_dir``, oldest first, with its manifest's facts."""
    current = read_current_id(data_dir)
    listed: list[Listed] = []
    for snapshot_id in snapshot_ids(data_dir):
        published: str | None = None
        countries: int | None = None
        try:
            path = data_dir / SNAPSHOTS / snapshot_id / "manifest.json"
            manifest = orjson.loads(path.read_bytes())
            published = str(manifest["published"])
            countries = len(manifest["countries"])
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            pass  # shown as unreadable; ``python -m loaders.validate`` says why
        listed.append(Listed(snapshot_id, published, countries, snapshot_id == current))
    return listed

