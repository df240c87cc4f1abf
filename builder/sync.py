"""Copy a published data directory (CURRENT plus snapshots/<id>/) from a source into a local one.

The pods of the snapshot-sync variant (k8s/components/snapshot-sync, docs/OPERATIONS.md) keep
their snapshots in a pod-local emptyDir instead of a shared volume: an init container fills it
before the API starts, and a sidecar keeps it current. The source is a directory (a data image,
a mounted volume) or the http(s):// URL of one (a web server or an object store's bucket).

The order keeps the live-swap contract (docs/PUBLISHING.md): each snapshot is assembled in a
hidden staging directory, every country file checked against its manifest's checksum, and
renamed into place whole; CURRENT is replaced last, atomically (temporary file and rename). A
copy that is interrupted or does not match its manifest never becomes current, and a server
polling CURRENT only ever sees a complete snapshot. A snapshot whose manifest is unchanged is
not copied again. One puller writes a data directory, and nothing else does (in a pod: the
init container, then the sidecar): a pull removes the staging leftovers it finds.

    python -m builder.sync pull SOURCE --data-dir DIR [--every SECONDS --alive FILE]
    python -m builder.sync index --data-dir DIR

An HTTP source cannot be listed: ``index`` writes the file ``INDEX`` (one snapshot id a line)
that tells ``pull`` which snapshots, archives included, the source holds. Without it only the
snapshot CURRENT names is copied. Exit status 0 on success, 1 when the copy failed (the
message says why; the local directory is as it was), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import logging
import os
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, Protocol

import orjson

from builder.datadir import CURRENT, SNAPSHOTS
from builder.staging import remove_leftovers, staging_area
from config import redact
from loaders import CHANGES_FILE, INDICATORS_FILE, SNAPSHOT_ID, read_current_id, snapshot_ids

log = logging.getLogger("readiness.sync")

INDEX = "INDEX"
"""The file listing a source's snapshot ids, for sources that cannot be listed (HTTP)."""

MAX_FILE_BYTES = 16 * 2**20
"""Largest file accepted from a source: a country file is a few kB, a manifest tens of kB."""

_CODE = re.compile(r"^[A-Z]{3}$")
_CHECKSUM = re.compile(r"^sha256:([0-9a-f]{64})$")
_TEMP_FILE_PREFIX = ".sync.tmp-"
_OLD_PREFIX = ".old-"


_SIDE_FILES = (CHANGES_FILE, INDICATORS_FILE)
"""Files of a snapshot directory that its manifest does not list (docs/DATA.md): the change
report and the indicator catalogue. The service reads both, and checks what it reads."""


class SyncError(Exception):
    """The source could not be read, or what it holds is not a complete, verified snapshot."""


class Source(Protocol):
    """Where published snapshots are read from."""

    def read(self, path: str) -> bytes | None:
        """The bytes of ``path`` (relative, ``/``-separated), or None when it does not exist.

        Raises SyncError when the source cannot be read.
        """

    def listing(self) -> tuple[str, ...] | None:
        """The snapshot ids the source holds, or None when it cannot tell."""


@dataclass(frozen=True, slots=True)
class DirectorySource:
    """A data directory on a file system: a data image's, a mounted volume's."""

    root: Path

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it is absent."""
        try:
            with open(self.root / path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise SyncError(f"cannot read {self.root / path}: {error}") from error
        return _bounded(data, str(self.root / path))

    def listing(self) -> tuple[str, ...] | None:
        """The ``snapshots/<id>`` directories present."""
        return snapshot_ids(self.root)


@dataclass(frozen=True, slots=True)
class HttpSource:
    """A data directory served over HTTP(S): a web server, or an object store's bucket that
    the cluster may read without credentials (docs/OPERATIONS.md)."""

    base_url: str
    timeout_seconds: float = 30.0

    def read(self, path: str) -> bytes | None:
        """The body of ``GET <base_url>/<path>``, or None for a 404 (403: S3 says that for a
        missing key when listing is not allowed)."""
        url = f"{self.base_url.rstrip('/')}/{path}"
        try:
            with urllib.request.urlopen(url, timeout=self.timeout_seconds) as response:
                data: bytes = response.read(MAX_FILE_BYTES + 1)
                promised = response.headers.get("Content-Length")
        except urllib.error.HTTPError as error:
            if error.code in (403, 404):
                return None
            raise SyncError(redact(f"GET {url}: HTTP {error.code}", url)) from error
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            # HTTPException: a response cut short (IncompleteRead) or garbled. Not chained: a
            # traceback would show the URL's password (http.client quotes it in InvalidURL).
            raise SyncError(redact(f"GET {url}: {error!r}", url)) from None
        if promised is not None and promised.isdigit() and int(promised) != len(data):
            # A short read returns what came: CURRENT, INDEX and manifests have no checksum.
            if len(data) <= MAX_FILE_BYTES:
                raise SyncError(redact(f"GET {url}: cut short ({len(data)} of {promised} bytes)", url))
        return _bounded(data, redact(url, url))

    def listing(self) -> tuple[str, ...] | None:
        """The ids the source's INDEX file lists, or None without one."""
        data = self.read(INDEX)
        if data is None:
            return None
        ids = data.decode("utf-8", "replace").split()
        bad = [name for name in ids if not SNAPSHOT_ID.match(name)]
        if bad:
            raise SyncError(f"{INDEX} lists {bad[0]!r}, not a snapshot id (YYYY-MM)")
        return tuple(sorted(set(ids)))


