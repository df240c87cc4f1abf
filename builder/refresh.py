"""The monthly refresh as one call: fetch, build, validate, check, publish with the warm-up.

``refresh`` fetches the raw tables of the month from the World Bank API into
``<work>/raw/<id>/``, builds the snapshot in a fresh directory under ``<work>/build/``
(validated there by the servers' reader), compares it with the snapshot CURRENT names, runs
the sanity checks of ``builder.sanity`` and only then publishes it (``builder.publish``:
copy, validate again, change report, hook, flip CURRENT). Any failure before the flip
leaves the data directory as it was (docs/PUBLISHING.md#the-monthly-refresh-one-command).
"""

from __future__ import annotations

import datetime
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping

from loaders import Snapshot, read_current_id, read_snapshot

from builder.build import Built, build_snapshot
from builder.changes import ChangeReport, compare
from builder.datadir import SNAPSHOTS
from builder.fetch import Fetched, fetch_raw
from builder.inputs import read_raw
from builder.publish import Hook, Outcome, PublishError, publish
from builder.rawtables import write_tables
from builder.release import Release
from builder.sanity import Limits, problems
from builder.worldbank import SourceSettings


class RefreshRefused(PublishError):
    """The new snapshot is valid but fails a sanity check; ``reasons`` lists each."""

    def __init__(self, snapshot_id: str, reasons: list[str]) -> None:
        listed = "\n  ".join(reasons)
        super().__init__(f"refused to publish {snapshot_id}:\n  {listed}\n"
                         "(check the source; --force publishes it anyway)")
        self.reasons = reasons


@dataclass(frozen=True, slots=True)
class Plan:
    """One refresh: which month, where the source is, where to work and publish, the FCV
    list, the hook (the warm-up), the sanity limits, and whether to publish despite them."""

    release: Release
    source: SourceSettings
    work: Path
    data_dir: Path
    fcv: Mapping[str, str]
    hook: Hook | None = None
    limits: Limits = Limits()
    force: bool = False


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What a refresh did at each step."""

    fetched: Fetched
    raw: Path
    built: Built
    """The build; its directory is removed once published (the data directory has the copy)."""
    report: ChangeReport
    overridden: tuple[str, ...]
    """The sanity problems that ``force`` published over (empty normally)."""
    outcome: Outcome


def refresh(plan: Plan, now: datetime.datetime) -> Refreshed:
    """Run the whole refresh for ``plan``; ``now`` is the fetch's recorded date.

    Raises SourceError (the source), InputError (the fetched tables), BuildInvalid,
    RefreshRefused (a sanity check, without ``force``), or any error of ``publish``; in every
    case CURRENT is as it was.
    """
    release = plan.release
    fetched = fetch_raw(plan.source, release.year, plan.fcv, now)
    raw = write_tables(fetched.tables, plan.work / "raw" / release.id)
    builds = plan.work / "build"
    builds.mkdir(parents=True, exist_ok=True)
    parent = Path(tempfile.mkdtemp(prefix=f"{release.id}-", dir=builds))
    try:
        built = build_snapshot(read_raw(raw), release, parent)
        new, _ = read_snapshot(built.directory)
        if new is None:  # build_snapshot validated it; unreachable unless the disk changed
            raise PublishError(f"{built.directory} cannot be read back")
        previous = _current(plan.data_dir)
        report = compare(previous, new)
        reasons = problems(new, previous, report, plan.limits)
        if reasons and not plan.force:
            raise RefreshRefused(release.id, reasons)
        outcome = publish(built.directory, plan.data_dir, hook=plan.hook)
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    return Refreshed(fetched, raw, built, report, tuple(reasons), outcome)


def _current(data_dir: Path) -> Snapshot | None:
    """The snapshot to compare with: the current one, as publish will (None if none)."""
    current = read_current_id(data_dir)
    if current is None:
        return None
    snapshot, _ = read_snapshot(data_dir / SNAPSHOTS / current)
    return snapshot
