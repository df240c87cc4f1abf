"""The bundled sample is exactly what the committed scripts build from the committed raw data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from loaders import read_snapshot, snapshot_ids

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
RAW = ROOT / "data" / "raw"


def files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def run(script: str, *arguments: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "data" / script), *arguments], check=True, cwd=ROOT)


def test_make_raw_rebuilds_the_committed_raw_tables(tmp_path: Path) -> None:
    run("make_raw.py", "--out", str(tmp_path))
    assert files(tmp_path) == files(RAW)


def test_make_sample_rebuilds_the_committed_sample(tmp_path: Path) -> None:
    run("make_sample.py", "--raw", str(RAW), "--out", str(tmp_path))
    rebuilt = files(tmp_path)
    committed = {name: raw for name, raw in files(SAMPLE).items() if name != "README.md"}
    assert sorted(rebuilt) == sorted(committed)
    assert [name for name in rebuilt if rebuilt[name] != committed[name]] == []


def test_sample_every_snapshot_valid_and_synthetic() -> None:
    for snapshot_id in snapshot_ids(SAMPLE):
        directory = SAMPLE / "snapshots" / snapshot_id
        snapshot, problems = read_snapshot(directory)
        assert problems == [] and snapshot is not None and len(snapshot.countries) == 217
        manifest = orjson.loads((directory / "manifest.json").read_bytes())
        assert manifest["synthetic"] is True and "not the published index" in manifest["notice"]