@dataclass(frozen=True, slots=True)
class Pulled:
    """What a pull did: the snapshots it copied, and CURRENT before and after."""

    copied: tuple[str, ...]
    previous: str | None
    current: str

    @property
    def changed(self) -> bool:
        """Whether anything a server reads changed."""
        return bool(self.copied) or self.previous != self.current


def source_for(location: str) -> Source:
    """The Source a command-line location names: an http(s):// URL, else a directory."""
    if re.match(r"^https?://", location):
        return HttpSource(location)
    return DirectorySource(Path(location))


def pull(source: Source, data_dir: Path) -> Pulled:
    """Copy every snapshot of ``source`` that ``data_dir`` lacks or holds with another manifest,
    then make CURRENT name what the source's CURRENT names.

    Raises SyncError when the source has no usable CURRENT or a snapshot cannot be copied whole
    and verified. CURRENT is then as it was; the snapshots copied before the failure stay, each
    complete, and the next pull does not copy them again.
    """
    current = _current_of(source)
    listed = source.listing()
    if listed is None:
        log.warning("the source lists no snapshots (no %s): copying only %s", INDEX, current)
    wanted = sorted({*(listed or ()), current})
    snapshots = data_dir / SNAPSHOTS
    snapshots.mkdir(parents=True, exist_ok=True)
    remove_leftovers(data_dir, SNAPSHOTS, _TEMP_FILE_PREFIX, "copy")
    copied = tuple(
        snapshot_id for snapshot_id in wanted if _pull_snapshot(source, snapshots, snapshot_id)
    )
    previous = read_current_id(data_dir)
    if previous != current:
        _write_current(data_dir, current)
    return Pulled(copied, previous, current)


def write_index(data_dir: Path) -> tuple[str, ...]:
    """Write ``data_dir/INDEX`` listing its snapshots (atomically); return the ids."""
    ids = snapshot_ids(data_dir)
    _replace(data_dir, INDEX, "".join(f"{snapshot_id}\n" for snapshot_id in ids))
    return ids


def _current_of(source: Source) -> str:
    data = source.read(CURRENT)
    text = (data or b"").decode("utf-8", "replace").strip()
    if not SNAPSHOT_ID.match(text):
        raise SyncError(f"the source has no usable {CURRENT} (found {text[:20]!r})")
    return text


def _pull_snapshot(source: Source, snapshots: Path, snapshot_id: str) -> bool:
    """Bring ``snapshots/<id>`` in line with the source; return whether anything was copied."""
    manifest = source.read(f"{SNAPSHOTS}/{snapshot_id}/manifest.json")
    if manifest is None:
        raise SyncError(f"the source has no {SNAPSHOTS}/{snapshot_id}/manifest.json")
    target = snapshots / snapshot_id
    try:
        if (target / "manifest.json").read_bytes() == manifest:
            return False  # the manifest names every file's checksum: same manifest, same files
    except OSError:
        pass
    checksums = _checksums(snapshot_id, manifest)
    with staging_area(snapshots, snapshot_id) as area:
        staged = area / snapshot_id
        (staged / "countries").mkdir(parents=True)
        for code, digest in checksums.items():
            path = f"countries/{code}.json"
            data = source.read(f"{SNAPSHOTS}/{snapshot_id}/{path}")
            if data is None:
                raise SyncError(f"{snapshot_id}/{path} is missing from the source")
            if hashlib.sha256(data).hexdigest() != digest:
                raise SyncError(f"{snapshot_id}/{path} does not match its manifest's checksum")
            (staged / path).write_bytes(data)
        for name in _SIDE_FILES:  # not in the manifest: copied when the source has them
            side = source.read(f"{SNAPSHOTS}/{snapshot_id}/{name}")
            if side is not None:
                (staged / name).write_bytes(side)
        (staged / "manifest.json").write_bytes(manifest)
        _place(staged, target, area)
    log.info("copied snapshot %s (%d countries)", snapshot_id, len(checksums))
    return True


