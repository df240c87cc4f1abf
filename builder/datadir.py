"""What a servers' data directory holds (docs/DATA.md): which snapshot is current, and a listing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from builder.journal import Entry, held
from loaders import Forced, read_current_id, read_snapshot, snapshot_ids

CURRENT = "CURRENT"
SNAPSHOTS = "snapshots"


@dataclass(frozen=True, slots=True)
class Listed:
    """One snapshot of a data directory: its manifest's facts (None where unreadable) and what
    the servers' reader makes of it: ``valid`` economies it would serve (None: it refuses the
    snapshot), the codes of the country files it would skip, the sanity checks it was published
    past (its manifest's ``forced``), and the rollback that took it out of service, if one did
    (builder.journal)."""

    snapshot_id: str
    published: str | None
    countries: int | None
    """Economies the manifest lists."""
    current: bool
    valid: int | None = None
    skipped: tuple[str, ...] = ()
    forced: Forced | None = None
    rolled_back: Entry | None = None


def list_snapshots(data_dir: Path) -> list[Listed]:
    """Every snapshot directory of ``data_dir``, oldest first, read as the servers read it."""
    current = read_current_id(data_dir)
    rolled_back = held(data_dir)
    listed: list[Listed] = []
    for snapshot_id in snapshot_ids(data_dir):
        published: str | None = None
        countries: int | None = None
        forced: Forced | None = None
        directory = data_dir / SNAPSHOTS / snapshot_id
        try:
            manifest = orjson.loads((directory / "manifest.json").read_bytes())
            published = str(manifest["published"])
            countries = len(manifest["countries"])
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
            pass  # shown as unreadable; ``python -m loaders.validate`` says why
        valid: int | None = None
        skipped: tuple[str, ...] = ()
        if published is not None:
            snapshot, problems = read_snapshot(directory)
            valid = len(snapshot.countries) if snapshot is not None else None
            forced = snapshot.forced if snapshot is not None else None
            skipped = tuple(sorted({
                Path(problem.file).stem for problem in problems if problem.file.startswith("countries/")
                and problem.file.endswith(".json")
            }))
        listed.append(Listed(snapshot_id, published, countries, snapshot_id == current, valid, skipped, forced,
                             rolled_back.get(snapshot_id)))
    return listed
