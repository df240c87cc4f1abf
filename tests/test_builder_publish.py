"""builder.publish and the CLI: a publish completes or leaves the data directory as it was."""

from __future__ import annotations

import datetime
import errno
import fcntl
import importlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
import redis

from builder import (
    Conflict,
    Economy,
    HookFailed,
    Listed,
    Placement,
    PublishBusy,
    Release,
    SnapshotConflict,
    SnapshotInvalid,
    announce_current,
    build_snapshot,
    list_snapshots,
    publish,
    shell_hook,
)
from builder.__main__ import main
from builder.changes import CHANGES_FILE
from builder.journal import JOURNAL
from builder.publish import LOCK, Rollback, RolledBack, StepFailed
from loaders import SNAPSHOT_CHANNEL, SnapshotStore, read_current_id, read_snapshot, snapshot_ids
from tests.builder_world import STANDARD, economy, world, write_raw

ROOT = Path(__file__).resolve().parent.parent
OTHER = {**STANDARD, economy("EEE"): 0.75}
"""Another world: a snapshot built from it has different bytes under the same id."""


def built(parent: Path, snapshot_id: str, positions: Mapping[Economy, float] = STANDARD) -> Path:
    """A valid snapshot directory ``parent/<id>`` of the tiny world."""
    release = Release.parse(snapshot_id, None, "SYNTHETIC: test data")
    return build_snapshot(world(positions, year=release.year), release, parent).directory