def _checksums(snapshot_id: str, manifest: bytes) -> dict[str, str]:
    """The manifest's country codes with their sha256 digests. Raises SyncError unless the
    manifest is this snapshot's and names a well-formed checksum for each country."""
    try:
        parsed = orjson.loads(manifest)
        countries, checksums = parsed["countries"], parsed["checksums"]
        if parsed["id"] != snapshot_id or not isinstance(countries, list) or not countries:
            raise ValueError("not this snapshot's manifest, or no countries")
        found: dict[str, str] = {}
        for code in countries:
            if not isinstance(code, str) or not _CODE.match(code):
                raise ValueError(f"bad country code: {code!r}")
            match = _CHECKSUM.match(str(checksums[code]))
            if not match:
                raise ValueError(f"bad checksum for {code}")
            found[code] = match[1]
        return found
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise SyncError(f"{snapshot_id}/manifest.json is not usable: {error}") from error


def _place(staged: Path, target: Path, area: Path) -> None:
    """Rename the verified copy into place; an older copy with the same id is moved into the
    staging area first (removed with it), so ``target`` is missing only between two renames."""
    if target.exists():
        os.rename(target, area / f"{_OLD_PREFIX}{target.name}")
    os.rename(staged, target)



def _write_current(data_dir: Path, snapshot_id: str) -> None:
    """Replace CURRENT atomically: a reader sees the old id or the new one, never a mix."""
    _replace(data_dir, CURRENT, f"{snapshot_id}\n")


def _replace(directory: Path, name: str, text: str) -> None:
    # No fsync: the copy lives in a pod's emptyDir, which a node crash takes with the pod.
    descriptor, temporary = tempfile.mkstemp(prefix=_TEMP_FILE_PREFIX, dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, directory / name)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _bounded(data: bytes, where: str) -> bytes:
    if len(data) > MAX_FILE_BYTES:
        raise SyncError(f"{where} is larger than {MAX_FILE_BYTES} bytes")
    return data


def _report(outcome: Pulled) -> str:
    copied = ", ".join(outcome.copied) or "nothing"
    if outcome.previous == outcome.current:
        return f"sync: copied {copied}; CURRENT: {outcome.current}"
    return f"sync: copied {copied}; CURRENT: {outcome.previous or '(none)'} -> {outcome.current}"


def _pull_forever(source: Source, data_dir: Path, every: float, alive: Path | None) -> NoReturn:
    """Pull every ``every`` seconds until killed. A failed pull is logged and the local copy
    kept; ``alive`` is touched after each attempt, for a liveness probe that the source's
    health must not decide."""
    while True:
        try:
            outcome = pull(source, data_dir)
            if outcome.changed:
                print(_report(outcome), flush=True)
        except (SyncError, OSError) as error:
            print(f"sync: failed, keeping what is here: {error}", file=sys.stderr, flush=True)
        if alive is not None:
            alive.touch()
        time.sleep(every)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m builder.sync", description=(__doc__ or "").split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    pull_command = commands.add_parser("pull", help="copy the source's snapshots, CURRENT last")
    pull_command.add_argument("source", help="a data directory, or the http(s):// URL of one")
    pull_command.add_argument("--data-dir", type=Path, required=True, help="the local copy")
    pull_command.add_argument("--every", type=float, metavar="SECONDS",
                              help="keep pulling at this interval (a sidecar) instead of once")
    pull_command.add_argument("--alive", type=Path, metavar="FILE",
                              help="with --every: touch FILE after each attempt")
    index_command = commands.add_parser("index", help=f"write DIR/{INDEX} for HTTP sources")
    index_command.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "index":
        ids = write_index(args.data_dir)
        print(f"sync: {args.data_dir / INDEX} lists {len(ids)} snapshots")
        return 0
    source = source_for(args.source)
    if args.every is not None:
        if args.every <= 0:
            parser.error("--every must be positive")
        _pull_forever(source, args.data_dir, args.every, args.alive)
    try:
        print(_report(pull(source, args.data_dir)))
    except (SyncError, OSError) as error:
        print(f"sync: failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
