"""Build one snapshot directory from the raw tables: read, score, write, validate.

The snapshot is written into a hidden staging directory, validated there with the servers'
own reader, and only then renamed to ``<parent>/<id>``: a failed build leaves nothing that
looks like a snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.inputs import RawData
from builder.release import Release
from builder.score import ScoredSnapshot, score_snapshot
from builder.staging import staging_area
from builder.write import write_snapshot
from loaders import Problem, read_snapshot


class BuildInvalid(Exception):
    """The built files break the data contract (a builder bug); ``problems`` says where."""

    def __init__(self, snapshot_id: str, problems: list[Problem]) -> None:
        listed = "; ".join(str(problem) for problem in problems[:5]) or "refused"
        super().__init__(f"built snapshot {snapshot_id} is invalid: {listed}")
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Built:
    """What a build produced: the directory and what the scoring found."""

    directory: Path
    snapshot: ScoredSnapshot

    @property
    def unreported(self) -> int:
        """How many scoring values are not from a reported value (imputed or missing)."""
        return sum(
            not entry.from_report
            for economy in self.snapshot.economies
            for entry in economy.entries
            if entry.indicator.dimension is not None
        )


def build_snapshot(raw: RawData, release: Release, parent: Path) -> Built:
    """Score ``raw`` for ``release`` and write the snapshot to ``parent/<id>``.

    Raises FileExistsError if ``parent/<id>`` exists, BuildInvalid if the written files
    do not pass ``loaders.reader.read_snapshot`` without a single problem.
    """
    target = parent / release.id
    if target.exists():
        raise FileExistsError(f"{target} already exists")
    scored = score_snapshot(raw, release.year)
    with staging_area(parent, release.id) as area:
        staged = area / release.id
        write_snapshot(scored, release, staged)
        snapshot, problems = read_snapshot(staged)
        if snapshot is None or problems:
            raise BuildInvalid(release.id, problems)
        staged.rename(target)
    return Built(target, scored)
