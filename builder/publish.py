"""Publish a built snapshot into a data directory, safely.

A publish either completes or leaves CURRENT and the published snapshots as they were
(docs/DATA.md, docs/OPERATIONS.md):

1. Copy the snapshot into a hidden staging directory under ``snapshots/`` and validate the
   copy with the servers' own reader; any problem refuses the publish. Write the change
   report (``changes.json``, ``builder.changes``) against the snapshot CURRENT names into
   the copy: the servers' reader ignores the file, and it is not part of the content that
   makes two publishes "the same".
2. Put it in place with one rename (or, with ``Conflict.REPLACE``, one atomic exchange
   with the published copy of the same id).
3. Run the hook, if any: a check that may still refuse the snapshot. If it fails, step 2 is
   undone. Then the cache warm-up, best effort (``builder.warmup``): tried until its deadline,
   and when it gives up the publish goes on with a warning.
4. Only then record the publish in the journal (``builder.journal``: a rollback records the
   months it takes out of service) and flip ``CURRENT`` (temporary file, fsync,
   ``os.replace``), and announce it.

A month a rollback took out of service is refused (``RolledBack``, before anything is copied)
unless the publish is told to undo the rollback: publishing it again would flip ``CURRENT``
forward and silently undo what an operator did on purpose.

One publish at a time per data directory (a flock on ``.publish.lock``, released by the
kernel even when the process is killed); staging leftovers of a killed publish are removed
by the next one. Running the same publish twice is harmless: the second finds the same
bytes in place and ``CURRENT`` already naming them, and changes nothing.

Its steps (copy, warm, flip) are announced with their times through a ``Progress``; a file
system error names its step and file (``StepFailed``: which file, what the disk said, and
what state the data directory is left in).
"""

from __future__ import annotations

import ctypes
import datetime
import errno
import fcntl
import json
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

import redis
from redis.cluster import ClusterNode
from redis.sentinel import Sentinel

from builder.changes import CHANGES_FILE, compare
from builder.datadir import CURRENT, SNAPSHOTS
from builder.journal import JOURNAL, Entry, held, record, rolled_back_by, timestamp
from builder.progress import Progress
from builder.staging import remove_leftovers, staging_area
from builder.warmup import Warmed, WarmUp, warm_up
from builder.write import FORCED, MANIFEST
from config import RedisAddress, Topology, redact
from loaders import (
    SNAPSHOT_CHANNEL,
    SNAPSHOT_ID,
    Problem,
    Snapshot,
    read_current_id,
    read_snapshot,
)

log = logging.getLogger("readiness.builder")

Hook = Callable[[Path, str], None]
"""Called with (data directory, snapshot id) once the snapshot is in place, before CURRENT
flips. It fails by raising; the publish is then undone."""

Announce = Callable[[Path, str], None]
"""Called with (data directory, snapshot id) after a publish changed what servers see."""

LOCK = ".publish.lock"
_CURRENT_TEMP_PREFIX = ".CURRENT.tmp-"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class PublishError(Exception):
    """A publish that did not happen; the data directory is as it was."""


class SnapshotInvalid(PublishError):
    """The snapshot breaks the data contract; ``problems`` lists every file at fault."""

    def __init__(self, source: Path, problems: list[Problem]) -> None:
        listed = "; ".join(str(problem) for problem in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"refused: {source} is not a valid snapshot: {listed}{more}")
        self.problems = problems


class SnapshotConflict(PublishError):
    """Another snapshot with the same id, but different bytes, is already published."""


class PublishBusy(PublishError):
    """Another publish holds the data directory's lock."""


class HookFailed(PublishError):
    """The hook reported a failure; the snapshot was taken out again."""


