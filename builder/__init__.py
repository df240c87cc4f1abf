"""The index builder: raw indicator tables to snapshot directories, and publishing them.

``read_raw`` reads the two CSV tables, ``build_snapshot`` scores them with the method of
``builder.method`` (explained in docs/METHOD.md) and writes a validated snapshot directory,
``publish`` puts one into a data directory, writes its change report (``compare``) and
flips CURRENT (docs/PUBLISHING.md). The refresh from the World Bank lives in
``builder.fetch``, ``builder.wdi`` and ``builder.refresh``, imported on their own so that
importing the builder does not load an HTTP client.
"""

from builder.build import BuildInvalid, Built, build_snapshot
from builder.changes import ChangeReport, compare
from builder.datadir import Listed, list_snapshots
from builder.inputs import Economy, InputError, Observation, RawData, read_raw
from builder.publish import (
    Announce,
    Conflict,
    Hook,
    HookFailed,
    Outcome,
    Placement,
    PublishBusy,
    PublishError,
    SnapshotConflict,
    SnapshotInvalid,
    StepFailed,
    announce_current,
    publish,
    shell_hook,
)
from builder.release import Release, ReleaseError
from builder.score import Entry, ScoredEconomy, ScoredSnapshot, score_snapshot

__all__ = [
    "Announce",
    "BuildInvalid",
    "Built",
    "ChangeReport",
    "Conflict",
    "Economy",
    "Entry",
    "Hook",
    "HookFailed",
    "InputError",
    "Listed",
    "Observation",
    "Outcome",
    "Placement",
    "PublishBusy",
    "PublishError",
    "RawData",
    "Release",
    "ReleaseError",
    "ScoredEconomy",
    "ScoredSnapshot",
    "SnapshotConflict",
    "SnapshotInvalid",
    "StepFailed",
    "announce_current",
    "build_snapshot",
    "compare",
    "list_snapshots",
    "publish",
    "read_raw",
    "score_snapshot",
    "shell_hook",
]
