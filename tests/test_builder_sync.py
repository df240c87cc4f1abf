"""builder/sync.py, for real: copies from a local directory and from an HTTP server on
127.0.0.1 serving one, checked file by file; corrupt, missing and interrupted copies never
become current; CURRENT is written last; an unchanged source copies nothing.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from builder.sync import INDEX, DirectorySource, HttpSource, SyncError, main, pull, write_index
from loaders import load_snapshot, read_current_id
from tests.conftest import ROOT, SAMPLE
from tests.processes import until

OLD, NEW = "2025-12", "2026-11"
WAIT_SECONDS = 60  # generous: only ever reached when something is broken


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _stats(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in root.rglob("*")
    }


def _publish_source(source: Path, *snapshot_ids: str) -> None:
    """A published data directory holding these sample snapshots, the last one current."""
    for snapshot_id in snapshot_ids:
        shutil.copytree(SAMPLE / "snapshots" / snapshot_id, source / "snapshots" / snapshot_id)
    (source / "CURRENT").write_text(f"{snapshot_ids[-1]}\n")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A published data directory with OLD and NEW, NEW current."""
    _publish_source(tmp_path / "source", OLD, NEW)
    return tmp_path / "source"


@dataclass
class Served:
    """An HTTP server on 127.0.0.1 serving a directory; it can hold one path's response."""

    url: str
    hold: str | None = None
    cut: str | None = None
    """A path whose response promises its whole length but sends half, then hangs up."""
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def served(source: Path) -> Iterator[Served]:
    state = Served("")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if state.hold is not None and self.path == f"/{state.hold}":
                state.held.set()
                state.release.wait(WAIT_SECONDS)
            if state.cut is not None and self.path == f"/{state.cut}":
                body = (Path(self.directory) / state.cut).read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.close_connection = True
                return
            super().do_GET()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(source))
    )
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/"
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()
    thread.join(WAIT_SECONDS)


def _last_country(source: Path, snapshot_id: str) -> str:
    countries = sorted((source / "snapshots" / snapshot_id / "countries").iterdir())
    return f"snapshots/{snapshot_id}/countries/{countries[-1].name}"


# --- from a directory -------------------------------------------------------------------------