class RolledBack(PublishError):
    """The snapshot is a month a rollback took out of service (builder.journal); publishing it
    would make it current again."""

    def __init__(self, snapshot_id: str, rollback: Entry) -> None:
        super().__init__(
            f"refused: {snapshot_id} was rolled back on {rollback.at} (CURRENT {rollback.previous} -> "
            f"{rollback.snapshot}, recorded in {JOURNAL}); publishing it again would make it current "
            "and undo that rollback. Nothing was changed. To make it current on purpose, run it with "
            "--undo-rollback (and --replace if its content changed since)"
        )
        self.rollback = rollback


class StepFailed(PublishError):
    """A file system error in one step of a publish (or a refresh): ``step`` and ``file`` say
    where, ``error`` what the system said, and the message what the data directory holds now.

    The file is the one the system's error names (the target of a copy or a rename), else the
    one the step was at."""

    def __init__(self, snapshot_id: str, step: str, file: Path | None, error: OSError, state: str) -> None:
        named = error.filename2 or error.filename
        where = Path(os.fsdecode(named)) if isinstance(named, (str, bytes)) else file
        said = error.strerror or str(error)
        name = errno.errorcode.get(error.errno) if error.errno is not None else None
        code = f" ({name})" if name else ""
        super().__init__(f"{snapshot_id}: the {step} step failed on {where or '?'}: {said}{code}; {state}")
        self.step = step
        self.file = where
        self.error = error


@dataclass(slots=True)
class At:
    """Where a step is: its name and the file it is writing (set as it goes)."""

    step: str
    file: Path | None = field(default=None)


@contextmanager
def failing(snapshot_id: str, step: str, state: str) -> Iterator[At]:
    """Turn an OSError of the block into a StepFailed naming ``step`` (or the step the block
    moved on to) and the file it was at; ``state`` says what the data directory holds then."""
    at = At(step)
    try:
        yield at
    except OSError as error:
        raise StepFailed(snapshot_id, at.step, at.file, error, state) from error


class Conflict(Enum):
    """What to do when the id is already published with different content."""

    REFUSE = "refuse"
    REPLACE = "replace"


class Rollback(Enum):
    """What to do when the snapshot is a month a rollback took out of service."""

    KEEP = "keep"
    """Refuse (RolledBack): the rollback stands."""
    UNDO = "undo"
    """Publish it: it becomes current again (``--undo-rollback``)."""


class Placement(Enum):
    """How the snapshot got into ``snapshots/<id>``."""

    NEW = "new"
    SAME = "same"
    REPLACED = "replaced"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a publish did: where the snapshot is, how it got there, what CURRENT was."""

    snapshot_id: str
    directory: Path
    placement: Placement
    previous: str | None
    """What CURRENT named before; equal to ``snapshot_id`` when it did not change."""
    rolled_back: tuple[str, ...] = ()
    """The months this publish took out of service: a rollback's (builder.journal)."""
    warmed: Warmed | None = None
    """What became of the warm-up; None when none ran."""

    @property
    def changed(self) -> bool:
        """Whether anything visible to the servers changed."""
        return self.placement is not Placement.SAME or self.previous != self.snapshot_id


def announce_current(data_dir: Path, snapshot_id: str) -> None:
    """Tell running servers that ``snapshot_id`` was published and is current.

    Servers also notice by polling CURRENT; with ``READINESS_REDIS_URL`` set, a message on
    the snapshot channel makes every replica swap at once. Called after CURRENT flipped, so
    a failure here can only delay the swap, never undo the publish.
    """
    log.info("published %s in %s: CURRENT names it", snapshot_id, data_dir)
    url = os.environ.get("READINESS_REDIS_URL", "").strip()
    if not url:
        return
    try:
        with _publisher(url) as client:
            listeners = client.publish(SNAPSHOT_CHANNEL, snapshot_id)
    except (redis.RedisError, redis.RedisClusterException, OSError, ValueError) as error:  # ValueError: a bad URL
        log.warning("could not announce %s (%s); servers will notice it when they poll", snapshot_id,
                    redact(str(error), url))  # no password of the URL
        return
    log.info("announced %s to %s listening servers", snapshot_id, listeners)