def published(directory: Path) -> dict[str, bytes]:
    """The snapshot's own files as published: the change report the publish adds left out."""
    return {name: raw for name, raw in tree(directory).items() if name != CHANGES_FILE}


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by relative path, with its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def stamps(directory: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every file: equal stamps mean nothing was rewritten."""
    return {str(p): (p.stat().st_ino, p.stat().st_mtime_ns) for p in directory.rglob("*") if p.is_file()}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data directory whose current snapshot is 2026-10."""
    directory = tmp_path / "data"
    publish(built(tmp_path / "build-old", "2026-10"), directory)
    return directory


# --- publishing ---------------------------------------------------------------------------

def test_publish_new_snapshot_in_place_and_current(tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-11")
    outcome = publish(source, tmp_path / "data")
    assert (outcome.snapshot_id, outcome.placement, outcome.previous) == ("2026-11", Placement.NEW, None)
    assert published(tmp_path / "data" / "snapshots" / "2026-11") == tree(source)
    assert (tmp_path / "data" / "CURRENT").read_text() == "2026-11\n"
    assert SnapshotStore(tmp_path / "data").load_current() is not None


def test_publish_flips_current_from_the_previous(data: Path, tmp_path: Path) -> None:
    outcome = publish(built(tmp_path / "build", "2026-11"), data)
    assert (outcome.previous, read_current_id(data)) == ("2026-10", "2026-11")
    assert snapshot_ids(data) == ("2026-10", "2026-11")


def test_publish_invalid_snapshot_refused_data_untouched(data: Path, tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-11")
    (source / "countries" / "BBB.json").write_text("{}")
    before = tree(data)
    with pytest.raises(SnapshotInvalid, match="countries/BBB.json") as refused:
        publish(source, data)
    assert [problem.file for problem in refused.value.problems] == ["countries/BBB.json"]
    assert tree(data) == before
    assert [p.name for p in (data / "snapshots").iterdir()] == ["2026-10"]


def test_publish_directory_not_named_as_a_month_refused(tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-11").rename(tmp_path / "latest")
    with pytest.raises(SnapshotInvalid, match="not a snapshot directory"):
        publish(source, tmp_path / "data")


def test_publish_manifest_id_not_the_directory_name_refused(tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-11").rename(tmp_path / "2026-12")
    with pytest.raises(SnapshotInvalid, match="does not match the directory name"):
        publish(source, tmp_path / "data")


def test_publish_twice_second_changes_nothing(data: Path, tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-11")
    publish(source, data)
    before = stamps(data)
    announced: list[str] = []
    outcome = publish(source, data, announce=lambda _, snapshot_id: announced.append(snapshot_id))
    assert (outcome.placement, outcome.changed) == (Placement.SAME, False)
    assert stamps(data) == before and announced == []


def test_publish_same_content_not_current_only_flips(data: Path, tmp_path: Path) -> None:
    older = data / "snapshots" / "2026-10"
    publish(built(tmp_path / "build", "2026-11"), data)
    outcome = publish(older, data)  # a rollback: the published copy itself
    assert (outcome.placement, outcome.previous, read_current_id(data)) == (Placement.SAME, "2026-11", "2026-10")


def journal(data_dir: Path) -> list[dict[str, object]]:
    """The publisher's journal, one object per line."""
    return [json.loads(line) for line in (data_dir / JOURNAL).read_text().splitlines()]


def test_publish_records_each_change_in_the_journal(data: Path, tmp_path: Path) -> None:
    days = iter(datetime.datetime(2026, 11, day, 6, tzinfo=datetime.UTC) for day in (5, 6))
    publish(built(tmp_path / "build", "2026-11"), data, clock=lambda: next(days))
    publish(built(tmp_path / "build-other", "2026-11", OTHER), data, conflict=Conflict.REPLACE,
            clock=lambda: next(days))
    publish(built(tmp_path / "build-again", "2026-11", OTHER), data)  # nothing changes: nothing recorded
    assert journal(data)[1:] == [
        {"at": "2026-11-05T06:00:00Z", "snapshot": "2026-11", "previous": "2026-10", "placement": "new"},
        {"at": "2026-11-06T06:00:00Z", "snapshot": "2026-11", "previous": "2026-11", "placement": "replaced"},
    ]
    assert journal(data)[0]["previous"] is None, "the fixture's first publish"


def test_publish_rollback_holds_every_later_month_until_undone(data: Path, tmp_path: Path) -> None:
    publish(built(tmp_path / "build", "2026-11"), data)
    publish(built(tmp_path / "build", "2026-12"), data)
    outcome = publish(data / "snapshots" / "2026-10", data)  # two months back
    assert outcome.rolled_back == ("2026-11", "2026-12") and journal(data)[-1]["rolled_back"] == ["2026-11", "2026-12"]
    assert [(entry.snapshot_id, entry.rolled_back is not None) for entry in list_snapshots(data)] == [
        ("2026-10", False), ("2026-11", True), ("2026-12", True)]
    before = tree(data)
    for month in ("2026-11", "2026-12"):  # the copy in place, or the staged build again
        for source in (data / "snapshots" / month, tmp_path / "build" / month):
            with pytest.raises(RolledBack, match=f"^refused: {month} was rolled back on .* To make it current "
                                                 "on purpose, run it with --undo-rollback"):
                publish(source, data)
    assert tree(data) == before, "refused before anything was copied"
    # A month after the rolled-back ones is an ordinary publish; the rollback still holds 2026-12.
    publish(built(tmp_path / "build", "2027-01"), data)
    undone = publish(data / "snapshots" / "2026-12", data, rollback=Rollback.UNDO)
    assert (undone.previous, undone.rolled_back, read_current_id(data)) == ("2027-01", ("2027-01",), "2026-12")
    assert [entry.snapshot_id for entry in list_snapshots(data) if entry.rolled_back] == ["2026-11", "2027-01"]
    # Rolling back to a month a rollback holds is a rollback too: never refused.
    again = publish(data / "snapshots" / "2026-11", data)
    assert (again.rolled_back, read_current_id(data)) == (("2026-12",), "2026-11")
    assert [entry.snapshot_id for entry in list_snapshots(data) if entry.rolled_back] == ["2026-12", "2027-01"]


def test_publish_journal_with_a_torn_last_line_still_holds_the_rollback(data: Path, tmp_path: Path) -> None:
    publish(built(tmp_path / "build", "2026-11"), data)
    publish(data / "snapshots" / "2026-10", data)
    with (data / JOURNAL).open("a") as handle:
        handle.write('{"at": "2026-11-0')  # a publish killed while writing its line
    with pytest.raises(RolledBack):
        publish(data / "snapshots" / "2026-11", data)


def test_publish_different_content_same_id_refused(data: Path, tmp_path: Path) -> None:
    before = tree(data)
    with pytest.raises(SnapshotConflict, match="already published with different content"):
        publish(built(tmp_path / "build", "2026-10", OTHER), data)
    assert tree(data) == before


def test_publish_replace_swaps_the_content(data: Path, tmp_path: Path) -> None:
    source = built(tmp_path / "build", "2026-10", OTHER)
    outcome = publish(source, data, conflict=Conflict.REPLACE)
    assert (outcome.placement, outcome.changed) == (Placement.REPLACED, True)
    assert published(data / "snapshots" / "2026-10") == tree(source)
    assert [p.name for p in (data / "snapshots").iterdir()] == ["2026-10"]


def test_publish_hook_sees_the_snapshot_in_place_before_current_flips(data: Path, tmp_path: Path) -> None:
    seen: list[tuple[Path, str, str | None, bool]] = []

    def hook(data_dir: Path, snapshot_id: str) -> None:
        _, problems = read_snapshot(data_dir / "snapshots" / snapshot_id)
        seen.append((data_dir, snapshot_id, read_current_id(data_dir), problems == []))

    publish(built(tmp_path / "build", "2026-11"), data, hook=hook)
    assert seen == [(data, "2026-11", "2026-10", True)]
    assert read_current_id(data) == "2026-11"


def test_publish_hook_failure_undoes_the_publish(data: Path, tmp_path: Path) -> None:
    before = tree(data)

    def hook(data_dir: Path, snapshot_id: str) -> None:
        raise RuntimeError("warm-up failed")

    with pytest.raises(RuntimeError, match="warm-up failed"):
        publish(built(tmp_path / "build", "2026-11"), data, hook=hook)
    assert tree(data) == before and read_current_id(data) == "2026-10"
    assert [p.name for p in (data / "snapshots").iterdir()] == ["2026-10"]


def test_publish_hook_failure_after_replace_restores_the_old_content(data: Path, tmp_path: Path) -> None:
    before = tree(data)
    with pytest.raises(HookFailed):
        publish(built(tmp_path / "build", "2026-10", OTHER), data, hook=shell_hook("exit 3"),
                conflict=Conflict.REPLACE)
    assert tree(data) == before


def test_shell_hook_gets_data_dir_and_snapshot_id(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "hook.out"
    command = f'echo "$READINESS_DATA_DIR $READINESS_SNAPSHOT_ID" > {shlex.quote(str(out))}'
    publish(built(tmp_path / "build", "2026-11"), data, hook=shell_hook(command))
    assert out.read_text() == f"{data.resolve()} 2026-11\n"


def test_shell_hook_non_zero_exit_raises_hook_failed(data: Path, tmp_path: Path) -> None:
    with pytest.raises(HookFailed, match="exited with status 7; CURRENT not changed"):
        publish(built(tmp_path / "build", "2026-11"), data, hook=shell_hook("exit 7"))
    assert read_current_id(data) == "2026-10"


def test_publish_announces_after_current_flipped(data: Path, tmp_path: Path) -> None:
    announced: list[tuple[str, str | None]] = []
    publish(built(tmp_path / "build", "2026-11"), data,
            announce=lambda data_dir, snapshot_id: announced.append((snapshot_id, read_current_id(data_dir))))
    assert announced == [("2026-11", "2026-11")]


def test_publish_while_another_holds_the_lock_is_busy(data: Path, tmp_path: Path) -> None:
    with open(data / LOCK, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        with pytest.raises(PublishBusy, match="another publish is running"):
            publish(built(tmp_path / "build", "2026-11"), data)
    assert read_current_id(data) == "2026-10"


def test_publish_removes_leftovers_of_a_killed_publish(data: Path, tmp_path: Path) -> None:
    (data / "snapshots" / ".tmp-2026-11-abc123" / "2026-11").mkdir(parents=True)
    (data / ".CURRENT.tmp-xyz").write_text("2026-11\n")
    assert snapshot_ids(data) == ("2026-10",)  # the servers never see them
    publish(built(tmp_path / "build", "2026-11"), data)
    assert sorted(p.name for p in (data / "snapshots").iterdir()) == ["2026-10", "2026-11"]
    assert not list(data.glob(".CURRENT.tmp-*"))


# --- killed midway ------------------------------------------------------------------------

def wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    """Wait until the child signals it reached the point to kill it at."""
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process.poll() is None, "the publish ended before reaching the kill point"
        assert time.monotonic() < deadline, "the publish never reached the kill point"
        time.sleep(0.01)


def kill(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGKILL)  # the publish and its hook's shell
    process.wait()


def assert_old_state_intact(data: Path, old: dict[str, bytes]) -> None:
    assert read_current_id(data) == "2026-10"
    assert tree(data / "snapshots" / "2026-10") == old
    store = SnapshotStore(data)
    current = store.load_current()
    assert current is not None and current.id == "2026-10" and len(current.countries) == 5


def test_publish_killed_in_the_hook_leaves_current_and_old_snapshot_intact(data: Path, tmp_path: Path) -> None:
    old = tree(data / "snapshots" / "2026-10")
    source = built(tmp_path / "build", "2026-11")
    ready = tmp_path / "ready"
    process = subprocess.Popen(
        [sys.executable, "-m", "builder", "publish", str(source), "--data-dir", str(data),
         "--hook", f"touch {shlex.quote(str(ready))} && sleep 60"],
        cwd=ROOT, start_new_session=True,
    )
    wait_for(ready, process)
    kill(process)
    assert_old_state_intact(data, old)
    # Finishing is running it again: the snapshot is already in place, CURRENT flips.
    assert publish(source, data).placement is Placement.SAME
    assert read_current_id(data) == "2026-11"


COPY_THEN_STOP = """
import pathlib, shutil, sys, time
from builder.publish import publish
copy, copied = shutil.copyfile, []
def copy_then_stop(source, target, **options):
    copy(source, target, **options)
    copied.append(target)
    if len(copied) == 3:
        pathlib.Path(sys.argv[3]).touch()
        time.sleep(60)
shutil.copyfile = copy_then_stop
publish(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
"""


def test_publish_killed_while_copying_leaves_current_and_old_snapshot_intact(data: Path, tmp_path: Path) -> None:
    old = tree(data / "snapshots" / "2026-10")
    source = built(tmp_path / "build", "2026-11")
    ready = tmp_path / "ready"
    process = subprocess.Popen(
        [sys.executable, "-c", COPY_THEN_STOP, str(source), str(data), str(ready)],
        cwd=ROOT, start_new_session=True,
    )
    wait_for(ready, process)
    kill(process)
    assert_old_state_intact(data, old)
    assert [p.name.startswith(".tmp-2026-11-") for p in (data / "snapshots").iterdir()].count(True) == 1
    assert snapshot_ids(data) == ("2026-10",)  # the half copy is invisible to the servers
    assert publish(source, data).placement is Placement.NEW  # the lock died with the process
    assert sorted(p.name for p in (data / "snapshots").iterdir()) == ["2026-10", "2026-11"]


# --- listing ------------------------------------------------------------------------------

def test_list_snapshots_with_dates_counts_and_current(data: Path, tmp_path: Path) -> None:
    publish(built(tmp_path / "build", "2026-11"), data)
    assert list_snapshots(data) == [
        Listed("2026-10", "2026-10-01", 5, False, valid=5),
        Listed("2026-11", "2026-11-01", 5, True, valid=5),
    ]


def test_list_snapshots_names_the_country_files_the_servers_would_skip(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "snapshots" / "2026-10" / "countries" / "BBB.json").write_text("{}")
    (data / "snapshots" / "2026-10" / "countries" / "DDD.json").unlink()
    (entry,) = list_snapshots(data)
    assert (entry.countries, entry.valid, entry.skipped) == (5, 3, ("BBB", "DDD"))
    assert main(["list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == (
        "* 2026-10  published 2026-10-01  3 economies valid, 2 skipped (BBB, DDD)  (current)\n")


def test_list_snapshots_unreadable_manifest_shown(data: Path) -> None:
    (data / "snapshots" / "2026-09").mkdir()
    (data / "snapshots" / "2026-09" / "manifest.json").write_text("{")
    assert list_snapshots(data)[0] == Listed("2026-09", None, None, False)


# --- a full disk: the error names the step and the file, nothing is lost -------------------

NO_SPACE = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
publish_module = importlib.import_module("builder.publish")
"""The module (``builder.publish`` is also the name of the function the package exports)."""


def test_publish_on_a_full_disk_while_copying_names_the_step_and_file(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = shutil.copyfile

    def filling_up(source: Path, target: Path) -> object:
        if Path(target).name == "CCC.json":  # as shutil says it: both files named, the target second
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(source), None, str(target))
        return copy(source, target)

    monkeypatch.setattr(publish_module.shutil, "copyfile", filling_up)
    before = tree(data)
    with pytest.raises(StepFailed) as failed:
        publish(built(tmp_path / "build", "2026-11"), data)
    assert failed.value.step == "copy" and failed.value.file is not None
    assert failed.value.file.parts[-2:] == ("countries", "CCC.json")
    assert str(failed.value) == (
        f"2026-11: the copy step failed on {failed.value.file}: No space left on device (ENOSPC); "
        "CURRENT unchanged (2026-10), the published snapshots as they were")
    assert tree(data) == before, "nothing lost, nothing left behind"


def test_publish_on_a_full_disk_writing_the_report_names_it(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_bytes = Path.write_bytes

    def filling_up(path: Path, raw: bytes) -> int:
        if path.name == CHANGES_FILE:
            raise NO_SPACE
        return write_bytes(path, raw)

    source = built(tmp_path / "build", "2026-11")
    monkeypatch.setattr(Path, "write_bytes", filling_up)
    with pytest.raises(StepFailed, match=r"2026-11: the report step failed on .*/2026-11/changes\.json: No space"):
        publish(source, data)
    assert read_current_id(data) == "2026-10" and snapshot_ids(data) == ("2026-10",)


def test_publish_on_a_full_disk_flipping_current_says_how_to_finish(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replace = os.replace

    def filling_up(source: str, target: str) -> None:
        if Path(target).name == "CURRENT":
            raise NO_SPACE
        replace(source, target)

    source = built(tmp_path / "build", "2026-11")
    monkeypatch.setattr(publish_module.os, "replace", filling_up)
    assert main(["publish", str(source), "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"error: 2026-11: the flip step failed on {data / 'CURRENT'}: No space left on device (ENOSPC); "
        f"2026-11 is in place in {data / 'snapshots' / '2026-11'} but not current (CURRENT still 2026-10): "
        "run the same publish again to finish")
    assert re.fullmatch(r"\d\d:\d\d:\d\d flip: failed after \d+\.\d s", err[-2])
    assert read_current_id(data) == "2026-10" and not list(data.glob(".CURRENT.tmp-*"))
    monkeypatch.undo()  # space again
    assert main(["publish", str(source), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("2026-11 was already in place in ")
    assert read_current_id(data) == "2026-11"


# --- command line -------------------------------------------------------------------------

def test_cli_build_publish_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = write_raw(tmp_path / "raw", world(STANDARD))
    assert main(["build", "--raw", str(raw), "--snapshot", "2024-12", "--out", str(tmp_path / "build"),
                 "--published", "2024-12-05", "--synthetic-notice", "SYNTHETIC"]) == 0
    assert capsys.readouterr().out == (
        f"built {tmp_path / 'build' / '2024-12'}: 5 economies (1 microstates, 4 ranked), "
        "1 of 105 scoring values imputed or missing\n")
    data = tmp_path / "data"
    assert main(["publish", str(tmp_path / "build" / "2024-12"), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == (
        f"published 2024-12 to {data / 'snapshots' / '2024-12'}; CURRENT: (none) -> 2024-12\n")
    assert main(["publish", str(tmp_path / "build" / "2024-12"), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == (
        "2024-12 is already published with the same content and current: nothing changed\n")
    assert main(["list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == "* 2024-12  published 2024-12-05  5 economies valid  (current)\n"


def test_cli_build_writes_publisher_and_licence(tmp_path: Path) -> None:
    raw = write_raw(tmp_path / "raw", world(STANDARD))
    assert main(["build", "--raw", str(raw), "--snapshot", "2024-12", "--out", str(tmp_path / "build"),
                 "--publisher", "Example Institute", "--license", "CC-BY-4.0"]) == 0
    manifest = json.loads((tmp_path / "build" / "2024-12" / "manifest.json").read_bytes())
    assert (manifest["publisher"], manifest["license"]) == ("Example Institute", "CC-BY-4.0")
    assert main(["build", "--raw", str(raw), "--snapshot", "2025-12", "--out", str(tmp_path / "build"),
                 "--publisher", " "]) == 1


def test_cli_publish_replace(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = built(tmp_path / "build", "2026-10", OTHER)
    assert main(["publish", str(source), "--data-dir", str(data)]) == 1
    assert "use --replace" in capsys.readouterr().err
    assert main(["publish", str(source), "--data-dir", str(data), "--replace"]) == 0
    assert capsys.readouterr().out.startswith("replaced 2026-10 in ")


def test_cli_publish_invalid_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = built(tmp_path / "build", "2026-11")
    (source / "manifest.json").write_text("{}")
    assert main(["publish", str(source), "--data-dir", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("error: refused: ")
    assert re.fullmatch(r"\d\d:\d\d:\d\d copy: failed after \d+\.\d s", err[-2]), "the step that failed"
    assert read_current_id(tmp_path / "data") is None


def test_cli_publish_hook_failure_exit_1(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = built(tmp_path / "build", "2026-11")
    assert main(["publish", str(source), "--data-dir", str(data), "--hook", "exit 1"]) == 1
    assert "exited with status 1; CURRENT not changed" in capsys.readouterr().err
    assert read_current_id(data) == "2026-10"


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--snapshot", "2024-13"], "is not a month"),
        (["--snapshot", "2024-12", "--published", "2024-11-30"], "not in 2024-12"),
    ],
)
def test_cli_build_bad_release_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], fragment: str
) -> None:
    raw = write_raw(tmp_path / "raw", world(STANDARD))
    assert main(["build", "--raw", str(raw), "--out", str(tmp_path / "build"), *arguments]) == 1
    assert fragment in capsys.readouterr().err


def test_cli_build_bad_raw_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--raw", str(tmp_path), "--snapshot", "2024-12", "--out", str(tmp_path / "b")]) == 1
    assert "countries.csv: cannot read" in capsys.readouterr().err


def test_cli_list_without_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "snapshots").mkdir()
    assert main(["list", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "no usable CURRENT: no snapshot is current\n"


def test_cli_list_current_names_a_missing_snapshot(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (data / "CURRENT").write_text("2027-01\n")
    assert main(["list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "CURRENT names 2027-01, which is not in snapshots/"


def test_announce_current_publishes_on_the_snapshot_channel(
    real_redis_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    listener = redis.Redis.from_url(real_redis_url).pubsub()
    listener.subscribe(SNAPSHOT_CHANNEL)
    confirmed = listener.get_message(timeout=10)  # awaited: the subscription is in place
    assert confirmed is not None and confirmed["type"] == "subscribe"
    monkeypatch.setenv("READINESS_REDIS_URL", real_redis_url)
    announce_current(tmp_path, "2026-12")
    message = listener.get_message(timeout=10)
    listener.close()
    assert message is not None and message["data"] == b"2026-12"


@pytest.mark.parametrize("url", [
    "redis://127.0.0.1:1/0",  # nothing listens on port 1
    "redis+sentinel://127.0.0.1:1/readiness",
    "redis+cluster://127.0.0.1:1",
    "redis+sentinel://127.0.0.1:1",  # a URL the servers would refuse: no service named
])
def test_announce_current_unreachable_redis_only_warns(
    url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("READINESS_REDIS_URL", url)
    announce_current(tmp_path, "2026-12")  # CURRENT flipped already: this must not raise
    assert "servers will notice it when they poll" in caplog.text