def test_pull_from_directory_copies_every_snapshot_and_current(
    source: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    outcome = pull(DirectorySource(source), local)
    assert outcome.copied == (OLD, NEW) and (outcome.previous, outcome.current) == (None, NEW)
    assert _files(local) == _files(source)
    assert load_snapshot(local / "snapshots" / NEW).id == NEW


def test_pull_unchanged_source_copies_nothing(source: Path, tmp_path: Path) -> None:
    local = tmp_path / "local"
    pull(DirectorySource(source), local)
    before = _stats(local)
    outcome = pull(DirectorySource(source), local)
    assert outcome.copied == () and not outcome.changed
    assert _stats(local) == before  # not one file rewritten, not even CURRENT


def test_pull_follows_a_new_current_copying_only_the_new_snapshot(
    source: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    (source / "CURRENT").write_text(f"{OLD}\n")
    shutil.rmtree(source / "snapshots" / NEW)
    pull(DirectorySource(source), local)
    old_files = _stats(local / "snapshots" / OLD)
    _publish_source(source, NEW)
    outcome = pull(DirectorySource(source), local)
    assert outcome.copied == (NEW,) and (outcome.previous, outcome.current) == (OLD, NEW)
    assert read_current_id(local) == NEW
    assert _stats(local / "snapshots" / OLD) == old_files


def test_pull_replaces_a_snapshot_republished_with_another_manifest(
    source: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    pull(DirectorySource(source), local)
    manifest = source / "snapshots" / NEW / "manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"published": "', b'"published":  "'))
    outcome = pull(DirectorySource(source), local)
    assert outcome.copied == (NEW,)
    assert _files(local) == _files(source)
    assert not list((local / "snapshots").glob(".*")), "nothing left in staging"


# --- what never becomes current ---------------------------------------------------------------


def test_corrupt_file_fails_the_pull_and_never_becomes_current(
    source: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    (source / "CURRENT").write_text(f"{OLD}\n")
    pull(DirectorySource(source), local)
    (source / "CURRENT").write_text(f"{NEW}\n")
    shutil.rmtree(local / "snapshots" / NEW)  # as if NEW were published after the first pull
    corrupt = source / _last_country(source, NEW)
    corrupt.write_bytes(corrupt.read_bytes().replace(b"}", b" }", 1))
    with pytest.raises(SyncError, match=f"{corrupt.name} does not match its manifest's checksum"):
        pull(DirectorySource(source), local)
    assert read_current_id(local) == OLD
    assert sorted(path.name for path in (local / "snapshots").iterdir()) == [OLD]


def test_missing_file_over_http_fails_the_pull_and_never_becomes_current(
    source: Path, served: Served, tmp_path: Path
) -> None:
    write_index(source)
    missing = _last_country(source, NEW)
    (source / missing).unlink()
    local = tmp_path / "local"
    with pytest.raises(SyncError, match=f"{NEW}/countries/.* is missing from the source"):
        pull(HttpSource(served.url), local)
    assert not (local / "CURRENT").exists()
    assert sorted(path.name for path in (local / "snapshots").iterdir()) == [OLD]


def test_response_cut_short_fails_the_pull_and_never_becomes_current(
    source: Path, served: Served, tmp_path: Path
) -> None:
    served.cut = f"snapshots/{NEW}/manifest.json"  # no checksum covers it
    local = tmp_path / "local"
    with pytest.raises(SyncError, match=r"cut short \(\d+ of \d+ bytes\)"):
        pull(HttpSource(served.url), local)
    assert not (local / "CURRENT").exists()
    assert not (local / "snapshots" / NEW).exists()


def test_manifest_of_another_snapshot_is_refused(source: Path, tmp_path: Path) -> None:
    shutil.copy2(source / "snapshots" / OLD / "manifest.json", source / "snapshots" / NEW)
    with pytest.raises(SyncError, match=f"{NEW}/manifest.json is not usable"):
        pull(DirectorySource(source), tmp_path / "local")
    assert not (tmp_path / "local" / "CURRENT").exists()


@pytest.mark.parametrize("content", [None, "latest\n", "../etc\n"])
def test_source_without_a_usable_current_changes_nothing(
    source: Path, tmp_path: Path, content: str | None
) -> None:
    local = tmp_path / "local"
    pull(DirectorySource(source), local)
    before = _stats(local)
    if content is None:
        (source / "CURRENT").unlink()
    else:
        (source / "CURRENT").write_text(content)
    with pytest.raises(SyncError, match="the source has no usable CURRENT"):
        pull(DirectorySource(source), local)
    assert _stats(local) == before


# --- over HTTP --------------------------------------------------------------------------------


def test_pull_over_http_with_an_index_copies_every_snapshot(
    source: Path, served: Served, tmp_path: Path
) -> None:
    assert write_index(source) == (OLD, NEW)
    assert (source / INDEX).read_text() == f"{OLD}\n{NEW}\n"
    local = tmp_path / "local"
    outcome = pull(HttpSource(served.url), local)
    assert outcome.copied == (OLD, NEW)
    assert _files(local) == {
        name: data for name, data in _files(source).items() if name != INDEX
    }
    assert pull(HttpSource(served.url), local).copied == ()


def test_pull_over_http_without_an_index_copies_the_current_snapshot(
    source: Path, served: Served, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    assert pull(HttpSource(served.url), local).copied == (NEW,)
    assert read_current_id(local) == NEW


def test_current_is_written_after_the_last_file_of_the_snapshot(
    source: Path, served: Served, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    (source / "CURRENT").write_text(f"{OLD}\n")
    pull(HttpSource(served.url), local)
    (source / "CURRENT").write_text(f"{NEW}\n")
    served.hold = _last_country(source, NEW)
    outcomes = []
    puller = threading.Thread(target=lambda: outcomes.append(pull(HttpSource(served.url), local)))
    puller.start()
    try:
        assert served.held.wait(WAIT_SECONDS), "the pull asked for the last file"
        # The last file is in flight: the new snapshot is not in place and CURRENT is the old.
        assert read_current_id(local) == OLD
        assert not (local / "snapshots" / NEW).exists()
    finally:
        served.release.set()
        puller.join(WAIT_SECONDS)
    assert outcomes and outcomes[0].copied == (NEW,)
    assert read_current_id(local) == NEW


def test_killed_pull_leaves_current_and_the_next_pull_finishes(
    source: Path, served: Served, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    served.hold = _last_country(source, NEW)
    process = subprocess.Popen(
        [sys.executable, "-m", "builder.sync", "pull", served.url, "--data-dir", str(local)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert served.held.wait(WAIT_SECONDS), "the pull asked for the last file"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(WAIT_SECONDS)
    assert not (local / "CURRENT").exists()
    assert not (local / "snapshots" / NEW).exists()
    assert list((local / "snapshots").glob(".*")), "the killed copy's staging directory"
    served.hold = None
    served.release.set()
    assert pull(HttpSource(served.url), local).copied == (NEW,)
    assert read_current_id(local) == NEW
    assert not list((local / "snapshots").glob(".*")), "leftovers removed"


# --- the command ------------------------------------------------------------------------------


def test_command_exits_1_and_says_why_when_the_source_is_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["pull", str(tmp_path / "nowhere"), "--data-dir", str(tmp_path / "local")])
    assert status == 1
    assert "sync: failed: the source has no usable CURRENT" in capsys.readouterr().err


def test_command_pulls_once_and_reports(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pull", str(source), "--data-dir", str(tmp_path / "local")]) == 0
    assert capsys.readouterr().out == f"sync: copied {OLD}, {NEW}; CURRENT: (none) -> {NEW}\n"


def test_sidecar_loop_follows_the_source_and_survives_its_failures(
    source: Path, tmp_path: Path
) -> None:
    local, alive = tmp_path / "local", tmp_path / "alive"
    process = subprocess.Popen(
        [sys.executable, "-m", "builder.sync", "pull", str(source), "--data-dir", str(local),
         "--every", "0.1", "--alive", str(alive)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until(lambda: read_current_id(local) == NEW, WAIT_SECONDS, "the first pull")
        (source / "CURRENT").write_text(f"{OLD}\n")
        until(lambda: read_current_id(local) == OLD, WAIT_SECONDS, "CURRENT followed")
        (source / "CURRENT").unlink()  # the source breaks: the loop goes on, the copy stays
        for _ in range(2):  # the second touch is from an attempt that began after the break
            alive.unlink()
            until(alive.exists, WAIT_SECONDS, "an attempt after the failure")
        assert process.poll() is None and read_current_id(local) == OLD
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(WAIT_SECONDS)