def _publisher(url: str) -> redis.Redis | redis.RedisCluster:
    """A client for one PUBLISH to the Redis ``url`` names (config/redis_address.py): one
    server, the primary Sentinel names (whose listeners, and its replicas', hear it), or any
    node of a cluster (a cluster forwards a PUBLISH to every node). Raises ValueError for a
    URL it cannot read."""
    address = RedisAddress.parse(url)
    if address.topology is Topology.CLUSTER:
        return redis.RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in address.nodes],  # type: ignore[no-untyped-call]
            username=address.username, password=address.password, ssl=address.tls,
            socket_timeout=2, socket_connect_timeout=2,
        )
    if address.topology is Topology.SENTINEL:
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            address.nodes, sentinel_kwargs={"socket_timeout": 2, "socket_connect_timeout": 2, "ssl": address.tls})
        primary: redis.Redis = sentinel.master_for(  # type: ignore[no-untyped-call]
            address.service, db=address.db, username=address.username, password=address.password,
            ssl=address.tls, socket_timeout=2, socket_connect_timeout=2)
        return primary
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def shell_hook(command: str) -> Hook:
    """A hook running ``command`` in a shell, with READINESS_DATA_DIR and
    READINESS_SNAPSHOT_ID set; a non-zero exit status raises HookFailed."""

    def run(data_dir: Path, snapshot_id: str) -> None:
        environment = {
            **os.environ,
            "READINESS_DATA_DIR": str(data_dir.resolve()),
            "READINESS_SNAPSHOT_ID": snapshot_id,
        }
        status = subprocess.run(command, shell=True, env=environment, check=False).returncode
        if status != 0:
            raise HookFailed(f"hook {command!r} exited with status {status}; CURRENT not changed")

    return run


