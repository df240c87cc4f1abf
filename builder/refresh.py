"""The monthly refresh as one call: fetch, build, validate, check, publish with the warm-up.

``refresh`` fetches the raw tables of the month from the World Bank API into
``<work>/raw/<id>/``, builds the snapshot in a fresh directory under ``<work>/build/``
(validated there by the servers' reader), and then:

- if a rollback took the month out of service (``builder.journal``), it refuses before fetching
  anything (``RolledBack``), unless the plan says undo the rollback;
- if the month is already published with the same content (a re-run: the CronJob's retry, an
  operator checking), it changes nothing, or, told to undo a rollback, makes it current again;
- if it is published with other content, it refuses (``SnapshotConflict``), unless the plan
  says replace;
- otherwise it compares the snapshot with the one CURRENT names, runs the sanity checks of
  ``builder.sanity`` and only then publishes it (``builder.publish``: copy, validate again,
  change report, hook, warm-up, flip CURRENT). A finding of a check the plan accepts does not
  refuse it: the manifest records, by check, what was accepted and the operator's reason.

Any failure before the flip leaves the data directory as it was
(docs/PUBLISHING.md#the-monthly-refresh-one-command). Each step is announced with its time
through a ``Progress`` (docs/PUBLISHING.md#progress-and-timings).
"""

from __future__ import annotations

import datetime
import json
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from builder.build import Built, build_snapshot
from builder.changes import ChangeReport, compare
from builder.datadir import SNAPSHOTS
from builder.fetch import Fetched, announced, fetch_raw, fetched_summary, requests_of
from builder.inputs import read_raw
from builder.progress import Progress
from builder.publish import (
    Conflict,
    Hook,
    Outcome,
    Placement,
    PublishError,
    Rollback,
    SnapshotConflict,
    failing,
    publish,
    refuse_if_rolled_back,
    same_content,
)
from builder.rawtables import write_tables
from builder.release import Release
from builder.sanity import Checked, Finding, Limits, check
from builder.waits import Wait
from builder.warmup import WarmUp
from builder.worldbank import SourceSettings
from builder.write import MANIFEST, mark_forced
from loaders import Snapshot, read_current_id, read_snapshot


class RefreshRefused(PublishError):
    """The new snapshot is valid but fails sanity checks it was not told to accept; ``findings``
    lists each (the accepted ones left out)."""

    def __init__(self, snapshot_id: str, findings: list[Finding]) -> None:
        listed = "\n  ".join(str(finding) for finding in findings)
        checks = sorted({finding.check for finding in findings})
        accept = " ".join(f"--accept {name}" for name in checks)
        super().__init__(f"refused to publish {snapshot_id}:\n  {listed}\n"
                         f"(check the source; if what moved is real, accept the check{'s' * (len(checks) > 1)} "
                         f"on purpose: {accept} --reason TEXT; --force accepts every check)")
        self.findings = findings


@dataclass(frozen=True, slots=True)
class Accepted:
    """Sanity checks an operator accepts for one month (names of ``builder.sanity.CHECKS``), and
    why: their findings do not refuse it, and the manifest records them with the reason."""

    checks: frozenset[str]
    reason: str


