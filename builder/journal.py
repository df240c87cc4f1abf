"""The publisher's journal: what each publish did, and which months a rollback took back.

``<data-dir>/publish-log.jsonl`` gets one JSON line per publish that changes what the servers
see, written under the publish lock just before ``CURRENT`` flips (so no flip goes unrecorded):
when, which snapshot became current and which one it replaced, how it got in place, whether
the cache was warmed for it (``builder.warmup``: a warm-up that gave up does not stop a publish,
and this is where that is recorded), and for a rollback (a snapshot older than the current one made current) the
months it took out of service. A later publish or refresh of such a month is refused until
asked on purpose (``--undo-rollback``): a re-run of the month, the CronJob's retry or an
operator checking, used to flip ``CURRENT`` forward again and silently undo the rollback
(docs/OPERATIONS.md#the-monthly-refresh). The servers never read the file.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from loaders import snapshot_ids

log = logging.getLogger("readiness.builder")

JOURNAL = "publish-log.jsonl"


@dataclass(frozen=True, slots=True)
class Entry:
    """One publish: ``snapshot`` made current at ``at`` (UTC, ISO 8601) in place of
    ``previous``, put in place as ``placement``, the months a rollback took out of service
    (empty for a publish forward), and what became of the warm-up (None: none was asked for;
    ``builder.warmup.Warmed``)."""

    at: str
    snapshot: str
    previous: str | None
    placement: str
    rolled_back: tuple[str, ...] = ()
    warm: str | None = None

    def document(self) -> dict[str, object]:
        """The entry's JSON object (keys left out when empty)."""
        document: dict[str, object] = {"at": self.at, "snapshot": self.snapshot, "previous": self.previous,
                                       "placement": self.placement}
        if self.rolled_back:
            document["rolled_back"] = list(self.rolled_back)
        if self.warm is not None:
            document["warm"] = self.warm
        return document


def rolled_back_by(data_dir: Path, snapshot_id: str, previous: str | None) -> tuple[str, ...]:
    """The months a publish of ``snapshot_id`` in place of ``previous`` takes out of service:
    when it is older, every published month after it up to ``previous``; else none."""
    if previous is None or snapshot_id >= previous:
        return ()
    return tuple(other for other in snapshot_ids(data_dir) if snapshot_id < other <= previous)


def timestamp(moment: datetime.datetime) -> str:
    """``2026-12-07T10:00:00Z``."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def record(data_dir: Path, entry: Entry) -> None:
    """Append ``entry`` to the journal and flush it to disk. Raises OSError."""
    line = json.dumps(entry.document(), ensure_ascii=False) + "\n"
    descriptor = os.open(data_dir / JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def entries(data_dir: Path) -> list[Entry]:
    """Every readable entry, oldest first; none when there is no journal. A line that is not
    an entry (the torn last line of a publish killed while writing it) is skipped and logged."""
    try:
        lines = (data_dir / JOURNAL).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    found: list[Entry] = []
    for number, line in enumerate(lines, start=1):
        entry = _entry(line)
        if entry is None:
            log.warning("%s line %d is not a journal entry; skipped", data_dir / JOURNAL, number)
        else:
            found.append(entry)
    return found


def held(data_dir: Path) -> dict[str, Entry]:
    """The months a rollback took out of service and no publish made current since, each with
    the rollback's entry (none without a journal)."""
    found: dict[str, Entry] = {}
    for entry in entries(data_dir):
        found.pop(entry.snapshot, None)
        found.update(dict.fromkeys(entry.rolled_back, entry))
    return found


def _entry(line: str) -> Entry | None:
    try:
        document = json.loads(line)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    at, snapshot, previous = document.get("at"), document.get("snapshot"), document.get("previous")
    placement, rolled, warm = document.get("placement"), document.get("rolled_back", []), document.get("warm")
    if not (isinstance(at, str) and isinstance(snapshot, str) and isinstance(placement, str)
            and (previous is None or isinstance(previous, str)) and isinstance(rolled, list)
            and all(isinstance(month, str) for month in rolled) and (warm is None or isinstance(warm, str))):
        return None
    return Entry(at, snapshot, previous, placement, tuple(rolled), warm)