def publish(
    source: Path,
    data_dir: Path,
    *,
    hook: Hook | None = None,
    warm: WarmUp | None = None,
    conflict: Conflict = Conflict.REFUSE,
    rollback: Rollback = Rollback.KEEP,
    announce: Announce = announce_current,
    progress: Progress | None = None,
    clock: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.UTC),
) -> Outcome:
    """Publish the snapshot directory ``source`` into ``data_dir`` and make it current.

    Raises SnapshotInvalid (any problem at all), SnapshotConflict (same id, other bytes,
    and ``conflict`` is REFUSE), RolledBack (a month a rollback took out of service, and
    ``rollback`` is KEEP), PublishBusy, HookFailed, StepFailed (a file system error,
    naming the step and the file) or PublishError; in every case CURRENT and the snapshots
    published before are as they were. Exceptions from a Python ``hook`` propagate after
    the same undo. ``warm`` never fails the publish: when it gives up, the outcome and the
    journal say so. Only a failure to write the journal or CURRENT itself leaves the new
    snapshot in place, not current: publishing it again finishes. ``progress`` hears of the
    steps: copy (with validation, the change report and the rename into place), hook, warm
    and flip (the journal's entry, dated by ``clock``, and CURRENT).
    """
    said = progress if progress is not None else Progress.quiet()
    snapshot_id = source.name
    if not SNAPSHOT_ID.match(snapshot_id) or not source.is_dir():
        raise SnapshotInvalid(source, [Problem(".", "not a snapshot directory named YYYY-MM")])
    snapshots = data_dir / SNAPSHOTS
    with ExitStack() as held:  # the lock, then the staging area: both until the flip is done
        with failing(snapshot_id, "lock", "nothing was published") as at:
            at.file = snapshots
            snapshots.mkdir(parents=True, exist_ok=True)
            at.file = data_dir / LOCK
            held.enter_context(_exclusive(data_dir))
        remove_leftovers(data_dir, SNAPSHOTS, _CURRENT_TEMP_PREFIX, "publish")
        previous = read_current_id(data_dir)
        if rollback is Rollback.KEEP and (previous is None or snapshot_id > previous):  # a rollback never is
            refuse_if_rolled_back(data_dir, snapshot_id)
        kept = f"CURRENT unchanged ({previous or 'none'}), the published snapshots as they were"
        target = snapshots / snapshot_id
        with failing(snapshot_id, "copy", kept) as at:
            at.file = snapshots
            staged = held.enter_context(staging_area(snapshots, snapshot_id)) / snapshot_id
        with said.step("copy", f"{source} to {target}") as step, failing(snapshot_id, "copy", kept) as at:
            _copy_tree(source, staged, at)
            at.file = None
            snapshot, problems = read_snapshot(staged)
            if snapshot is None or problems:
                raise SnapshotInvalid(source, problems)
            at.step, at.file = "report", staged / CHANGES_FILE
            report = compare(_readable(snapshots, previous), snapshot)
            (staged / CHANGES_FILE).write_bytes(report.encode())
            _fsync(staged / CHANGES_FILE)
            at.step, at.file = "place", target
            placement = _place(staged, target, conflict)
            step.result = _placed(placement, target)
        outcome = Outcome(snapshot_id, target, placement, previous, rolled_back_by(data_dir, snapshot_id, previous))
        if not outcome.changed:
            return outcome
        undone = {
            Placement.NEW: f"{snapshot_id} taken out again; {kept}",
            Placement.SAME: kept,
            Placement.REPLACED: f"the content {snapshot_id} had put back; {kept}",
        }[placement]
        if hook is not None:
            with said.step("hook", "the hook"), failing(snapshot_id, "hook", undone):
                _run_hook(hook, data_dir, outcome, staged)
        if warm is not None:
            outcome = replace(outcome, warmed=_warmed(warm, data_dir, snapshot_id, said))
        entry = Entry(timestamp(clock()), snapshot_id, previous, placement.value, outcome.rolled_back,
                      str(outcome.warmed) if outcome.warmed is not None else None)
        if previous == snapshot_id:  # new content under the current id: nothing to flip
            with failing(snapshot_id, "record", f"{snapshot_id}'s new content is in place and current; "
                                                f"{JOURNAL} does not record it") as at:
                at.file = data_dir / JOURNAL
                record(data_dir, entry)
        else:
            unfinished = (f"{snapshot_id} is in place in {target} but not current (CURRENT still "
                          f"{previous or 'none'}): run the same publish again to finish")
            with said.step("flip", f"CURRENT {previous or '(none)'} -> {snapshot_id}"), \
                    failing(snapshot_id, "record", unfinished) as at:
                at.file = data_dir / JOURNAL
                record(data_dir, entry)  # first: no flip goes unrecorded, a rollback least of all
                at.step, at.file = "flip", data_dir / CURRENT
                _write_current(data_dir, snapshot_id)
    announce(data_dir, snapshot_id)
    return outcome


def _warmed(warm: WarmUp, data_dir: Path, snapshot_id: str, said: Progress) -> Warmed:
    """The warm-up's step: its tries, its outcome, and a warning when it gave up."""
    with said.step("warm", f"best effort, for up to {warm.deadline:g} s") as step:
        warmed = warm_up(warm, data_dir, snapshot_id, said)
        step.result = str(warmed)
    if warmed.failure is not None:
        said.say("warm", f"warning: publishing {snapshot_id} with a cold cache ({warmed}); the servers "
                         "re-warm Redis on their own once it answers")
    return warmed


def refuse_if_rolled_back(data_dir: Path, snapshot_id: str) -> None:
    """Raise RolledBack when a rollback took ``snapshot_id`` out of service and no publish made
    it current since (builder.journal)."""
    rollback = held(data_dir).get(snapshot_id)
    if rollback is not None:
        raise RolledBack(snapshot_id, rollback)


def _placed(placement: Placement, target: Path) -> str:
    return {
        Placement.NEW: f"in place as {target}",
        Placement.SAME: f"the same content is already in {target}",
        Placement.REPLACED: f"exchanged with the content that was in {target}",
    }[placement]