@dataclass(frozen=True, slots=True)
class Plan:
    """One refresh: which month, where the source is, where to work and publish, the FCV
    list, the hook (a check that may refuse it), the warm-up (best effort), the sanity
    limits, the checks accepted despite them, what to do when the month is published with
    other content, and when a rollback took it out of service."""

    release: Release
    source: SourceSettings
    work: Path
    data_dir: Path
    fcv: Mapping[str, str]
    hook: Hook | None = None
    warm: WarmUp | None = None
    limits: Limits = Limits()
    accepted: Accepted | None = None
    conflict: Conflict = Conflict.REFUSE
    rollback: Rollback = Rollback.KEEP


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What a refresh did at each step."""

    fetched: Fetched
    raw: Path
    built: Built
    """The build; its directory is removed once published (the data directory has the copy)."""
    report: ChangeReport | None
    """Against the current snapshot; None when the month was already published as built."""
    overridden: tuple[Finding, ...]
    """The findings of the accepted checks, published over (empty normally)."""
    outcome: Outcome
    checked: Checked | None = None

    @property
    def already(self) -> bool:
        """Whether the month was published before with the same content."""
        return self.report is None


def publication_date(data_dir: Path, snapshot_id: str, today: datetime.date) -> str:
    """The date a refresh of ``snapshot_id`` publishes under: the one it was published with if
    it is (so that a re-run builds the same bytes), else today in that month, else its 1st."""
    try:
        manifest = json.loads((data_dir / SNAPSHOTS / snapshot_id / MANIFEST).read_bytes())
        published = manifest["published"]
    except (OSError, ValueError, KeyError, TypeError):
        published = None
    if isinstance(published, str) and published.startswith(f"{snapshot_id}-"):
        return published
    return today.isoformat() if today.strftime("%Y-%m") == snapshot_id else f"{snapshot_id}-01"


def inherited_provenance(data_dir: Path, snapshot_id: str) -> tuple[str | None, str | None]:
    """The publisher and licence a refresh of ``snapshot_id`` names when not told: those of its
    own manifest if it is published, else of the snapshot CURRENT names, so that the monthly job
    carries them forward once a release has named them (docs/PUBLISHING.md#the-monthly-refresh-one-command).

    A synthetic manifest (the bundled sample's, ``"synthetic": true``) is passed over: its
    publisher names the sample ("... (synthetic sample)"), and a month of real values inherited
    it. (None, None) when no such manifest can be read or names them."""
    for candidate in (snapshot_id, read_current_id(data_dir)):
        if candidate is None:
            continue
        try:
            manifest = json.loads((data_dir / SNAPSHOTS / candidate / MANIFEST).read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("synthetic") is not True:
            publisher, license_ = manifest.get("publisher"), manifest.get("license")
            return (publisher if isinstance(publisher, str) else None,
                    license_ if isinstance(license_, str) else None)
    return None, None


def refresh(
    plan: Plan, now: datetime.datetime, *, progress: Progress | None = None, wait: Wait | None = None
) -> Refreshed:
    """Run the whole refresh for ``plan``; ``now`` is the fetch's recorded date.

    Raises RolledBack (a rollback took the month out of service, and the plan keeps it so:
    before anything is fetched), SourceError (the source), InputError (the fetched tables),
    BuildInvalid, SnapshotConflict (published with other content, without replace),
    RefreshRefused (a sanity check the plan does not accept), StepFailed (a file system error, naming the step and
    file), or any error of ``publish``; in every case CURRENT is as it was. ``progress``
    hears of every step, series, retry and long wait; ``wait`` spends the waits between retries
    (default: waits that the fetch's first failure cuts short).
    """
    said = progress if progress is not None else Progress.quiet()
    release = plan.release
    nothing = "nothing was published"
    current = read_current_id(plan.data_dir)
    if plan.rollback is Rollback.KEEP and (current is None or release.id > current):
        refuse_if_rolled_back(plan.data_dir, release.id)  # before a fetch that would only be refused
    asked = requests_of(release.year)
    with said.step("fetch", announced(plan.source, len(asked))) as step:
        with said.counting(len(asked), "series"):
            fetched = fetch_raw(plan.source, release.year, plan.fcv, now, heard=said, wait=wait)
        with failing(release.id, "fetch", nothing) as at:
            at.file = plan.work / "raw" / release.id
            raw = write_tables(fetched.tables, at.file)
        step.result = f"{raw}: {fetched_summary(fetched)}"
    with failing(release.id, "build", nothing) as at:
        at.file = builds = plan.work / "build"
        builds.mkdir(parents=True, exist_ok=True)
        parent = Path(tempfile.mkdtemp(prefix=f"{release.id}-", dir=builds))
    try:
        with said.step("build", f"{release.id}, published {release.published}") as step, \
                failing(release.id, "build", nothing) as at:
            at.file = parent
            built = build_snapshot(read_raw(raw), release, parent)
            new, _ = read_snapshot(built.directory)
            if new is None:  # build_snapshot validated it; unreachable unless the disk changed
                raise PublishError(f"{built.directory} cannot be read back")
            step.result = built_summary(built)
        published = plan.data_dir / SNAPSHOTS / release.id
        if published.is_dir() and same_content(built.directory, published):
            said.say("check", f"{release.id} is already published with this content")
            outcome = _again(published, plan, said)
            return Refreshed(fetched, raw, built, None, (), outcome)
        current = read_current_id(plan.data_dir)
        with said.step("check", f"against {current}" if current else "a first snapshot") as step:
            if published.is_dir() and plan.conflict is Conflict.REFUSE:
                raise _conflict(published, new)
            previous = _current(plan.data_dir)
            report = compare(previous, new)
            checked = check(new, previous, report, plan.limits)
            accepted = plan.accepted
            allowed = accepted.checks if accepted is not None else frozenset()
            refused = [finding for finding in checked.findings if finding.check not in allowed]
            if refused:
                raise RefreshRefused(release.id, refused)
            if accepted is not None and checked.findings:
                with failing(release.id, "check", nothing) as at:
                    at.file = built.directory / MANIFEST
                    mark_forced(built.directory, accepted.reason, _by_check(checked.findings))
            step.result = checked.summary() + (", accepted" if checked.findings else "")
        outcome = publish(built.directory, plan.data_dir, hook=plan.hook, warm=plan.warm, conflict=plan.conflict,
                          rollback=plan.rollback, progress=said)
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    return Refreshed(fetched, raw, built, report, tuple(checked.findings), outcome, checked)


def built_summary(built: Built) -> str:
    """``<N> economies (<m> microstates, <r> ranked), <i> of <v> scoring values imputed or missing``."""
    economies = built.snapshot.economies
    microstates = sum(economy.microstate for economy in economies)
    ranked = sum(economy.global_rank is not None for economy in economies)
    values = sum(
        entry.indicator.dimension is not None for economy in economies for entry in economy.entries
    )
    return (f"{len(economies)} economies ({microstates} microstates, {ranked} ranked), "
            f"{built.unreported} of {values} scoring values imputed or missing")


def _by_check(findings: list[Finding]) -> dict[str, list[str]]:
    """Each check's findings, checks in the order they were found."""
    grouped: dict[str, list[str]] = {}
    for finding in findings:
        grouped.setdefault(finding.check, []).append(finding.text)
    return grouped


def _again(published: Path, plan: Plan, said: Progress) -> Outcome:
    """The month is published with the built content: nothing to do if it is current, else
    publish the copy in place (which only runs the hook and flips CURRENT back to it)."""
    current = read_current_id(plan.data_dir)
    if current == published.name:
        return Outcome(published.name, published, Placement.SAME, current)
    return publish(published, plan.data_dir, hook=plan.hook, warm=plan.warm, rollback=plan.rollback, progress=said)


def _conflict(published: Path, new: Snapshot) -> SnapshotConflict:
    """The refusal of other content under a published id, saying what the source changed."""
    old, _ = read_snapshot(published)
    changed = compare(old, new).document["summary"] if old is not None else "the published copy is unreadable"
    return SnapshotConflict(f"refused: {published} is already published with different content "
                            f"({changed}) (use --replace to swap it)")


def _current(data_dir: Path) -> Snapshot | None:
    """The snapshot to compare with: the current one, as publish will (None if none)."""
    current = read_current_id(data_dir)
    if current is None:
        return None
    snapshot, _ = read_snapshot(data_dir / SNAPSHOTS / current)
    return snapshot