@contextmanager
def _exclusive(data_dir: Path) -> Iterator[None]:
    with open(data_dir / LOCK, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise PublishBusy(f"another publish is running in {data_dir}") from None
        yield



def _copy_tree(source: Path, target: Path, at: At) -> None:
    """Copy regular files and directories, each file flushed to disk before the rename;
    ``at.file`` follows the file being written."""
    at.file = target
    target.mkdir()
    for path in sorted(source.rglob("*")):
        destination = target / path.relative_to(source)
        if path.is_symlink():
            raise SnapshotInvalid(source, [Problem(str(path.relative_to(source)), "is a symbolic link")])
        at.file = destination
        if path.is_dir():
            destination.mkdir()
            continue
        shutil.copyfile(path, destination)
        _fsync(destination)
    for directory in (target, *sorted(p for p in target.rglob("*") if p.is_dir())):
        at.file = directory
        _fsync(directory)


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _readable(snapshots: Path, snapshot_id: str | None) -> Snapshot | None:
    """The published snapshot ``snapshot_id`` to compare with, or None (none, or unreadable)."""
    if snapshot_id is None:
        return None
    snapshot, problems = read_snapshot(snapshots / snapshot_id)
    if snapshot is None:
        log.warning("current snapshot %s is unreadable (%s); the change report compares with "
                    "nothing", snapshot_id, problems[-1] if problems else "?")
    return snapshot


def same_content(first: Path, second: Path) -> bool:
    """Same snapshot files, byte for byte. Left out: the change report (derived) and the
    manifest's record of a forced refresh (how it was published, not what)."""
    def files(root: Path) -> list[Path]:
        return sorted(p.relative_to(root) for p in root.rglob("*")
                      if p.is_file() and p.relative_to(root) != Path(CHANGES_FILE))

    names = files(first)
    if names != files(second):
        return False
    for name in names:
        mine, theirs = (first / name).read_bytes(), (second / name).read_bytes()
        if mine != theirs and (name != Path(MANIFEST) or _unforced(mine) != _unforced(theirs)):
            return False
    return True


def _unforced(raw: bytes) -> object:
    """A manifest without its record of a forced refresh (its bytes if it is not JSON)."""
    try:
        manifest = json.loads(raw)
    except ValueError:
        return raw
    if isinstance(manifest, dict):
        manifest.pop(FORCED, None)
    return manifest


def _place(staged: Path, target: Path, conflict: Conflict) -> Placement:
    if not target.exists():
        os.rename(staged, target)
        _fsync(target.parent)
        return Placement.NEW
    if same_content(staged, target):
        return Placement.SAME
    if conflict is Conflict.REFUSE:
        raise SnapshotConflict(
            f"refused: {target} is already published with different content "
            "(use --replace to swap it)"
        )
    _exchange(staged, target)
    return Placement.REPLACED


def _run_hook(hook: Hook, data_dir: Path, outcome: Outcome, staged: Path) -> None:
    """Run the hook; on any failure take the snapshot out again (the old one back in)."""
    completed = False
    try:
        hook(data_dir, outcome.snapshot_id)
        completed = True
    finally:
        if not completed and outcome.placement is Placement.NEW:
            os.rename(outcome.directory, staged)
        elif not completed and outcome.placement is Placement.REPLACED:
            _exchange(staged, outcome.directory)


def _write_current(data_dir: Path, snapshot_id: str) -> None:
    """Replace CURRENT atomically: a reader sees the old id or the new one, never a mix."""
    descriptor, name = tempfile.mkstemp(prefix=_CURRENT_TEMP_PREFIX, dir=data_dir)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(f"{snapshot_id}\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, data_dir / CURRENT)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    _fsync(data_dir)


def _exchange(first: Path, second: Path) -> None:
    """Swap two directory entries in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``).

    Raises PublishError where the system cannot do it; nothing is changed then.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        raise PublishError("replacing needs an atomic exchange (Linux renameat2), not available here")
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if result != 0:
        error = ctypes.get_errno()
        raise PublishError(f"cannot exchange {first} and {second}: {os.strerror(error)}")
